import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './cli.js';

let cwd: string;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'create-umbel-provider-'));
});
afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

describe('create-umbel-provider', () => {
  it('--help prints the usage, exit 0', async () => {
    for (const flag of ['--help', '-h']) {
      const result = await runCli([flag], cwd);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toContain('Usage: npm create umbel-provider@latest NAME');
    }
    expect(await readdir(cwd)).toEqual([]);
  });

  it('no NAME: a usage error naming the command, exit 2, nothing written', async () => {
    const result = await runCli([], cwd);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toContain('NAME is missing: npm create umbel-provider@latest NAME');
    expect(await readdir(cwd)).toEqual([]);
  });

  it('an invalid npm name, an unknown option, two names: exit 2, nothing written', async () => {
    expect(await runCli(['Not Valid'], cwd)).toMatchObject({ code: 2, stderr: expect.stringContaining("'Not Valid' is not a valid npm package name") });
    expect(await runCli(['--frobnicate', 'x'], cwd)).toMatchObject({ code: 2, stderr: expect.stringContaining('--frobnicate') });
    expect(await runCli(['a', 'b'], cwd)).toMatchObject({ code: 2, stderr: expect.stringContaining('one NAME only') });
    expect(await readdir(cwd)).toEqual([]);
  });

  it('an existing non-empty folder (or a file) is refused and left alone; an empty one is used', async () => {
    await mkdir(join(cwd, 'umbel-provider-acme'));
    await writeFile(join(cwd, 'umbel-provider-acme', 'mine.txt'), 'keep');
    const refused = await runCli(['umbel-provider-acme'], cwd);
    expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining('umbel-provider-acme exists and is not empty') });
    expect(await readdir(join(cwd, 'umbel-provider-acme'))).toEqual(['mine.txt']);
    await writeFile(join(cwd, 'umbel-provider-file'), '');
    expect(await runCli(['umbel-provider-file'], cwd)).toMatchObject({ code: 2, stderr: expect.stringContaining('exists and is not a folder') });
    await mkdir(join(cwd, 'umbel-provider-empty'));
    expect(await runCli(['umbel-provider-empty'], cwd)).toMatchObject({ code: 0 });
  });

  it('generates the package in ./NAME (scope dropped), with NAME filled in everywhere, and says what next', async () => {
    const result = await runCli(['@me/umbel-provider-acme'], cwd);
    expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('Created @me/umbel-provider-acme in ./umbel-provider-acme');
    expect(result.stdout).toContain('npm test');
    const dir = join(cwd, 'umbel-provider-acme');
    const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
    expect(files.sort()).toEqual([
      '.gitignore',
      'README.md',
      'bin/acme-agent.js',
      'package.json',
      'scripts/record-conformance.mjs',
      'src/__fixtures__/conformance.json',
      'src/conformance.test.ts',
      'src/facts.ts',
      'src/index.ts',
      'src/provider.test.ts',
      'src/transcript.ts',
      'tsconfig.json',
      'tsup.config.ts',
      'vitest.config.ts',
    ]);
    for (const file of files) {
      const text = await readFile(join(dir, file), 'utf8');
      expect(text.match(/\{\{\w+\}\}/g)?.filter((key) => key !== '{{cwd}}' && key !== '{{transcript}}') ?? [], file).toEqual([]);
    }
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({
      name: '@me/umbel-provider-acme',
      bin: { 'acme-agent': './bin/acme-agent.js' },
      peerDependencies: { '@umbel/provider': '>=0.1.0 <1' },
    });
    expect(manifest.dependencies).toBeUndefined();
    expect(await readFile(join(dir, 'src', 'facts.ts'), 'utf8')).toContain("id: 'acme',");
    expect((await stat(join(dir, 'bin', 'acme-agent.js'))).mode & 0o111).not.toBe(0);
    const recording = JSON.parse(await readFile(join(dir, 'src', '__fixtures__', 'conformance.json'), 'utf8'));
    expect(recording.cli).toBe('acme-agent@0.1.0');
    expect(JSON.stringify(recording)).toContain('{{cwd}}');
  });
});
