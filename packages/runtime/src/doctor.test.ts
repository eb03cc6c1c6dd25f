/**
 * `doctor` on the fake CLIs of test-fixtures, through the default engine (real tmux): healthy,
 * binary missing, signed out, a session hook that never fires, a payload without a transcript path,
 * a newer unverified version. Each run must leave no tmux server, process or temp dir behind.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { DoctorCheck, DoctorProvider, DoctorReport } from '@umbel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexMockConfig } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { createDefaultUmbel } from './engine.js';

const FIXTURES = resolve(import.meta.dirname, '../../../test-fixtures/bin');
let root: string;
let env: Record<string, string>;
let temp: string;
let config: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'umbel-doctor-test-')));
  const bin = join(root, 'bin');
  config = join(root, 'claude-config');
  temp = join(root, 'tmp');
  await Promise.all([mkdir(bin), mkdir(config), mkdir(temp)]);
  // PATH: node and tmux only (no agent CLI), then the system dirs the hook sink needs.
  await symlink(process.execPath, join(bin, 'node'));
  await symlink(execFileSync('sh', ['-c', 'command -v tmux'], { encoding: 'utf8' }).trim(), join(bin, 'tmux'));
  await writeFile(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }));
  env = {
    PATH: `${bin}:/usr/bin:/bin`,
    HOME: root,
    LANG: 'C.UTF-8',
    UMBEL_HOME: join(root, 'state'),
    TMPDIR: temp,
    CLAUDE_CONFIG_DIR: config,
    UMBEL_CLAUDE_BIN: join(FIXTURES, 'claude'),
    ...(process.env.TMUX_TMPDIR ? { TMUX_TMPDIR: process.env.TMUX_TMPDIR } : {}),
  };
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function doctor(extra: Record<string, string> = {}, options: Parameters<Awaited<ReturnType<typeof createDefaultUmbel>>['doctor']>[0] = {}) {
  const engine = await createDefaultUmbel({ env: { ...env, ...extra }, cwd: root });
  const report = await engine.doctor({ startupTimeout: '20s', ...options });
  // nothing left: no scratch dir under TMPDIR, no fake claude still running for this root
  expect(await readdir(temp)).toEqual([]);
  expect(processesWith(temp)).toEqual([]);
  // the scratch session's transcript (and its project folder) are gone from the CLI's config dir
  expect(await readdir(join(config, 'projects')).catch(() => [])).toEqual([]);
  return report;
}

/** Processes whose command line mentions `text` (the scratch dirs live under it), as `pid ppid args` (a failure names them). */
function processesWith(text: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes(text) && !line.includes('ps -eo'))
    .map((line) => line.trim());
}

const only = (report: DoctorReport, id = 'claude'): DoctorProvider => {
  const found = report.providers.find((p) => p.provider === id);
  if (!found) throw new Error(`no ${id} in ${JSON.stringify(report)}`);
  return found;
};
const status = (p: DoctorProvider) => Object.fromEntries(p.checks.map((c) => [c.id, c.status]));
const item = (p: DoctorProvider, id: DoctorCheck['id']) => p.checks.find((c) => c.id === id);

describe('doctor on the fake claude', () => {
  it('healthy: every check passes and only the providers whose binary is found are checked', async () => {
    const report = await doctor();
    expect(report.providers.map((p) => p.provider)).toEqual(['claude']);
    const claude = only(report);
    expect(status(claude)).toEqual({
      binary: 'pass',
      version: 'pass',
      login: 'pass',
      billing: 'pass',
      endpoint: 'pass',
      launch: 'pass',
      'session-hook': 'pass',
      payload: 'pass',
    });
    expect(report.ok).toBe(true);
    expect(claude.binary).toBe(join(FIXTURES, 'claude'));
    expect(claude.version).toBe('2.1.328 (Claude Code)');
    expect(item(claude, 'billing')?.detail).toMatch(/^subscription/);
    expect(item(claude, 'payload')?.detail).toMatch(/transcript .*\.jsonl$/);
  });

  it('an API key and a base URL: billing api and the custom endpoint, never the key', async () => {
    const caller = { ANTHROPIC_API_KEY: 'sk-secret-value', ANTHROPIC_BASE_URL: 'http://user:pw@127.0.0.1:9/v1' };
    // an API key in umbel's env is never inherited: the worker bills the login, and doctor says how to pass it
    const inherited = only(await doctor(caller, { providers: ['claude'] }));
    expect(item(inherited, 'billing')?.detail).toMatch(
      /^subscription: .*ANTHROPIC_API_KEY is set in your environment but never inherited; --env ANTHROPIC_API_KEY/,
    );
    const claude = only(await doctor(caller, { providers: ['claude'], env: { ANTHROPIC_API_KEY: { fromEnv: 'ANTHROPIC_API_KEY' } } }));
    expect(item(claude, 'billing')?.detail).toMatch(/^api: ANTHROPIC_API_KEY/);
    expect(item(claude, 'endpoint')?.detail).toBe('custom: ANTHROPIC_BASE_URL=http://127.0.0.1:9/v1');
    expect(JSON.stringify(claude)).not.toMatch(/sk-secret-value|pw@/);
  });

  it('binary missing: a failed binary check with the install hint, nothing launched', async () => {
    const report = await doctor({ UMBEL_CLAUDE_BIN: join(root, 'no-such-claude') }, { providers: ['claude'] });
    const claude = only(report);
    expect(report.ok).toBe(false);
    expect(item(claude, 'binary')).toMatchObject({ status: 'fail', hint: expect.stringContaining('UMBEL_CLAUDE_BIN') });
    expect(item(claude, 'launch')?.status).toBe('skip');
  });

  it('no binary found for any provider and none asked for: every provider is reported failing', async () => {
    const report = await doctor({ UMBEL_CLAUDE_BIN: '' });
    expect(report.ok).toBe(false);
    expect(report.providers.map((p) => p.provider)).toEqual(['claude', 'codex', 'gemini', 'opencode', 'copilot', 'qwen']);
  });

  it('signed out: login fails with a hint, the later checks are skipped', async () => {
    const claude = only(await doctor({}, { env: { FAKE_CLAUDE_SIGN_IN: '1' } }));
    expect(item(claude, 'login')).toMatchObject({ status: 'fail', hint: expect.stringContaining('sign in') });
    expect(status(claude)).toMatchObject({ launch: 'skip', 'session-hook': 'skip', payload: 'skip' });
  });

  it('a session hook that never fires fails the hook check', async () => {
    const report = await doctor({}, { env: { FAKE_CLAUDE_SKIP_HOOKS: 'SessionStart' }, startupTimeout: '8s' });
    const claude = only(report);
    expect(report.ok).toBe(false);
    expect(item(claude, 'session-hook')).toMatchObject({ status: 'fail', hint: expect.stringContaining('hooks') });
    expect(item(claude, 'launch')?.status).toBe('pass');
  });

  it('a session payload without a transcript path fails the payload check', async () => {
    const claude = only(await doctor({}, { env: { FAKE_CLAUDE_DROP_PAYLOAD_FIELDS: 'transcript_path' } }));
    expect(item(claude, 'session-hook')?.status).toBe('pass');
    expect(item(claude, 'payload')).toMatchObject({ status: 'fail', detail: expect.stringContaining('transcript path') });
  });

  it('a newer, unverified version passes and says so; an older one fails', async () => {
    const newer = only(await doctor({ FAKE_CLAUDE_VERSION: '2.1.999' }));
    expect(newer.ok).toBe(true);
    expect(item(newer, 'version')).toMatchObject({ status: 'pass', detail: expect.stringContaining('newer than verified') });
    const older = only(await doctor({ FAKE_CLAUDE_VERSION: '2.0.1' }));
    expect(item(older, 'version')).toMatchObject({ status: 'fail', hint: expect.stringContaining('2.1.328') });
  });

  it('--turn: one turn end to end, the answer read from the transcript', async () => {
    const claude = only(await doctor({}, { turn: true }));
    expect(item(claude, 'turn')).toMatchObject({ status: 'pass', detail: expect.stringContaining('MOCK-REPLY: Reply with the single word: pong') });
  });

  it("forgets the scratch session in the CLI's own state: no trust entry, history line or session dir of it is left", async () => {
    await writeFile(join(config, 'history.jsonl'), `${JSON.stringify({ display: 'mine', project: '/srv/mine', sessionId: 'u1' })}\n`);
    const claude = only(await doctor({}, { turn: true }));
    expect(claude.ok).toBe(true);
    const state = JSON.parse(await readFile(join(config, '.claude.json'), 'utf8'));
    expect(Object.keys(state.projects ?? {}).filter((p) => p.includes('umbel-doctor-'))).toEqual([]);
    expect(state.hasCompletedOnboarding).toBe(true);
    expect(await readFile(join(config, 'history.jsonl'), 'utf8')).toBe(`${JSON.stringify({ display: 'mine', project: '/srv/mine', sessionId: 'u1' })}\n`);
    expect(await readdir(join(config, 'session-env')).catch(() => [])).toEqual([]);
  });

  it('cancelled mid-startup (Ctrl-C): rejects aborted and leaves nothing behind', async () => {
    const engine = await createDefaultUmbel({ env, cwd: root });
    const controller = new AbortController();
    const running = engine.doctor({ env: { FAKE_CLAUDE_SKIP_HOOKS: 'SessionStart' }, startupTimeout: '60s' }, { signal: controller.signal });
    for (let i = 0; i < 600 && processesWith(temp).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(processesWith(temp).length).toBeGreaterThan(0);
    controller.abort();
    await expect(running).rejects.toMatchObject({ name: 'AbortedError' });
    expect(await readdir(temp)).toEqual([]);
    expect(processesWith(temp)).toEqual([]);
  });

  it('an unknown provider is bad input', async () => {
    const engine = await createDefaultUmbel({ env, cwd: root });
    await expect(engine.doctor({ providers: ['nope'] })).rejects.toMatchObject({ name: 'ProviderUnknownError' });
  });
});

describe('doctor on the fake codex (its session hook fires at the first prompt)', () => {
  let codexEnv: Record<string, string>;
  beforeAll(async () => {
    const codexHome = join(root, 'codex-home');
    await mkdir(codexHome);
    await writeFile(
      join(codexHome, 'config.toml'),
      codexMockConfig({ baseUrl: 'http://127.0.0.1:9/v1', envKey: 'MOCK_API_KEY', tail: ['[tui]', 'screen_reader_detection_done = true', ''] }),
    );
    codexEnv = { UMBEL_CODEX_BIN: join(FIXTURES, 'codex'), CODEX_HOME: codexHome, MOCK_API_KEY: 'sk-fake-codex' };
  });

  it('without --turn the session hook is not checked (said, not failed); with --turn it is, after the turn', async () => {
    const plain = only(await doctor(codexEnv, { providers: ['codex'], env: { MOCK_API_KEY: { fromEnv: 'MOCK_API_KEY' } } }), 'codex');
    expect(plain.ok).toBe(true);
    expect(item(plain, 'session-hook')).toMatchObject({ status: 'skip', detail: expect.stringContaining('--turn') });
    const turned = only(await doctor(codexEnv, { providers: ['codex'], turn: true, env: { MOCK_API_KEY: { fromEnv: 'MOCK_API_KEY' } } }), 'codex');
    expect(status(turned)).toMatchObject({ 'session-hook': 'pass', payload: 'pass', turn: 'pass' });
    expect(turned.ok).toBe(true);
  });
});
