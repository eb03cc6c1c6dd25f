/**
 * Pack check: pack every public package as it would be published, inspect the tarballs, then
 * install them into an empty project (our own packages only from the tarballs — lookups of our
 * names would hit a dead registry) and run `npx umbel --version` there. Needs built packages
 * (`pnpm test` builds first).
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
let work: string;
const tarballs: { name: string; file: string; dir: string; manifest: Record<string, unknown> }[] = [];

function targets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(targets);
  return [];
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'umbel-pack-'));
  for (const dir of (await readdir(join(root, 'packages'))).sort()) {
    const pkg = JSON.parse(await readFile(join(root, 'packages', dir, 'package.json'), 'utf8'));
    if (pkg.private) continue;
    const { stdout } = await run('pnpm', ['pack', '--pack-destination', work], { cwd: join(root, 'packages', dir) });
    const file = stdout.trim().split('\n').pop() as string;
    const out = join(work, `x-${dir}`);
    await mkdir(out);
    await run('tar', ['-xzf', file, '-C', out]);
    tarballs.push({ name: pkg.name, file, dir: join(out, 'package'), manifest: JSON.parse(await readFile(join(out, 'package', 'package.json'), 'utf8')) });
  }
}, 600_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('packed packages', () => {
  it('packs every package', () => {
    expect(tarballs.map((t) => t.name).sort()).toEqual([
      '@umbel/cli',
      '@umbel/core',
      '@umbel/mcp',
      '@umbel/provider-claude',
      '@umbel/provider-codex',
      '@umbel/provider-gemini',
      '@umbel/tmux',
      '@umbel/workflow',
      'umbel',
    ]);
  });

  it('leaks no workspace: range', () => {
    for (const t of tarballs) expect(JSON.stringify(t.manifest), t.name).not.toContain('workspace:');
  });

  it('ships every exports and bin target; bins start with a shebang', async () => {
    for (const t of tarballs) {
      for (const target of targets(t.manifest.exports)) expect(existsSync(join(t.dir, target)), `${t.name}: ${target}`).toBe(true);
      for (const target of targets(t.manifest.bin)) {
        expect(existsSync(join(t.dir, target)), `${t.name}: bin ${target}`).toBe(true);
        expect((await readFile(join(t.dir, target), 'utf8')).startsWith('#!/usr/bin/env node\n'), `${t.name}: ${target} shebang`).toBe(true);
      }
      expect(t.manifest.engines, t.name).toEqual({ node: '>=20.19' });
    }
  });

  it('installs from the tarballs into an empty project, and `npx umbel --version` runs', async () => {
    const project = join(work, 'project');
    await mkdir(project);
    // Our packages come only from the tarballs: as direct dependencies and, for the edges between
    // them, as overrides (npm would otherwise look their ranges up in the registry, which here is
    // a dead address, so a lookup fails the test instead of fetching a published copy).
    const ours = Object.fromEntries(tarballs.map((t) => [t.name, `file:${t.file}`]));
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'pack-check', private: true, type: 'module', dependencies: ours, overrides: ours }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--fetch-retries=0', '--@umbel:registry=http://127.0.0.1:9/'], {
      cwd: project,
      env: { ...process.env, npm_config_update_notifier: 'false' },
      maxBuffer: 64 * 1024 * 1024,
    });
    const { stdout } = await run('npx', ['--no', '--', 'umbel', '--version'], { cwd: project });
    expect(stdout.trim()).toBe('umbel 0.1.0');
    const mcp = await run('node', ['-e', "import('@umbel/mcp').then((m) => console.log(typeof m.createMcpServer))"], { cwd: project });
    expect(mcp.stdout.trim()).toBe('function');
    // The MCP server runs from the tarballs, standalone and through `umbel mcp`.
    for (const argv of [['umbel-mcp'], ['umbel', 'mcp']]) {
      const answer = await initializeOverStdio(project, argv, join(work, `home-${argv.length}`));
      expect(answer, argv.join(' ')).toMatchObject({ id: 1, result: { serverInfo: { name: 'umbel' } } });
    }
  });
});

/** Start `npx --no -- <argv>`, send an MCP initialize, return the first answer; the server must exit once stdin closes. */
function initializeOverStdio(cwd: string, argv: string[], home: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['--no', '--', ...argv], { cwd, env: { ...process.env, UMBEL_HOME: home }, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    let answer: unknown;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n')[0];
      if (answer === undefined && out.includes('\n') && line) {
        answer = JSON.parse(line);
        child.stdin.end();
      }
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 && answer !== undefined ? resolve(answer) : reject(new Error(`${argv.join(' ')} exited ${code}; stdout: ${out}`))));
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pack-check', version: '0' } } })}\n`,
    );
  });
}
