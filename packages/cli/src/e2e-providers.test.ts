/**
 * Provider packages on the command line, through the BUILT `umbel` bin: `umbel providers`
 * (text and --json), `--help` naming the providers actually loaded, and the refusals (a package
 * that cannot be loaded, a broken config file: exit 2 naming it). No tmux: nothing is spawned.
 */
import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, REPO_ROOT, testEnv, umbelRunner } from '../../../test-fixtures/real/umbel-helpers.mjs';

let scratch: string;
let project: string;
let fakeCli: string;
let umbel: UmbelRun;

/** Help text with every run of whitespace as one space (yargs wraps long descriptions). */
const flat = (text: string) => text.replace(/\s+/g, ' ');

/** A provider module (ESM) with an id, a description, a verified-versions list and a binary lookup. */
function providerSource(id: string, binary: string | undefined): string {
  const find = binary
    ? `async doFindBinary() { return ${JSON.stringify(binary)}; },`
    : `async doFindBinary(env) { throw Object.assign(new Error('${id}-cli not found (looked: UMBEL_${id.toUpperCase()}_BIN unset; PATH ' + env.PATH + ')'), {}); },`;
  return `export const provider = {
  specificationVersion: 'umbel-provider-v1', providerId: ${JSON.stringify(id)}, displayName: ${JSON.stringify(`${id} CLI`)},
  description: ${JSON.stringify(`The ${id} test agent; needs nothing.`)}, verifiedVersions: ['3.1.0', '3.2.0'],
  capabilities: { unattended: false, allowedTools: false, appendSystemPrompt: false, permissionModes: [] }, inheritEnv: [],
  ${find}
  async doBuildLaunch() { return { argv: ['/bin/true'] }; }, doDetectStartup() { return { state: 'starting' }; },
  doParseEvent() { return {}; }, doReadTurn() { return { status: 'missing' }; },
};\n`;
}

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs', 'packages/runtime/dist/index.js']);
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-e2e-providers-')));
  project = join(scratch, 'project');
  const pkg = join(project, 'node_modules', 'umbel-provider-alpha');
  await mkdir(pkg, { recursive: true });
  fakeCli = join(scratch, 'alpha-cli');
  await writeFile(fakeCli, '#!/bin/sh\necho "alpha-cli 3.2.0"\n');
  await chmod(fakeCli, 0o755);
  await writeFile(join(pkg, 'package.json'), JSON.stringify({ name: 'umbel-provider-alpha', version: '0.4.0', type: 'module', exports: './index.js' }));
  await writeFile(join(pkg, 'index.js'), providerSource('alpha', fakeCli));
  await writeFile(join(project, 'beta.mjs'), providerSource('beta', undefined));
  await writeFile(join(project, 'throws.mjs'), `throw new Error('boom at import');\n`);
  await mkdir(join(scratch, 'home', '.config', 'umbel'), { recursive: true });
  await writeFile(join(scratch, 'home', '.config', 'umbel', 'config.json'), JSON.stringify({ providers: ['umbel-provider-alpha'] }));
  ({ run: umbel } = umbelRunner({
    cwd: project,
    env: testEnv({ home: join(scratch, 'home'), umbelHome: join(scratch, 'state'), UMBEL_PROVIDERS: './beta.mjs' }),
  }));
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('umbel providers', () => {
  it('--json: every provider with its origin, package, binary and verified versions', async () => {
    const { code, stdout, stderr } = await umbel(['providers', '--json']);
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.config).toEqual({ path: join(scratch, 'home', '.config', 'umbel', 'config.json'), exists: true });
    expect(report.providers.map((p: { id: string; source: string }) => [p.id, p.source])).toEqual([
      ['claude', 'built-in'],
      ['codex', 'built-in'],
      ['gemini', 'built-in'],
      ['opencode', 'built-in'],
      ['copilot', 'built-in'],
      ['qwen', 'built-in'],
      ['alpha', 'config'],
      ['beta', 'env'],
    ]);
    const alpha = report.providers[6];
    expect(alpha).toMatchObject({
      displayName: 'alpha CLI',
      description: 'The alpha test agent; needs nothing.',
      specifier: 'umbel-provider-alpha',
      packageName: 'umbel-provider-alpha',
      packageVersion: '0.4.0',
      binary: { status: 'found', path: fakeCli, version: 'alpha-cli 3.2.0' },
      verifiedVersions: ['3.1.0', '3.2.0'],
    });
    expect(report.providers[7]).toMatchObject({ specifier: './beta.mjs', module: join(project, 'beta.mjs'), binary: { status: 'not-found' } });
    expect(report.providers[7].binary.message).toMatch(/beta-cli not found \(looked: UMBEL_BETA_BIN unset; PATH /);
    expect(report.providers[0]).toMatchObject({ packageName: '@umbel/provider-claude', packageVersion: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    const opencodeManifest = JSON.parse(readFileSync(join(REPO_ROOT, 'packages/provider-opencode/package.json'), 'utf8'));
    expect(report.providers[3]).toMatchObject({
      packageName: '@umbel/provider-opencode',
      packageVersion: opencodeManifest.version,
      verifiedVersions: ['1.18.33'],
    });
    expect(report.providers[4]).toMatchObject({ packageName: '@umbel/provider-copilot', displayName: 'GitHub Copilot CLI', verifiedVersions: ['1.0.102'] });
    expect(report.providers[5]).toMatchObject({ packageName: '@umbel/provider-qwen', displayName: 'Qwen Code', verifiedVersions: ['0.15.10'] });
  });

  it('as text: one block per provider', async () => {
    const { code, stdout } = await umbel(['providers']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^alpha {2,}alpha CLI {2,}umbel-provider-alpha 0\.4\.0 {2,}config$/m);
    expect(stdout).toContain(`  binary:   ${fakeCli} (alpha-cli 3.2.0)`);
    expect(stdout).toContain('  verified: 3.1.0, 3.2.0');
    expect(stdout).toContain('  The alpha test agent; needs nothing.');
    expect(stdout).toMatch(/^beta {2,}beta CLI {2,}\.\/beta\.mjs {2,}env$/m);
    expect(stdout).toMatch(/ {2}binary: {3}not found: beta-cli not found/);
    expect(stdout).toMatch(/^claude {2,}Claude Code {2,}@umbel\/provider-claude \d/m);
    expect(stdout).toMatch(/^copilot {2,}GitHub Copilot CLI {2,}@umbel\/provider-copilot \d/m);
  });

  it('refuses arguments it does not take', async () => {
    const { code, stderr } = await umbel(['providers', 'extra']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/unknown option or argument: extra/);
  });
});

describe('--help names the providers actually loaded', () => {
  it('umbel --help and umbel spawn --help list the loaded providers with their descriptions', async () => {
    for (const argv of [['--help'], ['spawn', '--help'], ['-p', '--help']]) {
      const { code, stdout } = await umbel(argv);
      expect(code, argv.join(' ')).toBe(0);
      expect(flat(stdout), argv.join(' ')).toMatch(/--provider Agent CLI \(default claude\): claude, codex, gemini, opencode, copilot, qwen, alpha, beta\b/);
    }
    const { stdout } = await umbel(['--help']);
    expect(stdout).toMatch(/^Providers \(umbel providers for details\):$/m);
    expect(stdout).toMatch(/^ {2}alpha {3,}The alpha test agent; needs nothing\.$/m);
    expect(stdout).toMatch(/^ {2}claude {3,}Anthropic's Claude Code/m);
    expect(stdout).toMatch(/UMBEL_PROVIDERS/);
  });

  it('still answers with a broken provider package, saying what is wrong', async () => {
    const { code, stdout } = await umbel(['--help'], { env: { UMBEL_PROVIDERS: 'umbel-provider-missing' } });
    expect(code).toBe(0);
    expect(flat(stdout)).toMatch(/--provider Agent CLI \(default claude\): claude, codex, gemini, opencode, copilot, qwen, alpha \[/);
    expect(stdout).toMatch(/cannot load provider package 'umbel-provider-missing'/);
  });
});

describe('a provider package or config file that cannot be loaded', () => {
  it('makes only its own provider unusable: the other verbs work, and providers, doctor and the refusals name the package and why', async () => {
    const env = { UMBEL_PROVIDERS: './beta.mjs,./throws.mjs,umbel-provider-missing' };
    const ls = await umbel(['ls', '--json'], { env });
    expect(ls.code, ls.stderr).toBe(0);
    expect(JSON.parse(ls.stdout)).toEqual([]);
    const status = await umbel(['status', 'nobody'], { env });
    expect(status.stderr).toMatch(/no worker named 'nobody'/);

    const providers = await umbel(['providers', '--json'], { env });
    expect(providers.code, providers.stderr).toBe(0);
    const report = JSON.parse(providers.stdout);
    expect(report.providers.map((p: { id: string }) => p.id)).toEqual(['claude', 'codex', 'gemini', 'opencode', 'copilot', 'qwen', 'alpha', 'beta']);
    expect(report.failures).toEqual([
      expect.objectContaining({ specifier: './throws.mjs', source: 'env', reason: expect.stringMatching(/Error: boom at import/) }),
      expect.objectContaining({ specifier: 'umbel-provider-missing', source: 'env', reason: expect.stringMatching(/not installed \(looked from /) }),
    ]);
    const text = await umbel(['providers'], { env });
    expect(text.stdout).toMatch(/cannot load provider package '\.\/throws\.mjs' \(from UMBEL_PROVIDERS\): importing .* failed: Error: boom at import/);

    const doctor = await umbel(['doctor', '--json', '--provider', 'beta'], { env });
    expect(doctor.code).toBe(1);
    expect(JSON.parse(doctor.stdout).unloaded).toEqual([expect.objectContaining({ package: "'./throws.mjs' (UMBEL_PROVIDERS)" }), expect.anything()]);

    const spawn = await umbel(['spawn', 'w1', '--provider', 'gamma'], { env });
    expect(spawn.code).toBe(2);
    expect(spawn.stderr).toMatch(/unknown provider 'gamma'.*'\.\/throws\.mjs' \(UMBEL_PROVIDERS\): importing .* failed: Error: boom at import/);
  });

  it('-p --output-format json prints a result object for a run that fails before an outcome, even before it has an engine', async () => {
    const path = join(scratch, 'broken-p.json');
    await writeFile(path, '{"providers": 7}');
    for (const env of [{ UMBEL_PROVIDERS: './throws.mjs' }, { UMBEL_CONFIG: path }]) {
      for (const argv of [
        ['-p', 'hello', '--provider', 'gamma', '--output-format', 'json'],
        ['--output-format', 'json', '-p', 'hello', '--name', 'a', '--resume', 'b'],
      ]) {
        const { code, stdout } = await umbel(argv, { env });
        expect(code, argv.join(' ')).toBe(2);
        const result = JSON.parse(stdout);
        expect(result).toMatchObject({ type: 'result', is_error: true, umbel: { reason: 'error', exit_code: 2 } });
      }
    }
  });

  it('a broken config file: exit 2 naming the file', async () => {
    const path = join(scratch, 'broken.json');
    await writeFile(path, '{"providers": "umbel-provider-alpha"}');
    const { code, stderr } = await umbel(['ls'], { env: { UMBEL_CONFIG: path } });
    expect(code).toBe(2);
    expect(stderr).toContain(`umbel config ${path}: invalid: providers:`);
  });
});
