/**
 * The fake `codex` on account trouble, checked against what the REAL 0.169.0 did in the same world
 * (test-fixtures/real/recorded/account/codex-*.json, recorded by test-fixtures/real/record-account.mjs):
 * the rollout's task_complete.error {message, codex_error_info}, token_count.rate_limits, the `■`
 * line, the "Approaching rate limits" nudge, `codex exec --json` errors and the /status Account
 * line. The worlds and drivers are the recorder's own (account-codex.mjs), run on the fake through
 * @umbel/tmux (needs `pnpm build`). Waits are event-driven.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { codexExecCase, codexTuiCase } from './real/account-codex.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { makeWorld, tmuxHost } from './real/account-harness.mjs';

type Json = any;
const here = dirname(fileURLToPath(import.meta.url));
const FAKE = join(here, 'bin', 'codex');
const recorded = (name: string): Json => JSON.parse(readFileSync(join(here, 'real', 'recorded', 'account', `${name}.json`), 'utf8'));
/** The fake answers from directives: a "mock" that is never called. */
const NO_MOCK = { url: 'http://127.0.0.1:9/v1', port: 9, requests: () => [] };
/** Machine-specific parts of a message: the API URL, "try again at <time>". */
const normal = (text: string) =>
  String(text)
    .replace(/http:\/\/127\.0\.0\.1:(?:\d+|<port>)/g, 'http://127.0.0.1:<port>')
    .replace(/try again at [^.]*?(?:AM|PM)\./, 'try again at <time>.');
const taskComplete = (rollout: Json[]) => rollout.find((r) => r.type === 'event_msg' && r.payload?.type === 'task_complete')?.payload;
const tokenCount = (rollout: Json[]) => rollout.filter((r) => r.type === 'event_msg' && r.payload?.type === 'token_count').at(-1)?.payload;
const errorOf = (rollout: Json[]) => {
  const e = taskComplete(rollout)?.error;
  return e ? { message: normal(e.message), codex_error_info: e.codex_error_info } : e;
};

async function tuiCase(name: string, options: { prompts?: string[]; status?: boolean } = {}) {
  const real = recorded(name);
  const c = { name: `fake-${name}`, auth: real.auth, prompts: options.prompts ?? real.prompt, status: options.status };
  const { out } = await codexTuiCase({ codex: FAKE, mock: NO_MOCK, c, makeWorld, tmuxHost });
  return { real, out };
}

describe('fake codex TUI on account errors, like the real one', () => {
  it.each(['codex-429', 'codex-429-insufficient-quota', 'codex-401', 'codex-403'])('%s: the same task_complete.error and ■ line', async (name) => {
    const { real, out } = await tuiCase(name);
    expect(errorOf(out.turns[0].rollout)).toEqual(errorOf(real.turns[0].rollout));
    const line = (screen: string) => screen.split('\n').find((l) => l.startsWith('■ '));
    expect(normal(line(out.turns[0].screen) ?? '')).toBe(normal(line(real.turns[0].screen) ?? ''));
    expect(out.turns[0].hooks.map((h: Json) => h.event)).not.toContain('Stop');
  });

  it('a plan usage limit: usage_limit_exceeded, the used-up window in token_count.rate_limits, then the "Approaching rate limits" nudge', async () => {
    const { real, out } = await tuiCase('codex-usage-limit', { status: false });
    const turn = out.turns[0];
    expect(errorOf(turn.rollout)).toEqual(errorOf(real.turns[0].rollout));
    const limits = tokenCount(turn.rollout).rate_limits;
    const realLimits = tokenCount(real.turns[0].rollout).rate_limits;
    expect(Object.keys(limits).sort()).toEqual(Object.keys(realLimits).sort());
    expect(limits.primary).toMatchObject({ used_percent: realLimits.primary.used_percent, window_minutes: realLimits.primary.window_minutes });
    expect(limits.primary.resets_at).toBeGreaterThan(Date.now() / 1000 + 7000);
    for (const text of [
      'Approaching rate limits',
      'Switch to gpt-6-luna for lower credit usage?',
      '1. Switch to gpt-6-luna',
      '3. Keep current model (never show again)',
    ]) {
      expect(real.turns[0].screen).toContain(text);
      expect(turn.screen).toContain(text);
    }
  });

  it('plan usage on a normal answer: token_count.rate_limits primary/secondary (used %, window, reset)', async () => {
    const { real, out } = await tuiCase('codex-quota', { status: false });
    const limits = tokenCount(out.turns[0].rollout).rate_limits;
    const realLimits = tokenCount(real.turns[0].rollout).rate_limits;
    expect({ ...limits, primary: { ...limits.primary, resets_at: 0 }, secondary: { ...limits.secondary, resets_at: 0 } }).toEqual({
      ...realLimits,
      primary: { ...realLimits.primary, resets_at: 0 },
      secondary: { ...realLimits.secondary, resets_at: 0 },
    });
    expect(taskComplete(out.turns[0].rollout).last_agent_message).toBe('with usage');
  });

  it.each(['codex-auth-provider-key', 'codex-auth-apikey', 'codex-auth-chatgpt'])('%s: /status shows the account like the real one', async (name) => {
    const { real, out } = await tuiCase(name, { prompts: [], status: true });
    const account = (screen: string) =>
      screen
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => /^(Account|Model provider|Limits):/.test(l));
    expect(account(out.statusScreen)).toEqual(account(real.statusScreen));
  });
});

describe('fake codex exec --json on account errors, like the real one', () => {
  it.each(['codex-exec-429', 'codex-exec-usage-limit', 'codex-exec-401'])('%s: the final error events, the rollout error, exit 1', async (name) => {
    const real = recorded(name);
    const { out } = await codexExecCase({ codex: FAKE, mock: NO_MOCK, c: { name: `fake-${name}`, auth: real.auth, prompt: real.prompt }, makeWorld });
    expect(out.exitCode).toBe(1);
    const last = (events: Json[]) =>
      events.filter((e) => e.type === 'turn.failed' || (e.type === 'error' && !/^Reconnecting/.test(e.message))).map((e) => normal(JSON.stringify(e)));
    expect(last(out.stdout)).toEqual(last(real.stdout));
    expect(errorOf(out.rollout)).toEqual(errorOf(real.rollout));
  });
});
