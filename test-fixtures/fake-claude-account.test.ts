/**
 * The fake `claude` on account trouble and billing, checked against what the REAL 2.1.328 did in the
 * same world (test-fixtures/real/recorded/account/claude-*.json, recorded by
 * test-fixtures/real/record-account.mjs; facts in test-fixtures/real/ACCOUNT-FACTS.md): the billing
 * label and `claude auth status`, 429 / plan usage limits / 401 / 403 / no login (StopFailure,
 * transcript, -p results), and the statusLine input with its rate_limits. The worlds and the TUI
 * driver are the very ones the recorder used on the real binary (account-claude.mjs), run here on
 * the fake through @umbel/tmux (a private socket; needs `pnpm build`). Waits are event-driven.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { claudeReady, claudeSetup, claudeTurn, turnRecords } from './real/account-claude.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { makeWorld, tmuxHost, waitFor } from './real/account-harness.mjs';

type Json = any;
const here = dirname(fileURLToPath(import.meta.url));
const FAKE = join(here, 'bin', 'claude');
const RECORDED = join(here, 'real', 'recorded', 'account');
const recorded = (name: string): Json => JSON.parse(readFileSync(join(RECORDED, `${name}.json`), 'utf8'));
/** A reset time as the real one words it ("12:20pm (UTC)", "Dec 4, 10:20am (UTC)") → a pattern. */
// A reset time as Claude prints it: `2:30pm`, `12pm` on the hour (the recording's), `Dec 2, 9am`.
const resetPattern = (text: string) =>
  new RegExp(
    `^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/(?:[A-Z][a-z]{2} \d{1,2}, )?\d{1,2}(?::\d\d)?[ap]m/g, '(?:[A-Z][a-z]{2} \\d{1,2}, )?\\d{1,2}(?::\\d\\d)?[ap]m')}$`,
  );

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** A world like the recorder's for `auth`, with the fake as the CLI. */
function fakeWorld(auth: string, options: { statusLine?: string } = {}) {
  const world = makeWorld('fake-claude-account-');
  const setup = claudeSetup(world, { auth, baseUrl: 'http://127.0.0.1:9', statusLine: options.statusLine });
  cleanups.push(async () => world.remove());
  return { world, setup };
}

/** The fake's TUI in a private tmux host, ready for input (or at `stopAt`). */
async function tui(auth: string, options: { statusLine?: string; userStatusLine?: string; stopAt?: string[]; env?: Record<string, string> } = {}) {
  const { world, setup } = fakeWorld(auth, options);
  if (options.userStatusLine) {
    writeFileSync(
      join(setup.config, 'settings.json'),
      JSON.stringify({ statusLine: { type: 'command', command: world.statusLine('userStatusLine', options.userStatusLine) } }),
    );
  }
  const host = await tmuxHost({ stateDir: join(world.root, 'state'), cwd: world.work });
  cleanups.push(() => host.stop().catch(() => undefined));
  await host.start([FAKE, '--settings', setup.settingsFile], { ...setup.env, ...options.env });
  const screen = await claudeReady(host, world, options.stopAt ?? []);
  return { world, setup, host, screen: screen as string };
}

/** `claude -p` of the fake in a world. */
function print(auth: string, args: string[], env: Record<string, string> = {}) {
  const { world, setup } = fakeWorld(auth);
  const r = spawnSync(FAKE, args, { cwd: world.work, env: { ...setup.env, ...env }, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, world, setup };
}

/** The fake answers without any credential unless told to be as strict as the real one. */
const STRICT = { FAKE_CLAUDE_AUTH: 'strict' };

const ACCOUNT_FIELDS = ['subtype', 'is_error', 'result', 'api_error_status', 'api_error_type', 'api_error', 'terminal_reason', 'stop_reason'];
const pick = (o: Json, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o?.[k]]));

describe('fake claude -p on account errors, like the real one', () => {
  it.each([
    ['claude-p-401-json', 'api-key'],
    ['claude-p-403-json', 'api-key'],
    ['claude-p-none-json', 'none'],
  ])('%s: the same result fields and exit code', (name, auth) => {
    const real = recorded(name);
    const r = print(auth, real.args, STRICT);
    expect(r.code).toBe(real.exitCode);
    expect(pick(JSON.parse(r.stdout), ACCOUNT_FIELDS)).toEqual(pick(real.stdout, ACCOUNT_FIELDS));
  });

  it('a plan usage limit: "You\'ve hit your 5-hour limit · resets …", 429, not retried; stream-json has the rate_limit_event', () => {
    const real = recorded('claude-p-usage-limit-json');
    const r = print('claude-ai', real.args);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(pick(out, ACCOUNT_FIELDS)).toEqual({ ...pick(real.stdout, ACCOUNT_FIELDS), result: out.result });
    expect(out.result).toMatch(resetPattern(real.stdout.result));

    const realStream = recorded('claude-p-usage-limit-stream-json');
    const lo = Math.floor(Date.now() / 1000);
    const s = print('claude-ai', realStream.args);
    const events = s.stdout
      .trim()
      .split('\n')
      .map((l: string) => JSON.parse(l));
    const kinds = (list: Json[]) => list.map((e) => (e.type === 'system' ? `system/${e.subtype}` : e.type));
    expect(kinds(events)).toEqual(kinds(realStream.stdout));
    const info = events.find((e: Json) => e.type === 'rate_limit_event').rate_limit_info;
    const realInfo = realStream.stdout.find((e: Json) => e.type === 'rate_limit_event').rate_limit_info;
    expect(Object.keys(info).sort()).toEqual(Object.keys(realInfo).sort());
    expect(info).toMatchObject({ status: 'rejected', rateLimitType: 'five_hour', overageStatus: 'rejected' });
    expect(info.resetsAt).toBeGreaterThanOrEqual(lo + 7200);
    expect(info.resetsAt).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 7200);
  });

  it('a 429 is retried CLAUDE_CODE_MAX_RETRIES times (api_retry error "rate_limit"); a retry-after over 60 s is not retried', () => {
    const real = recorded('claude-p-429-stream-json');
    const r = print('api-key', real.args);
    const retries = (out: string) =>
      out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((e) => e.subtype === 'api_retry');
    const realRetries = real.stdout.filter((e: Json) => e.subtype === 'api_retry');
    expect(retries(r.stdout).map((e) => [e.attempt, e.max_retries, e.error_status, e.error])).toEqual(
      realRetries.map((e: Json) => [e.attempt, e.max_retries, e.error_status, e.error]),
    );
    const long = print('api-key', ['-p', 'FAIL 429 retry-after=3600 slow down', '--output-format', 'stream-json', '--verbose']);
    expect(retries(long.stdout)).toEqual([]);
    expect(JSON.parse(long.stdout.trim().split('\n').at(-1) as string).result).toBe('API Error: Request rejected (429) · slow down');
  });

  it('-p uses ANTHROPIC_API_KEY even when .claude.json rejected it and a claude.ai login exists (API billing)', () => {
    const { world, setup } = fakeWorld('claude-ai+key');
    const claudeJson = join(setup.config, '.claude.json');
    writeFileSync(
      claudeJson,
      JSON.stringify({ ...JSON.parse(readFileSync(claudeJson, 'utf8')), customApiKeyResponses: { approved: [], rejected: ['abcdefghij0123456789'] } }),
    );
    const r = spawnSync(FAKE, ['-p', 'ECHO hi', '--output-format', 'stream-json', '--verbose'], { cwd: world.work, env: setup.env, encoding: 'utf8' });
    expect(JSON.parse(r.stdout.split('\n')[0] as string).apiKeySource).toBe('ANTHROPIC_API_KEY');
  });
});

describe('fake claude auth status, like the real one', () => {
  it.each(['claude-auth-api-key', 'claude-auth-auth-token', 'claude-auth-oauth-token', 'claude-auth-claude-ai', 'claude-auth-none'])('%s', (name) => {
    const real = recorded(name);
    const { world, setup } = fakeWorld(real.auth);
    const json = spawnSync(FAKE, ['auth', 'status', '--json'], { cwd: world.work, env: setup.env, encoding: 'utf8' });
    // (auth status is as honest as the real one even without FAKE_CLAUDE_AUTH=strict)
    expect(json.status).toBe(real.authStatus.jsonExitCode);
    const fields = ['loggedIn', 'authMethod', 'apiProvider', 'apiKeySource', 'subscriptionType'];
    expect(pick(JSON.parse(json.stdout), fields)).toEqual(pick(real.authStatus.json, fields));
    const text = spawnSync(FAKE, ['auth', 'status', '--text'], { cwd: world.work, env: setup.env, encoding: 'utf8' });
    expect(text.stdout.split('\n')[0]).toBe(real.authStatus.text.split('\n')[0].replace('127.0.0.1:<port>', '127.0.0.1:9'));
  });
});

/** The banner's billing line ("Opus 5.5 · API Usage Billing"), without the logo. */
const billingLine = (screen: string) =>
  screen
    .split('\n')
    .map((l) => l.trim())
    .find((l) => / · (API Usage Billing|Claude [A-Z][a-z]+)$/.test(l))
    ?.replace(/^\S+\s+/, '');

describe('fake claude TUI: billing shown like the real one', () => {
  it.each([
    ['claude-auth-api-key', 'api-key'],
    ['claude-auth-auth-token', 'auth-token'],
    ['claude-auth-oauth-token', 'oauth-token'],
    ['claude-auth-claude-ai', 'claude-ai'],
  ])('%s: the banner says how the session bills', async (name, auth) => {
    const real = recorded(name);
    const { screen } = await tui(auth);
    expect(billingLine(screen)).toBe(billingLine(real.startupScreen));
  });

  it('no credential (FAKE_CLAUDE_AUTH=strict): "Not logged in · run /login", a prompt fails with StopFailure authentication_failed', async () => {
    const real = recorded('claude-auth-none');
    const { host, world, screen } = await tui('none', { env: STRICT });
    expect(billingLine(screen)).toBe(billingLine(real.startupScreen));
    expect(screen).toMatch(/Not logged in · run \/login\s*$/m);
    const turn = await claudeTurn(host, world, 'ECHO billed how?');
    const failure = turn.hooks.find((h: Json) => h.kind === 'StopFailure');
    const realFailure = real.turns[0].hooks.find((h: Json) => h.event === 'StopFailure');
    expect(pick(failure.input, ['error', 'last_assistant_message'])).toEqual(pick(realFailure.payload, ['error', 'last_assistant_message']));
    expect(turn.screen).toContain('⎿  Not logged in · Please run /login');
  });

  it('the key dialog answered No (its default) does not sign in: not logged in, the key recorded as rejected', async () => {
    const real = recorded('claude-auth-api-key-ask');
    const { host, world, setup } = await tui('api-key-ask', { stopAt: ['Detected a custom API key'] });
    await host.keys('Enter');
    await claudeReady(host, world);
    const config = JSON.parse(readFileSync(join(setup.config, '.claude.json'), 'utf8'));
    expect(config.customApiKeyResponses).toEqual(real.claudeJson.customApiKeyResponses);
    const turn = await claudeTurn(host, world, 'ECHO billed how?');
    expect(turn.hooks.find((h: Json) => h.kind === 'StopFailure')?.input.error).toBe('authentication_failed');
    expect(turn.screen).toContain('ANTHROPIC_API_KEY not used here · turn on "Use custom API key" in /config');
  });

  it('a claude.ai login and a key answered No: the subscription bills ("Claude Max"); answered Yes: the key does, with the warning', async () => {
    const no = await tui('claude-ai+key', { stopAt: ['Detected a custom API key'] });
    await no.host.keys('Enter');
    await waitFor('banner', async () => billingLine(await no.host.screen()) === 'Opus 5.5 · Claude Max');
    const yes = await tui('claude-ai+key', { stopAt: ['Detected a custom API key'] });
    await yes.host.keys('Up');
    await yes.host.keys('Enter');
    await waitFor('API billing', async () => billingLine(await yes.host.screen()) === 'Opus 5.5 · API Usage Billing');
    expect(await yes.host.screen()).toContain('⚠ Both claude.ai and ANTHROPIC_API_KEY set · auth may not work as expected');
  });

  it('no credential without FAKE_CLAUDE_AUTH=strict still answers (tests that bring no credential keep working)', async () => {
    const { host, world } = await tui('none');
    const turn = await claudeTurn(host, world, 'ECHO still answers');
    expect(turn.hooks.find((h: Json) => h.kind === 'Stop')?.input.last_assistant_message).toBe('still answers');
  });
});

describe('fake claude TUI: account errors like the real one', () => {
  const hookOf = (hooks: Json[], event: string) => hooks.find((h) => (h.kind ?? h.event) === event);
  const payloadOf = (h: Json) => h.input ?? h.payload;

  it.each([
    ['claude-429', 'api-key'],
    ['claude-429-subscriber', 'claude-ai'],
    ['claude-401', 'api-key'],
    ['claude-403', 'api-key'],
    ['claude-403-oauth-revoked', 'claude-ai'],
    ['claude-credit-low', 'api-key'],
  ])('%s: the same StopFailure error and text, and transcript error fields', async (name, auth) => {
    const real = recorded(name);
    const { host, world } = await tui(auth);
    const turn = await claudeTurn(host, world, real.turns[0].prompt);
    const want = payloadOf(hookOf(real.turns[0].hooks, 'StopFailure'));
    expect(pick(payloadOf(hookOf(turn.hooks, 'StopFailure')), ['error', 'last_assistant_message'])).toEqual(pick(want, ['error', 'last_assistant_message']));
    expect(hookOf(turn.hooks, 'Stop')).toBeUndefined();
    const fields = ['error', 'apiErrorStatus', 'apiErrorType', 'isApiErrorMessage'];
    const synthetic = (records: Json[]) => records.find((r) => r.type === 'assistant' && r.isApiErrorMessage);
    await waitFor('the synthetic entry', () => synthetic(turnRecords(payloadOf(hookOf(turn.hooks, 'StopFailure')).transcript_path, turn.promptId)));
    const entry = synthetic(turnRecords(payloadOf(hookOf(turn.hooks, 'StopFailure')).transcript_path, turn.promptId));
    expect(pick(entry, fields)).toEqual(pick(synthetic(real.turns[0].transcript), fields));
  });

  it('a 5-hour plan limit: rate_limit with the reset, usage_limit_reached in the transcript, then it continues by itself at the reset', async () => {
    const real = recorded('claude-usage-limit-resume');
    const { host, world } = await tui('claude-ai');
    const lo = Math.floor(Date.now() / 1000);
    const turn = await claudeTurn(host, world, 'FAIL 429 x1 limit=usage reset=3 ECHO resumed after the reset');
    const failure = payloadOf(hookOf(turn.hooks, 'StopFailure'));
    expect(failure.error).toBe('rate_limit');
    expect(failure.last_assistant_message).toMatch(resetPattern(payloadOf(hookOf(real.turns[0].hooks, 'StopFailure')).last_assistant_message));
    await waitFor('the synthetic entry', () => turnRecords(failure.transcript_path, turn.promptId).some((r: Json) => r.apiError === 'usage_limit_reached'));
    const entry = turnRecords(failure.transcript_path, turn.promptId).find((r: Json) => r.apiError === 'usage_limit_reached');
    const realEntry = real.turns[0].transcript.find((r: Json) => r.apiError === 'usage_limit_reached');
    expect(Object.keys(entry.apiErrorParams.rate_limit_info).sort()).toEqual(Object.keys(realEntry.apiErrorParams.rate_limit_info).sort());
    expect(entry.apiErrorParams.rate_limit_info.resetsAt).toBeGreaterThanOrEqual(lo + 3);
    expect(entry.quotaLimits).toMatchObject({ status: 'rejected', rateLimitType: 'five_hour' });
    await waitFor('the automatic-continue notice', async () => (await host.screen()).includes('Usage limit reached · continuing automatically at'));
    // at the reset: Notification, a system prompt (its own prompt_id), Stop
    const stop = await waitFor('Stop of the automatic continue', () => world.records('Stop')[0], 30_000);
    const notification = world.records('Notification').find((n: Json) => n.input.notification_type === 'quota_auto_resume_fired');
    expect(notification.input.message).toBe(payloadOf(hookOf(real.turns[0].hooks, 'Notification')).message);
    const ups = world.records('UserPromptSubmit').at(-1);
    expect(ups.input.prompt).toBe(payloadOf(real.turns[0].hooks.filter((h: Json) => h.event === 'UserPromptSubmit').at(-1)).prompt);
    expect(stop.input.prompt_id).toBe(ups.input.prompt_id);
    expect(stop.input.prompt_id).not.toBe(turn.promptId);
  });

  it('a weekly limit resetting in days opens the /rate-limit-options dialog; Enter (1. Stop and wait) closes it', async () => {
    const real = recorded('claude-weekly-limit');
    const { host, world } = await tui('claude-ai');
    const turn = await claudeTurn(host, world, real.turns[0].prompt);
    expect(payloadOf(hookOf(turn.hooks, 'StopFailure')).last_assistant_message).toMatch(
      resetPattern(payloadOf(hookOf(real.turns[0].hooks, 'StopFailure')).last_assistant_message),
    );
    const dialog = ['  What do you want to do?', '  ❯ 1. Stop and wait for limit to reset', '    3. Upgrade your plan'];
    for (const line of dialog) expect(real.turns[0].screen).toContain(line);
    await waitFor('the dialog', async () => {
      const screen = await host.screen();
      return dialog.every((line) => screen.includes(line));
    });
    await host.keys('Enter');
    await waitFor('the dialog closed', async () => !(await host.screen()).includes('What do you want to do?'));
  });
});

describe('fake claude statusLine like the real one', () => {
  /** Keys of a statusLine input the fake must share with the real one. */
  const SHAPE = [
    'session_id',
    'transcript_path',
    'cwd',
    'effort',
    'model',
    'workspace',
    'version',
    'output_style',
    'cost',
    'context_window',
    'exceeds_200k_tokens',
    'fast_mode',
    'thinking',
  ];

  it('runs the command at startup and after each turn; rate_limits (5 h, 7 d: used %, reset in epoch s) once the server reported plan usage', async () => {
    const real = recorded('claude-statusline');
    const { host, world } = await tui('claude-ai', { statusLine: 'UMBEL-STATUSLINE' });
    const first = await waitFor('the startup statusLine call', () => world.records('statusLine')[0]);
    for (const key of SHAPE) expect(first.input).toHaveProperty(key);
    expect(Object.keys(first.input).filter((k) => SHAPE.includes(k))).toEqual(
      Object.keys(real.statusLine.inputs[0].input).filter((k: string) => SHAPE.includes(k)),
    );
    expect(first.input.rate_limits).toBeUndefined();
    expect(first.input.model).toEqual(real.statusLine.inputs[0].input.model);
    const lo = Math.floor(Date.now() / 1000);
    await claudeTurn(host, world, 'QUOTA 5h=42@3600 7d=13@86400 ECHO with usage');
    const after = await waitFor('the statusLine call after the turn', () => world.records('statusLine')[1]);
    expect(after.input.rate_limits.five_hour.used_percentage).toBe(real.statusLine.inputs[1].input.rate_limits.five_hour.used_percentage);
    expect(Object.keys(after.input.rate_limits)).toEqual(Object.keys(real.statusLine.inputs[1].input.rate_limits));
    expect(after.input.rate_limits.five_hour.resets_at).toBeGreaterThanOrEqual(lo + 3600);
    expect(after.input.rate_limits.seven_day).toMatchObject({ used_percentage: 13 });
    expect(after.input.prompt_id).toBeTruthy();
    await waitFor('its output above the footer', async () => /^ {2}UMBEL-STATUSLINE/m.test(await host.screen()));
  });

  it('an API-key session gets no rate_limits even when the server reports plan usage', async () => {
    const { host, world } = await tui('api-key', { statusLine: 'UMBEL-STATUSLINE' });
    await claudeTurn(host, world, 'QUOTA 5h=42@3600 ECHO with usage');
    const after = await waitFor('the statusLine call after the turn', () => world.records('statusLine')[1]);
    expect(after.input.rate_limits).toBeUndefined();
  });

  it("a --settings statusLine replaces the user's own (only one runs); without it the user's runs", async () => {
    const both = await tui('claude-ai', { statusLine: 'UMBEL-STATUSLINE', userStatusLine: 'USER-STATUSLINE' });
    await waitFor('the --settings statusLine', () => both.world.records('statusLine')[0]);
    expect(both.world.records('userStatusLine')).toEqual([]);
    expect(recorded('claude-statusline-user').statusLine.userCalls).toBe(0);
    const user = await tui('claude-ai', { userStatusLine: 'USER-STATUSLINE' });
    await waitFor("the user's statusLine", () => user.world.records('userStatusLine')[0]);
    await waitFor('its output', async () => /^ {2}USER-STATUSLINE/m.test(await user.host.screen()));
  });
});
