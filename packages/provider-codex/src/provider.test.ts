import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HookEvent, HookKind, ProviderV1LaunchOptions } from '@umbel/core';
import { createUmbel } from '@umbel/core';
import { createMemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CODEX_HOOK_EVENTS,
  codexBilling,
  codexEndpoint,
  codexTempDir,
  codexHookHash,
  codexHooks,
  configuredEnvKey,
  readTomlScalar,
  renderManagedConfig,
} from './codex-home.js';
import { CODEX_INHERIT_ENV } from './provider.js';
import { codex, createCodex } from './provider.js';

const parseCodexEvent = (event: HookEvent) => codex.doParseEvent(event);
const prepareCodexPrompt = (prompt: string) => codex.doPreparePrompt?.(prompt);
const detectCodexSignIn = (screen: string) => codex.doDetectSignIn?.(screen);
const detectCodexStartup = (screen: string) => codex.doDetectStartup({ screen, events: [] });
import { VERSION } from './index.js';

describe('package', () => {
  it('exports VERSION equal to its package.json (the CLI bundles this package and reports it)', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(manifest.version);
  });
});

describe('input facts', () => {
  it('presses Enter right after the bracketed paste: no delay on the critical path (codex.md §8; 75/75 sends on the real 0.171.0)', () => {
    expect(codex.input).toEqual({ alwaysPaste: true, confirmTimeoutMs: 3000, maxSubmitRetries: 3, clearKeys: ['C-c'] });
  });
});

const fixture = (name: string) => readFile(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
const hookCommand = (kind: HookKind) => `'/state/hooks/umbel-hook' ${kind}`;
/** The hooks the kit installs for codex (one per event, its command). */
const installed = Object.entries(CODEX_HOOK_EVENTS).map(([event, kind]) => ({ event, kind, command: hookCommand(kind) }));

describe('hook trust hash (codex.md §6.2)', () => {
  it('matches the hash codex itself wrote after "Trust all" (real 0.169.0)', async () => {
    const written = await fixture('config-written-by-codex.toml');
    const expected = readTomlScalar(written, ['hooks', 'state', '/tmp/h5-real/home3/config.toml:stop:0:0'], 'trusted_hash');
    expect(codexHookHash('stop', { command: '/bin/true' })).toBe(expected);
  });

  it('uses the clamped 3 s timeout for interrupt and session_end', () => {
    expect(codexHookHash('interrupt', { command: 'x', timeout: 30 })).toBe(codexHookHash('interrupt', { command: 'x', timeout: 3 }));
    expect(codexHookHash('stop', { command: 'x', timeout: 30 })).not.toBe(codexHookHash('stop', { command: 'x', timeout: 3 }));
  });

  it('keys each installed hook by <home>/hooks.json:<event>:0:0', () => {
    const hooks = codexHooks('/h', installed);
    expect(hooks.map((h) => h.stateKey)).toContain('/h/hooks.json:stop:0:0');
    expect(hooks.find((h) => h.event === 'Stop')?.command).toBe(`'/state/hooks/umbel-hook' stop`);
    expect(hooks.find((h) => h.event === 'Interrupt')?.timeout).toBe(3);
  });
});

describe('managed config.toml', () => {
  const hooks = codexHooks('/m/home', installed);
  const opts = { home: '/m/home', trust: ['/work/a b'], hooks, userHome: '/u/.codex' };

  it('keeps the user config and adds the managed keys', () => {
    const user = '# mine\nmodel = "gpt-x"\n\n[features]\ndaemon_auto_start = true\nfoo = 1\n\n[tui]\ntheme = "dark"\n';
    const out = renderManagedConfig(user, opts);
    expect(out).toContain('# mine');
    expect(readTomlScalar(out, [], 'model')).toBe('gpt-x');
    expect(readTomlScalar(out, [], 'check_for_update_on_startup')).toBe('false');
    expect(readTomlScalar(out, ['features'], 'daemon_auto_start')).toBe('false');
    expect(readTomlScalar(out, ['features'], 'unbounded_connection_retries')).toBe('false');
    expect(readTomlScalar(out, ['features'], 'foo')).toBe('1');
    expect(readTomlScalar(out, ['projects', '/work/a b'], 'trust_level')).toBe('trusted');
    for (const h of hooks) expect(readTomlScalar(out, ['hooks', 'state', h.stateKey], 'trusted_hash')).toBe(h.trustedHash);
    expect(out.match(/^\[features\]$/gm)).toHaveLength(1);
    expect(out.match(/^\[tui\]$/gm)).toHaveLength(1);
  });

  it('hides the "Approaching rate limits" model-switch dialog, also over a user\'s false (ACCOUNT-FACTS §2.2)', () => {
    expect(readTomlScalar(renderManagedConfig('', opts), ['notice'], 'hide_rate_limit_model_nudge')).toBe('true');
    const user = '[notice]\nhide_rate_limit_model_nudge = false\nhide_full_access_warning = true\n';
    const out = renderManagedConfig(user, opts);
    expect(readTomlScalar(out, ['notice'], 'hide_rate_limit_model_nudge')).toBe('true');
    expect(readTomlScalar(out, ['notice'], 'hide_full_access_warning')).toBe('true');
    expect(out.match(/^\[notice\]$/gm)).toHaveLength(1);
  });

  it('is idempotent and adds a second cwd without duplicating tables', () => {
    const once = renderManagedConfig('', opts);
    expect(renderManagedConfig(once, opts)).toBe(once);
    const two = renderManagedConfig(once, { ...opts, trust: ['/work/other'] });
    expect(readTomlScalar(two, ['projects', '/work/a b'], 'trust_level')).toBe('trusted');
    expect(readTomlScalar(two, ['projects', '/work/other'], 'trust_level')).toBe('trusted');
    expect(two.match(/^\[features\]$/gm)).toHaveLength(1);
  });

  it('edits the file codex re-serialised (empty [hooks.state] table, [tui.*] tables)', async () => {
    const written = await fixture('config-written-by-codex.toml');
    const out = renderManagedConfig(written, { ...opts, home: '/tmp/h5-real/home3' });
    expect(out.match(/^\[tui\]$/gm)).toHaveLength(1);
    expect(out.match(/^\[hooks\.state\]$/gm)).toHaveLength(1);
    expect(readTomlScalar(out, ['features'], 'daemon_auto_start')).toBe('false');
  });

  it('sets dotted root keys in place instead of adding a clashing [features] table', () => {
    const out = renderManagedConfig('features.daemon_auto_start = true\n[x]\ny = 1\n', opts);
    expect(out).not.toMatch(/^\[features\]/m);
    expect(out).toMatch(/^features\.daemon_auto_start = false$/m);
    expect(out).toMatch(/^features\.unbounded_connection_retries = false$/m);
  });

  it("carries the user's own config.toml hook trust over to the managed path", () => {
    const user = '[hooks.state."/u/.codex/config.toml:stop:0:0"]\ntrusted_hash = "sha256:abc"\n';
    expect(renderManagedConfig(user, opts)).toContain('[hooks.state."/m/home/config.toml:stop:0:0"]');
  });

  it("keeps the user's text as it is, multi-line values and comments included", () => {
    const user = '# mine\nnotify = [\n  "a", # first\n  "b",\n]\n\n[tui]\nalt = """\nx\n"""\n';
    expect(renderManagedConfig(user, opts).startsWith('# mine\nnotify = [\n  "a", # first\n  "b",\n]\n')).toBe(true);
    expect(renderManagedConfig(user, opts)).toContain('[tui]\nalt = """\nx\n"""\n');
  });

  it('merges into tables the user wrote inline, never adding a second definition (a config codex would refuse)', () => {
    const user = 'notice = { hide_full_access_warning = true }\nprojects = { "/work/a b" = { trust_level = "untrusted" } }\n';
    const out = renderManagedConfig(user, opts);
    expect(readTomlScalar(out, ['notice'], 'hide_full_access_warning')).toBe('true');
    expect(readTomlScalar(out, ['notice'], 'hide_rate_limit_model_nudge')).toBe('true');
    expect(readTomlScalar(out, ['projects', '/work/a b'], 'trust_level')).toBe('trusted');
  });

  it('leaves a config that is not TOML as it is: codex refuses it with its own message, which umbel reports', () => {
    expect(renderManagedConfig('not = toml = here\n', opts)).toBe('not = toml = here\n');
  });

  it('finds the env_key of the selected custom provider', () => {
    expect(configuredEnvKey('model_provider = "mock"\n[model_providers.mock]\nenv_key = "MOCK_API_KEY"\n')).toBe('MOCK_API_KEY');
    expect(configuredEnvKey('[model_providers.mock]\nenv_key = "MOCK_API_KEY"\n')).toBeUndefined();
  });

  it('reads the config as TOML: inline tables, literal strings and escapes included', () => {
    const config = 'model_provider = \'mock\' # mine\n[model_providers]\nmock = { env_key = "MOCK_API_KEY", base_url = "http://h/\\u00761" }\n';
    expect(configuredEnvKey(config)).toBe('MOCK_API_KEY');
    expect(codexEndpoint(config)).toBe('http://h/v1');
    expect(readTomlScalar('a = [1]\nb = 2024-01-02\n', [], 'a')).toBeUndefined();
    expect(readTomlScalar('not = toml = here\n', [], 'not')).toBeUndefined();
  });
});

describe('doBuildLaunch and the shared CODEX_HOME', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'umbel-codex-test-'));
    await mkdir(join(dir, 'bin'));
    await writeFile(join(dir, 'bin', 'codex'), '#!/bin/sh\n', { mode: 0o755 });
    await mkdir(join(dir, 'user', '.codex'), { recursive: true });
    await writeFile(
      join(dir, 'user', '.codex', 'config.toml'),
      'model = "mock-model"\nmodel_provider = "mock"\n\n[model_providers.mock]\nbase_url = "http://127.0.0.1:1/v1"\nenv_key = "MOCK_API_KEY"\n',
    );
    await writeFile(join(dir, 'user', '.codex', 'auth.json'), '{"secret":true}');
    await mkdir(join(dir, 'shared'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const options = (over: Partial<ProviderV1LaunchOptions> = {}): ProviderV1LaunchOptions => ({
    worker: 'w1',
    cwd: '/work/one',
    unattended: false,
    env: {},
    callerEnv: { PATH: `/nonexistent:${join(dir, 'bin')}`, HOME: join(dir, 'user'), TMPDIR: tmpdir(), MOCK_API_KEY: 'sk-mock', OPENAI_API_KEY: 'sk-nope' },
    workerDir: join(dir, 'worker'),
    sharedDir: join(dir, 'shared'),
    sessionId: '00000000-0000-4000-8000-000000000000',
    hookCommand,
    hookSinkPath: '/state/hooks/umbel-hook',
    ...over,
  });

  it('launches the absolute codex from PATH with CODEX_HOME and the provider key, never on argv', async () => {
    const launch = await codex.doBuildLaunch(options({ model: 'm1' }));
    expect(launch.argv).toEqual([join(dir, 'bin', 'codex'), '--model', 'm1']);
    expect(launch.env).toEqual({ CODEX_HOME: join(dir, 'shared', 'home'), MOCK_API_KEY: 'sk-mock', TMPDIR: join(dir, 'worker', 'tmp') });
    expect(launch.argv.join(' ')).not.toContain('sk-mock');
  });

  it('puts a first prompt last, after -- (codex starts on it)', async () => {
    const launch = await codex.doBuildLaunch(options({ model: 'm1', prompt: '-x is text' }));
    expect(launch.argv).toEqual([join(dir, 'bin', 'codex'), '--model', 'm1', '--', '-x is text']);
  });

  it("leaves the provider key to the caller's own --env value, and names the config's base_url as the endpoint", async () => {
    const launch = await codex.doBuildLaunch(options({ env: { MOCK_API_KEY: 'sk-mine' } }));
    expect(launch.env?.MOCK_API_KEY).toBeUndefined(); // the caller's own --env value reaches the worker unchanged
    expect(launch.endpoint).toBe('http://127.0.0.1:1/v1');
  });

  it('gives the worker a private TMPDIR when the managed home is inside its temp dir (codex makes no sandbox helper there)', async () => {
    const launch = await codex.doBuildLaunch(options({ callerEnv: { ...options().callerEnv, TMPDIR: dir } }));
    expect(launch.env?.TMPDIR).toBe(join(dir, 'worker', 'tmp'));
    expect((await stat(join(dir, 'worker', 'tmp'))).mode & 0o777).toBe(0o700);
  });

  it('leaves TMPDIR alone when the managed home is outside the temp dir, or the caller names one', async () => {
    const outside = await codex.doBuildLaunch(options({ callerEnv: { ...options().callerEnv, TMPDIR: join(dir, 'elsewhere') } }));
    expect(outside.env?.TMPDIR).toBeUndefined();
    expect(codexTempDir('/tmpfoo/home', { env: {}, callerEnv: {}, workerDir: '/w' })).toBeUndefined();
    expect(codexTempDir('/tmp/x/home', { env: {}, callerEnv: {}, workerDir: '/w' })).toBe('/w/tmp');
    const named = await codex.doBuildLaunch(options({ env: { TMPDIR: '/mine' } }));
    expect(named.env?.TMPDIR).toBeUndefined(); // the caller's own --env TMPDIR reaches the worker unchanged
  });

  it('prefers UMBEL_CODEX_BIN and maps unattended to the bypass flag', async () => {
    const launch = await codex.doBuildLaunch(options({ unattended: true, callerEnv: { ...options().callerEnv, UMBEL_CODEX_BIN: join(dir, 'bin', 'codex') } }));
    expect(launch.argv).toEqual([join(dir, 'bin', 'codex'), '--dangerously-bypass-approvals-and-sandbox']);
  });

  it('fails with a typed error when codex is not found', async () => {
    await expect(codex.doBuildLaunch(options({ callerEnv: { PATH: '/nonexistent', HOME: join(dir, 'user') } }))).rejects.toMatchObject({
      code: 'UMBEL_SPAWN_FAILED',
    });
  });

  it('writes hooks.json, a config derived from the user one, and links auth.json without copying it', async () => {
    await codex.doBuildLaunch(options());
    const home = join(dir, 'shared', 'home');
    const config = await readFile(join(home, 'config.toml'), 'utf8');
    expect(readTomlScalar(config, [], 'model')).toBe('mock-model');
    expect(readTomlScalar(config, ['projects', '/work/one'], 'trust_level')).toBe('trusted');
    const hooksJson = JSON.parse(await readFile(join(home, 'hooks.json'), 'utf8'));
    expect(hooksJson.hooks.Stop[0].hooks[0]).toEqual({ type: 'command', command: hookCommand('stop'), timeout: 30 });
    expect(await readlink(join(home, 'auth.json'))).toBe(join(dir, 'user', '.codex', 'auth.json'));
    // the user's files are untouched
    expect(await readFile(join(dir, 'user', '.codex', 'config.toml'), 'utf8')).not.toContain('trust_level');
  });

  it('copies the user config only once, and keeps what codex wrote since', async () => {
    await codex.doBuildLaunch(options());
    const path = join(dir, 'shared', 'home', 'config.toml');
    await writeFile(path, `${await readFile(path, 'utf8')}\n[tui]\nscreen_reader_detection_done = true\n`);
    await writeFile(join(dir, 'user', '.codex', 'config.toml'), 'model = "changed"\n');
    await codex.doBuildLaunch(options({ cwd: '/work/two' }));
    const config = await readFile(path, 'utf8');
    expect(readTomlScalar(config, [], 'model')).toBe('mock-model');
    expect(readTomlScalar(config, ['tui'], 'screen_reader_detection_done')).toBe('true');
  });

  it('trusts every cwd when many spawns prepare the shared home at once', async () => {
    const cwds = Array.from({ length: 12 }, (_, i) => `/work/c${i}`);
    await Promise.all(cwds.map((cwd) => createCodex().doBuildLaunch(options({ cwd }))));
    const config = await readFile(join(dir, 'shared', 'home', 'config.toml'), 'utf8');
    for (const cwd of cwds) expect(readTomlScalar(config, ['projects', cwd], 'trust_level')).toBe('trusted');
  });

  it("bills by the managed home's auth.json (the user's, through its link) when the config selects the built-in provider", async () => {
    await writeFile(join(dir, 'user', '.codex', 'config.toml'), 'model = "gpt-x"\n');
    await writeFile(join(dir, 'user', '.codex', 'auth.json'), '{"auth_mode":"chatgpt","tokens":{"id_token":"x"}}');
    expect((await codex.doBuildLaunch(options())).billing).toEqual({ billing: 'subscription', evidence: 'auth.json auth_mode "chatgpt" (ChatGPT login)' });
  });

  it('does not replace an existing auth.json in the managed home', async () => {
    const home = join(dir, 'shared', 'home');
    await mkdir(home, { recursive: true });
    await symlink('/elsewhere/auth.json', join(home, 'auth.json'));
    await codex.doBuildLaunch(options());
    expect(await readlink(join(home, 'auth.json'))).toBe('/elsewhere/auth.json');
  });

  it('takes UMBEL_CODEX_BIN over the settings binary (the one rule)', async () => {
    const launch = await createCodex({ bin: join(dir, 'nowhere', 'codex') }).doBuildLaunch(
      options({ callerEnv: { ...options().callerEnv, UMBEL_CODEX_BIN: join(dir, 'bin', 'codex') } }),
    );
    expect(launch.argv[0]).toBe(join(dir, 'bin', 'codex'));
    await expect(createCodex({ bin: join(dir, 'nowhere', 'codex') }).doBuildLaunch(options())).rejects.toThrow(/from the provider settings/);
  });

  it('resumes with the `resume <id>` subcommand first, its options after (umbel revive; test-fixtures/real/REVIVE-FACTS.md §1)', async () => {
    const id = '019a0000-0000-7000-8000-000000000001';
    const launch = await codex.doBuildLaunch(options({ sessionId: id, resume: { sessionId: id }, model: 'm1', unattended: true }));
    expect(launch.argv).toEqual([join(dir, 'bin', 'codex'), 'resume', id, '--model', 'm1', '--dangerously-bypass-approvals-and-sandbox']);
    expect(launch.sessionId).toBe(id);
    expect(launch.env?.CODEX_HOME).toBe(join(dir, 'shared', 'home')); // the same managed home, where its rollout is
  });

  it('refuses options codex does not have, before any I/O (the engine checks the capabilities)', async () => {
    expect(codex.capabilities).toEqual({
      unattended: true,
      allowedTools: false,
      appendSystemPrompt: false,
      permissionModes: ['default', 'on-request', 'never', 'bypassPermissions'],
      model: true,
      resume: true,
      launchPrompt: true,
    });
    const substrate = createMemorySubstrate();
    const umbel = createUmbel({ substrate, providers: [codex], home: join(dir, 'state'), env: { PATH: '/nonexistent' } });
    const spawn = (extra: Record<string, unknown>) => umbel.spawn({ name: 'o', provider: 'codex', cwd: dir, ...extra }).catch((e: unknown) => e);
    expect(await spawn({ allowedTools: 'Bash' })).toMatchObject({ code: 'UMBEL_OPTION_UNSUPPORTED', message: expect.stringContaining('--allowed-tools') });
    expect(await spawn({ appendSystemPrompt: 'x' })).toMatchObject({ code: 'UMBEL_OPTION_UNSUPPORTED' });
    expect(await spawn({ permissionMode: 'acceptEdits' })).toMatchObject({ code: 'UMBEL_OPTION_UNSUPPORTED', message: expect.stringContaining('on-request') });
    expect(substrate.launches).toHaveLength(0);
    // an accepted mode passes the checks (and fails later: no codex on this PATH)
    expect(await spawn({ permissionMode: 'never' })).toMatchObject({ code: 'UMBEL_SPAWN_FAILED', message: expect.stringContaining('not found on PATH') });
  });
});

describe('env', () => {
  it('names variables one by one: no prefixes, no wildcards, nothing codex ignores', () => {
    for (const name of CODEX_INHERIT_ENV) expect(name).toMatch(/^[A-Z][A-Z0-9_]*[A-Z0-9]$/);
    expect(CODEX_INHERIT_ENV.some((n) => n.endsWith('_') || n.includes('*'))).toBe(false);
    expect(codex.inheritEnv).not.toContain('OPENAI_BASE_URL');
    expect(codex.inheritEnv).not.toContain('CODEX_HOME');
  });

  it('never inherits a variable that bills the OpenAI API (issue 17; ACCOUNT-FACTS §2.1)', () => {
    expect(codex.billing?.apiEnv).toEqual(['CODEX_API_KEY', 'OPENAI_API_KEY']);
    for (const name of codex.billing?.apiEnv ?? []) expect(codex.inheritEnv).not.toContain(name);
  });
});

describe('billing (ACCOUNT-FACTS §2.1)', () => {
  const custom = 'model_provider = "mock"\n\n[model_providers.mock]\nbase_url = "http://u:p@127.0.0.1:9/v1?k=1"\nenv_key = "MOCK_API_KEY"\n';
  it.each([
    [custom, undefined, 'api', 'model_provider "mock" (env_key MOCK_API_KEY): a custom provider bills its own API'],
    ['', '{"auth_mode":"chatgpt","tokens":{"id_token":"x"}}', 'subscription', 'auth.json auth_mode "chatgpt" (ChatGPT login)'],
    ['model_provider = "openai"\n', '{"auth_mode":"apikey","OPENAI_API_KEY":"sk"}', 'api', 'auth.json auth_mode "apikey" (codex login --with-api-key)'],
    ['', '{"tokens":{"id_token":"x"}}', 'subscription', 'auth.json auth_mode "chatgpt" (ChatGPT login)'],
    ['', undefined, 'unknown', 'no auth.json'],
    ['', 'not json', 'unknown', 'auth.json names no auth mode'],
  ])('config %j, auth.json %j → %s', (config, auth, billing, evidence) => {
    expect(codexBilling(config, auth)).toEqual({ billing, evidence });
  });

  it("the endpoint is the custom provider's base_url, else openai_base_url", () => {
    expect(codexEndpoint(custom)).toBe('http://u:p@127.0.0.1:9/v1?k=1');
    expect(codexEndpoint('openai_base_url = "http://127.0.0.1:8/v1"\n')).toBe('http://127.0.0.1:8/v1');
    expect(codexEndpoint('')).toBeUndefined();
  });
});

describe('startup screens (captured from the real 0.169.0)', () => {
  it('is ready only when the status line is drawn', async () => {
    expect(detectCodexStartup(await fixture('screen-ready.txt'))).toEqual({ state: 'ready' });
    expect(detectCodexStartup(await fixture('screen-composer-only.txt'))).toEqual({ state: 'starting' });
  });

  it('answers the trust dialog (drawn under a composer) with Enter', async () => {
    expect(detectCodexStartup(await fixture('screen-trust.txt'))).toEqual({ state: 'dialog', id: 'trust', keys: ['Enter'] });
  });

  it('answers hooks review with "Trust all and continue"', async () => {
    expect(detectCodexStartup(await fixture('screen-hooks-review.txt'))).toEqual({ state: 'dialog', id: 'hooks-review', keys: ['Down', 'Enter'] });
  });

  it('skips an update', () => {
    expect(detectCodexStartup('  ✨ Update available! 0.169.0 -> 0.170.0\n› 1. Update now\n  2. Skip')).toMatchObject({
      id: 'update',
      keys: ['Down', 'Enter'],
    });
  });

  it('recognises the sign-in screen (0.169.0 and the older wording)', async () => {
    const screen = await fixture('screen-sign-in.txt');
    expect(detectCodexStartup(screen)).toEqual({ state: 'sign-in', line: "Welcome to Codex, OpenAI's command-line coding agent" });
    expect(detectCodexSignIn('  or connect an API key for usage-based billing')).toBe('or connect an API key for usage-based billing');
    expect(detectCodexSignIn(await fixture('screen-ready.txt'))).toBeUndefined();
  });

  it('reports a config error as fatal', () => {
    expect(detectCodexStartup('Error: loading config.toml: /h/config.toml:22:2: duplicate key')).toMatchObject({ state: 'fatal' });
  });

  it('does not take an approval prompt for readiness', async () => {
    expect(detectCodexStartup(await fixture('screen-approval.txt')).state).toBe('starting');
  });
});

describe('prompts and events', () => {
  it('protects / and ! prompts with a leading space and normalises CR', () => {
    expect(prepareCodexPrompt('/review this')).toBe(' /review this');
    expect(prepareCodexPrompt('!ls')).toBe(' !ls');
    expect(prepareCodexPrompt('a\r\nb\rc')).toBe('a\nb\nc');
    expect(prepareCodexPrompt('plain')).toBe('plain');
  });

  const ev = (kind: string, payload: unknown) => ({ kind, at: 0n, payload });
  const base = { session_id: 's1', transcript_path: '/h/sessions/r.jsonl', cwd: '/w', model: 'm', permission_mode: 'default' };

  it('takes the turn key from UserPromptSubmit and Stop', () => {
    expect(parseCodexEvent(ev('prompt', { ...base, turn_id: 't1', hook_event_name: 'UserPromptSubmit', prompt: 'x' }))).toEqual({
      sessionId: 's1',
      transcriptPath: '/h/sessions/r.jsonl',
      turnKey: 't1',
    });
    expect(
      parseCodexEvent(ev('stop', { ...base, turn_id: 't1', hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'hi' })),
    ).toMatchObject({ turnKey: 't1', lastMessage: 'hi' });
  });

  it("a subagent's hook (agent_id; 0.171.0 fires them into the worker's sink, BACKGROUND-FACTS.md §9) names the parent's session, never the agent's rollout as the worker's transcript; its prompt is self-started (it confirms no turn umbel sent)", () => {
    const child = { ...base, transcript_path: '/h/sessions/rollout-child.jsonl', agent_id: 'a1', agent_type: 'default', turn_id: 'ct' };
    const prompt = parseCodexEvent(ev('prompt', { ...child, hook_event_name: 'UserPromptSubmit', prompt: 'DELAY 20000 TOOL echo child-tool' }));
    expect(prompt).toEqual({ sessionId: 's1', turnKey: 'ct', selfStarted: true });
    const tool = parseCodexEvent(ev('tool', { ...child, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'echo child-tool' } }));
    expect(tool).not.toHaveProperty('transcriptPath');
    expect(tool).toMatchObject({ activity: 'Bash: echo child-tool' });
  });

  it('reads PermissionRequest as needs-input with the tool and reason', () => {
    expect(
      parseCodexEvent(
        ev('permission', {
          ...base,
          turn_id: 't',
          hook_event_name: 'PermissionRequest',
          tool_name: 'Bash',
          tool_input: { command: 'echo x', description: 'Mock wants to run: echo x' },
        }),
      ).needsInput,
    ).toEqual({
      kind: 'permission',
      tool: 'Bash',
      message: 'Mock wants to run: echo x',
    });
  });

  it('ignores the title-thread notify and keeps the real one', () => {
    expect(
      parseCodexEvent(
        ev('notify', {
          type: 'agent-turn-complete',
          'thread-id': 'x',
          'input-messages': ['Generate a concise, single-line task title of at most 36 characters …'],
          'last-assistant-message': '{"title":"t"}',
        }),
      ),
    ).toEqual({});
    expect(
      parseCodexEvent(
        ev('notify', { type: 'agent-turn-complete', 'thread-id': 's1', 'turn-id': 't1', 'input-messages': ['hi'], 'last-assistant-message': 'yo' }),
      ),
    ).toEqual({ sessionId: 's1', turnKey: 't1', lastMessage: 'yo' });
  });

  it('survives a non-JSON payload', () => {
    expect(parseCodexEvent(ev('stop', undefined))).toEqual({});
  });
});

describe('the permission prompt on screen (doDetectInputPrompt)', () => {
  it('is seen on the approval screen, not on the ready, composer or working screens', async () => {
    expect(codex.doDetectInputPrompt?.(await fixture('screen-approval.txt'))).toBe(true);
    expect(codex.doDetectInputPrompt?.(await fixture('screen-ready.txt'))).toBe(false);
    expect(codex.doDetectInputPrompt?.(await fixture('screen-composer-only.txt'))).toBe(false);
    expect(codex.doDetectInputPrompt?.('› ASK echo approved-run\n• Working (0s • esc to interrupt)\n\n› ')).toBe(false);
  });
});
