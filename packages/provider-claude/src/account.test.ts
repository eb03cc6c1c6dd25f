// Account failures of the real Claude Code 2.1.328, from its recordings against the Anthropic mock
// (test-fixtures/real/recorded/account/claude-*.json, ACCOUNT-FACTS.md §1.2): the synthetic
// transcript entry and the StopFailure payload each say rate-limited / auth-failed on their own.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { claude } from './provider.js';
import { readClaudeTurn } from './transcript.js';

interface Recording {
  readonly turns: readonly {
    readonly transcript: readonly unknown[];
    readonly hooks: readonly { event: string; payload: unknown }[];
    readonly screen?: string;
    readonly afterKeys?: { readonly keys: readonly string[]; readonly screen: string };
  }[];
}
const recording = (name: string): Recording =>
  JSON.parse(readFileSync(new URL(`../../../test-fixtures/real/recorded/account/claude-${name}.json`, import.meta.url), 'utf8')) as Recording;

function readRecorded(name: string) {
  const turn = recording(name).turns[0];
  if (!turn) throw new Error(`${name}: no turn`);
  const content = `${turn.transcript.map((entry) => JSON.stringify(entry)).join('\n')}\n`;
  return readClaudeTurn({ content, transcriptPath: '/cfg/t.jsonl', ordinal: 1, stopSeen: true });
}

function stopFailure(name: string) {
  const hook = recording(name).turns[0]?.hooks.find((h) => h.event === 'StopFailure');
  if (!hook) throw new Error(`${name}: no StopFailure`);
  return claude.doParseEvent({ kind: 'stop-failure', at: 1n, payload: hook.payload });
}

describe('claude account failures (real recordings)', () => {
  it.each(['429', '429-retry-after', '429-retry-after-long', '429-subscriber', 'usage-limit-api-key'])('%s: rate-limited, no reset recorded', (name) => {
    const read = readRecorded(name);
    expect(read).toMatchObject({ status: 'failed', apiErrorStatus: 429, account: { kind: 'rate-limited' } });
    expect(read.status === 'failed' && read.account?.resetsAt).toBeUndefined();
    expect(stopFailure(name).account).toEqual({ kind: 'rate-limited' });
  });

  it('a plan limit: rate-limited with the reset and the window from the transcript', () => {
    expect(readRecorded('usage-limit')).toMatchObject({
      status: 'failed',
      message: "You've hit your 5-hour limit · resets 1:58pm (UTC)",
      account: { kind: 'rate-limited', resetsAt: new Date(1796133512 * 1000).toISOString(), limit: 'five_hour' },
    });
    expect(readRecorded('weekly-limit')).toMatchObject({
      account: { kind: 'rate-limited', resetsAt: new Date(1796385530 * 1000).toISOString(), limit: 'seven_day' },
    });
  });

  it.each(['401', '401-oauth-expired', '403', '403-oauth-revoked'])('%s: auth-failed', (name) => {
    expect(readRecorded(name)).toMatchObject({ status: 'failed', account: { kind: 'auth-failed' } });
    expect(stopFailure(name).account).toEqual({ kind: 'auth-failed' });
  });

  it('a low credit balance (billing_error, 400) stays a provider error', () => {
    const read = readRecorded('credit-low');
    expect(read).toMatchObject({ status: 'failed', apiErrorStatus: 400 });
    expect(read.status === 'failed' && read.account).toBeUndefined();
    expect(stopFailure('credit-low').account).toBeUndefined();
  });
});

describe('claude after a plan limit: the /rate-limit-options dialog (real recordings, ACCOUNT-FACTS §1.3)', () => {
  const detect = (screen: string | undefined) => claude.doDetectAccountScreen?.(screen ?? '');

  it('a reset more than a day away: the blocking dialog is a rate-limited account screen', () => {
    const found = detect(recording('weekly-limit').turns[0]?.screen);
    expect(found?.kind).toBe('rate-limited');
    expect(found?.message).toContain('/rate-limit-options');
    expect(found?.message).toContain('continue automatically at Dec 4, 11:58am');
  });

  it('answered (Enter), and a reset within a day (no dialog, it continues by itself): nothing blocks', () => {
    expect(detect(recording('weekly-limit').turns[0]?.afterKeys?.screen)).toBeUndefined();
    expect(detect(recording('usage-limit').turns[0]?.screen)).toBeUndefined();
    expect(detect(recording('usage-limit-resume').turns[0]?.screen)).toBeUndefined();
  });
});

describe('claude after a plan limit: the automatic continue at the reset (claude-usage-limit-resume, ACCOUNT-FACTS §1.3)', () => {
  const turn = () => {
    const t = recording('usage-limit-resume').turns[0];
    if (!t) throw new Error('no turn');
    return t;
  };
  const kinds: Record<string, string> = { UserPromptSubmit: 'prompt', StopFailure: 'stop-failure', Notification: 'notify', Stop: 'stop' };
  const parsed = () => turn().hooks.map((h) => ({ event: h.event, info: claude.doParseEvent({ kind: kinds[h.event] ?? 'x', at: 1n, payload: h.payload }) }));

  it('quota_auto_resume_fired marks the continue (no input asked); the next prompt has its own key', () => {
    const events = parsed();
    expect(events.map((e) => e.event)).toEqual(['UserPromptSubmit', 'StopFailure', 'Notification', 'UserPromptSubmit', 'Stop']);
    const [first, , notify, again, stop] = events;
    expect(notify?.info.autoContinue).toBe(true);
    expect(notify?.info.needsInput).toBeUndefined();
    expect(first?.info.autoContinue).toBeUndefined();
    expect(again?.info.turnKey).not.toBe(first?.info.turnKey);
    expect(stop?.info.turnKey).toBe(again?.info.turnKey);
    const idle = claude.doParseEvent({ kind: 'notify', at: 1n, payload: { notification_type: 'idle_prompt', message: 'Claude is waiting for your input' } });
    expect(idle.autoContinue).toBeUndefined();
  });

  it("the continuation's key reads its answer from the transcript (its prompt is a meta entry)", () => {
    const t = turn();
    const content = `${t.transcript.map((entry) => JSON.stringify(entry)).join('\n')}\n`;
    const key = parsed()[3]?.info.turnKey;
    const read = readClaudeTurn({ content, transcriptPath: '/cfg/t.jsonl', ordinal: 1, stopSeen: true, ...(key ? { turnKey: key } : {}) });
    expect(read).toMatchObject({ status: 'completed' });
    expect(read.status === 'completed' && read.answer).toMatch(/^MOCK-REPLY: Your claude\.ai usage limit has reset\./);
  });
});
