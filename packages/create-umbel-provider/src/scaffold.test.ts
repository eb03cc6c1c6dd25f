/**
 * The generated package as its author gets it: generated into a temp folder, its own `npm test`
 * (the conformance suite replaying the template's recording, and its provider tests), then
 * `npm pack`, and the tarball loaded into this repository's built `umbel providers` through
 * UMBEL_PROVIDERS. Offline: the generated package's dependencies are this repository's packages
 * and tools, linked into a node_modules above it (no registry lookups). Needs `pnpm build`.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { linkRepoDependencies, REPO_ROOT as root } from '../scripts/repo-deps.mjs';
import { runCli } from './cli.js';

const run = promisify(execFile);
const NAME = 'umbel-provider-acme';
let work: string;
let pkg: string;

/** This process's env without the vitest worker's own variables (the generated package runs its own vitest). */
function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST') && !['NODE_ENV', 'TEST', 'FORCE_COLOR'].includes(key));
  return { ...(Object.fromEntries(env) as Record<string, string>), NO_COLOR: '1', npm_config_update_notifier: 'false', npm_config_fund: 'false', ...extra };
}

beforeAll(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), 'create-umbel-provider-e2e-')));
  await linkRepoDependencies(work);
  const created = await runCli([NAME], work);
  expect(created.code, created.stderr).toBe(0);
  pkg = join(work, NAME);
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

it('passes its own tests as generated (npm test: the conformance suite and the provider tests)', async () => {
  const { stdout } = await run('npm', ['test', '--', '--reporter=verbose'], { cwd: pkg, env: cleanEnv({ CI: '1' }), maxBuffer: 16 * 1024 * 1024 });
  expect(stdout).toMatch(/Test Files +2 passed \(2\)/);
  // the behavioural suite ran, replaying the template's recording of the demo CLI
  for (const name of [
    'spawn reaches ready',
    'a permission request is needs-input (126)',
    'an API error is provider-error (122)',
    'a sign-in screen is refused at spawn',
  ])
    expect(stdout).toContain(name);
  const typecheck = await run('npm', ['run', 'typecheck'], { cwd: pkg, env: cleanEnv() });
  expect(typecheck.stderr).not.toContain('error');
});

it('packs, and umbel providers loads the tarball through UMBEL_PROVIDERS', async () => {
  const packed = await run('npm', ['pack', '--pack-destination', work], { cwd: pkg, env: cleanEnv(), maxBuffer: 16 * 1024 * 1024 });
  const tarball = join(work, packed.stdout.trim().split('\n').at(-1) as string);
  // installed as npm would: the tarball's package/ as node_modules/NAME of a project
  const project = join(work, 'project');
  const installed = join(project, 'node_modules', NAME);
  await mkdir(installed, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  // its peer @umbel/provider resolves from the node_modules above (linkRepoDependencies)
  const listed = await run(process.execPath, [join(root, 'packages', 'umbel', 'bin', 'umbel.js'), 'providers', '--json'], {
    cwd: project,
    env: cleanEnv({ HOME: join(work, 'home'), UMBEL_HOME: join(work, 'state'), XDG_CONFIG_HOME: join(work, 'config'), UMBEL_PROVIDERS: NAME }),
  });
  const acme = JSON.parse(listed.stdout).providers.find((p: { id: string }) => p.id === 'acme');
  expect(acme).toMatchObject({
    source: 'env',
    specifier: NAME,
    packageName: NAME,
    packageVersion: '0.1.0',
    module: join(installed, 'dist', 'index.js'),
    binary: { status: 'found', path: join(installed, 'bin', 'acme-agent.js'), version: 'acme-agent 0.1.0' },
    verifiedVersions: ['0.1.0'],
  });
  expect(dirname(acme.module)).toBe(join(installed, 'dist'));
});
