/** spawn `sandbox` on the memory substrate: the launch wrapped in srt, its settings file, status, and the refusal before anything is made. */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUmbel } from '../engine/engine.js';
import { UmbelError, UmbelErrorCode } from '../contract/errors.js';
import { errorExitCode } from '../contract/exit-codes.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';
import type { Umbel } from '../contract/umbel.js';
import { findSrtCli, requireSandbox } from './availability.js';

const SECRET = 'sk-sandbox-secret-value-1234';
let root: string;
let home: string;
let cwd: string;
let substrate: MemorySubstrate;
let umbel: Umbel;
let bin: string;

/** A PATH of its own: bwrap and socat (stand-ins) unless left out. */
function fakePath(without: string[] = []): string {
  const dir = join(root, `bin-${without.join('-') || 'all'}`);
  mkdirSync(dir, { recursive: true });
  for (const tool of ['bwrap', 'socat'].filter((t) => !without.includes(t))) if (!existsSync(join(dir, tool))) symlinkSync('/bin/true', join(dir, tool));
  return dir;
}

function engine(pathValue: string): Umbel {
  return createUmbel({ substrate, providers: [createMockProvider()], home, env: { PATH: pathValue, HOME: join(root, 'user'), MOCK_TOKEN: SECRET } });
}

beforeEach(async () => {
  root = await realpath(mkdtempSync(join(tmpdir(), 'umbel-sbx-')));
  home = join(root, 'state');
  cwd = join(root, 'project');
  mkdirSync(cwd);
  substrate = createMemorySubstrate();
  bin = fakePath();
  // the mock CLI and the hook sink need the machine's tools
  umbel = engine(`${bin}:${process.env.PATH}`);
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  rmSync(root, { recursive: true, force: true });
});

describe('spawn with sandbox', () => {
  it('wraps the launch in srt with a private settings file holding the policy and no env value', async () => {
    const status = await umbel.spawn({ name: 'w1', provider: 'mock', cwd, sandbox: true, env: { MOCK_TOKEN: { fromEnv: 'MOCK_TOKEN' } } });
    const launch = substrate.launches.at(-1);
    const settings = join(home, 'workers', 'w1', 'sandbox.json');
    expect(launch?.argv.slice(0, 5)).toEqual([process.execPath, findSrtCli(), '--settings', settings, '--']);
    expect(launch?.argv.join(' ')).not.toContain(SECRET);
    expect(statSync(settings).mode & 0o777).toBe(0o600);
    const text = readFileSync(settings, 'utf8');
    expect(text).not.toContain(SECRET);
    const policy = JSON.parse(text) as { filesystem: { allowWrite: string[]; denyRead: string[] }; network: { allowedDomains: string[] } };
    expect(policy.filesystem.allowWrite).toContain(cwd);
    expect(policy.filesystem.denyRead).toContain(join(root, 'user', '.ssh'));
    expect(policy.filesystem.denyRead).toContain(home);
    expect(policy.network.allowedDomains).toEqual([]);
    // confined: the worker gets its private temp dir and IS_SANDBOX=1
    expect(launch?.env.TMPDIR).toBe(join(home, 'workers', 'w1', 'tmp'));
    expect(launch?.env.IS_SANDBOX).toBe('1');
    expect(status.sandbox?.enabled).toBe(true);
    expect((await umbel.status({ name: 'w1' })).sandbox?.write).toContain(cwd);
  });

  it('records the widenings and shows them in status', async () => {
    await umbel.spawn({ name: 'w2', provider: 'mock', cwd, sandbox: { write: ['/data/out'], allow: ['registry.npmjs.org'], read: ['~/.npmrc'] } });
    const s = await umbel.status({ name: 'w2' });
    expect(s.sandbox?.write).toContain('/data/out');
    expect(s.sandbox?.network).toEqual(['registry.npmjs.org']);
    expect(s.sandbox?.widened).toEqual({ write: ['/data/out'], read: [join(root, 'user', '.npmrc')], allow: ['registry.npmjs.org'] });
  });

  it('a loopback host in its network (a local mock or gateway) is reached through srt’s proxy: NO_PROXY is unset for the CLI', async () => {
    await umbel.spawn({ name: 'w5', provider: 'mock', cwd, sandbox: { allow: ['127.0.0.1:4000'] } });
    const settings = join(home, 'workers', 'w5', 'sandbox.json');
    expect(substrate.launches.at(-1)?.argv.slice(0, 10)).toEqual([
      process.execPath,
      findSrtCli(),
      '--settings',
      settings,
      '--',
      'env',
      '-u',
      'NO_PROXY',
      '-u',
      'no_proxy',
    ]);
    // no loopback host: srt's NO_PROXY stands (the sandbox's own loopback is reached directly)
    await umbel.spawn({ name: 'w6', provider: 'mock', cwd, sandbox: { allow: ['registry.npmjs.org'] } });
    expect(substrate.launches.at(-1)?.argv).not.toContain('NO_PROXY');
  });

  it('a worker without sandbox is launched as before', async () => {
    const status = await umbel.spawn({ name: 'w3', provider: 'mock', cwd });
    expect(substrate.launches.at(-1)?.argv).not.toContain('--settings');
    expect(status.sandbox).toBeUndefined();
    expect(existsSync(join(home, 'workers', 'w3', 'sandbox.json'))).toBe(false);
  });

  for (const missing of ['bwrap', 'socat']) {
    it(`without ${missing} it is refused (exit 116, the install hint) before anything is created`, async () => {
      if (process.platform !== 'linux') return;
      const refused = engine(fakePath([missing]));
      const error = await refused.spawn({ name: 'w4', provider: 'mock', cwd, sandbox: true }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(UmbelError.isInstance(error) && error.code).toBe(UmbelErrorCode.SandboxUnavailable);
      expect(errorExitCode(error)).toBe(116);
      expect((error as UmbelError).message).toContain(missing);
      expect((error as UmbelError).hint).toContain('apt-get install bubblewrap socat');
      expect(substrate.launches).toHaveLength(0);
      expect(existsSync(join(home, 'workers'))).toBe(false);
    });
  }
});

describe('requireSandbox', () => {
  const facts = { platform: 'linux' as const, isRoot: false, readSysctl: () => undefined, srtCli: () => '/x/srt' };
  it('refuses an unsupported OS, turned-off user namespaces and a missing runtime', () => {
    const path = { PATH: fakePath() };
    expect(requireSandbox(path, facts)).toBe('/x/srt');
    expect(() => requireSandbox(path, { ...facts, platform: 'win32' })).toThrow(/win32 is not supported/);
    expect(() => requireSandbox(path, { ...facts, readSysctl: (p) => (p.endsWith('max_user_namespaces') ? '0' : undefined) })).toThrow(/user namespaces/);
    expect(requireSandbox(path, { ...facts, isRoot: true, readSysctl: () => '0' })).toBe('/x/srt');
    expect(() => requireSandbox(path, { ...facts, srtCli: () => undefined })).toThrow(/sandbox-runtime is not installed/);
  });
});
