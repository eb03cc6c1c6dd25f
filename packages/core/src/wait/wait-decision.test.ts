// The wait's decision is a pure function of (view, turn, transcript read, findings, now).
import { describe, expect, it } from 'vitest';
import { ledgerEvents } from '../ledger/ledger.js';
import type { TurnView, UsableView } from '../ledger/ledger-types.js';
import type { ProviderV1TurnRead } from '@umbel/provider';
import { createMockProvider } from '../testing/index.js';
import { assignTurns } from '../ledger/turns.js';
import { decideWait, TRANSCRIPT_END_SETTLE_MS, type WaitInput } from './wait-decision.js';

const provider = createMockProvider();
const ev = (at: number, kind: string, payload: unknown = {}) => ({ at: BigInt(at), kind, payload, file: `${at}-1-${kind}.json` });

let dirs = 0;
function setup(raws: ReturnType<typeof ev>[], read: ProviderV1TurnRead, extra: Partial<WaitInput> = {}): WaitInput {
  // a fresh dir each time: provider readings are cached per event file, which never changes on disk
  const events = ledgerEvents(provider, `/events-${++dirs}`, raws, []);
  const turns = assignTurns(events);
  const view = { name: 'w', provider, events, turns, death: {}, transcript: {}, problems: [] } as unknown as UsableView;
  return {
    view,
    turn: turns[0] as TurnView,
    read,
    now: 100_000,
    deadline: 200_000,
    timeoutMs: 100_000,
    lastChangeAt: 0,
    lastStateChangeAt: 0,
    stopSettleMs: 5000,
    ...extra,
  };
}
const sent = ev(1, 'sent', { turn: 1, prompt: 'p' });

describe('decideWait', () => {
  it('a turn that died before a revive stays dead, whatever the transcript or the live new process say', () => {
    const died = ev(3, 'ended', { turn: 1, reason: 'dead', message: 'died before completing turn 1 (killed by SIGKILL)' });
    expect(decideWait(setup([sent, ev(2, 'prompt'), died, ev(4, 'revived', { sessionId: 's' })], { status: 'running' }))).toEqual({
      kind: 'died',
      message: 'died before completing turn 1 (killed by SIGKILL)',
    });
  });

  it('completes from the transcript; holds a stop whose answer has not landed, then falls back', () => {
    expect(decideWait(setup([sent, ev(2, 'stop')], { status: 'completed', answer: 'a' })).kind).toBe('completed');
    const lagging = setup([sent, ev(2, 'stop', { last: 'from the hook' })], { status: 'running' });
    expect(decideWait(lagging)).toMatchObject({ kind: 'hold', mark: 'stop' });
    expect(decideWait({ ...lagging, stopSeenAt: 100_000 - 5000 })).toMatchObject({ kind: 'completed-from-stop', answer: 'from the hook' });
  });

  it('a stop with no answer anywhere ends unknown, with evidence', () => {
    const input = setup([sent, ev(2, 'stop')], { status: 'running' }, { stopSeenAt: 0 });
    expect(decideWait(input)).toMatchObject({ kind: 'outcome', reason: 'unknown', withScreen: true });
  });

  it('a failure the transcript shows alone waits for the transcript to settle (a hook may still follow)', () => {
    const failed: ProviderV1TurnRead = { status: 'failed', message: 'boom' };
    expect(decideWait(setup([sent], failed, { lastStateChangeAt: 100_000 - 10 }))).toMatchObject({ kind: 'hold', mark: 'transcript' });
    expect(decideWait(setup([sent], failed, { lastStateChangeAt: 100_000 - TRANSCRIPT_END_SETTLE_MS }))).toMatchObject({
      kind: 'outcome',
      reason: 'provider-error',
      recordEnded: 'failed',
    });
    const dropped: ProviderV1TurnRead = { status: 'interrupted', message: 'dropped' };
    expect(decideWait(setup([sent], dropped, { lastStateChangeAt: 100_000 - 10 })).kind).toBe('hold');
    expect(decideWait(setup([sent, ev(2, 'stop')], dropped, { lastStateChangeAt: 100_000 - 10 }))).toMatchObject({ reason: 'idle' });
  });

  it("a provider-error carries what the transcript says of the API error (claude -p's api_error_status)", () => {
    const failed: ProviderV1TurnRead = {
      status: 'failed',
      message: 'API Error: 500',
      apiErrorStatus: 500,
      apiErrorType: 'api_error',
      stopReason: 'stop_sequence',
    };
    const fields = { message: 'API Error: 500', apiErrorStatus: 500, apiErrorType: 'api_error', stopReason: 'stop_sequence' };
    expect(decideWait(setup([sent, ev(2, 'stop-failure', { error: 'server_error' })], failed))).toMatchObject({ reason: 'provider-error', fields });
    expect(decideWait(setup([sent, ev(2, 'stop')], failed))).toMatchObject({ reason: 'provider-error', fields });
    expect(decideWait(setup([sent], failed, { lastStateChangeAt: 0 }))).toMatchObject({ reason: 'provider-error', fields });
    // the hook came first: hold for the transcript's record of the error, then take the hook's word
    const early = setup([sent, ev(2, 'stop-failure', { error: 'server_error' })], { status: 'running' });
    expect(decideWait(early)).toMatchObject({ kind: 'hold', mark: 'stop' });
    expect(decideWait({ ...early, stopSeenAt: 100_000 - 5000 })).toMatchObject({ reason: 'provider-error', fields: { message: 'server_error' } });
  });

  it('an account failure is its own reason: rate-limited with its reset, auth-failed; from the transcript or the hook', () => {
    const limited: ProviderV1TurnRead = {
      status: 'failed',
      message: "You've hit your 5-hour limit",
      apiErrorStatus: 429,
      account: { kind: 'rate-limited', resetsAt: '2026-12-01T12:20:00.000Z', limit: 'five_hour' },
    };
    const fields = { message: "You've hit your 5-hour limit", apiErrorStatus: 429, resetsAt: '2026-12-01T12:20:00.000Z', limit: 'five_hour' };
    expect(decideWait(setup([sent, ev(2, 'stop-failure', { error: 'rate_limit' })], limited))).toMatchObject({ reason: 'rate-limited', fields });
    expect(decideWait(setup([sent], limited, { lastStateChangeAt: 0 }))).toMatchObject({ reason: 'rate-limited', fields, recordEnded: 'failed' });
    const refused: ProviderV1TurnRead = { status: 'failed', message: 'Please run /login', account: { kind: 'auth-failed' } };
    const authFailed = decideWait(setup([sent, ev(2, 'stop')], refused));
    expect(authFailed).toMatchObject({ reason: 'auth-failed', fields: { message: 'Please run /login' } });
    expect(authFailed.kind === 'outcome' && 'resetsAt' in authFailed.fields).toBe(false);
    // the transcript never recorded it: the hook's own classification
    const early = setup([sent, ev(2, 'stop-failure', { error: 'authentication_failed', account: { kind: 'auth-failed' } })], { status: 'running' });
    expect(decideWait({ ...early, stopSeenAt: 100_000 - 5000 })).toMatchObject({ reason: 'auth-failed', fields: { message: 'authentication_failed' } });
  });

  it("a failure the CLI keeps retrying (Gemini's 429 rounds) ends at once, asking to cancel the turn; recorded ended only after that", () => {
    const retrying: ProviderV1TurnRead = { status: 'failed', message: 'quota', account: { kind: 'rate-limited' }, retrying: true };
    const decision = decideWait(setup([sent], retrying, { lastStateChangeAt: 100_000 - 10 }));
    expect(decision).toMatchObject({ kind: 'outcome', reason: 'rate-limited', cancel: true, fields: { message: 'quota' } });
    expect(decision).not.toHaveProperty('recordEnded');
    const settled: ProviderV1TurnRead = { status: 'failed', message: 'quota', account: { kind: 'rate-limited' } };
    expect(decideWait(setup([sent], settled, { lastStateChangeAt: 0 }))).not.toHaveProperty('cancel');
  });

  it('a blocking account dialog the monitor found mid-turn (no record yet) ends rate-limited, with the screen', () => {
    const finding = { account: { kind: 'rate-limited' as const, message: 'Usage limit reached for gemini-3.8-flash.' }, screen: 'dialog' };
    expect(decideWait(setup([sent, ev(2, 'prompt')], { status: 'running' }, { finding }))).toMatchObject({
      kind: 'outcome',
      reason: 'rate-limited',
      withScreen: true,
      fields: { message: expect.stringContaining('Usage limit reached for gemini-3.8-flash.') },
    });
  });

  it('asks for the screen on a pending permission, and holds until its prompt is drawn (bounded)', () => {
    const asking = setup([sent, ev(2, 'prompt'), ev(3, 'permission', { tool: 'Bash' })], { status: 'running' });
    expect(decideWait(asking).kind).toBe('need-screen');
    expect(decideWait({ ...asking, screen: 'mock> ' })).toMatchObject({ kind: 'hold', mark: 'input' });
    expect(decideWait({ ...asking, screen: 'Allow Bash? 1. Yes 2. No' })).toMatchObject({ reason: 'needs-input', fields: { tool: 'Bash' } });
    expect(decideWait({ ...asking, screen: 'mock> ', inputSeenAt: 100_000 - 3000 })).toMatchObject({ reason: 'needs-input' });
  });

  it('death, sign-in, idle and the deadline, in that order; otherwise sleep', () => {
    const running = setup([sent, ev(2, 'prompt')], { status: 'running' });
    expect(decideWait({ ...running, finding: { dead: { exists: false, dead: true } } }).kind).toBe('dead');
    expect(decideWait({ ...running, finding: { signIn: 'Please sign in', screen: '' } })).toMatchObject({ fields: { inputKind: 'sign-in' } });
    expect(decideWait({ ...running, idleTimeoutMs: 1000, lastChangeAt: 0 })).toMatchObject({ reason: 'idle' });
    expect(decideWait({ ...running, deadline: 100_000 })).toMatchObject({ reason: 'timeout' });
    expect(decideWait({ ...running, lastChangeAt: 100_000 })).toMatchObject({ kind: 'sleep' });
  });

  it('idle only when the screen was seen still for the whole idle timeout: a capture that lags (a loaded host) is no evidence of stillness', () => {
    const running = setup([sent, ev(2, 'prompt')], { status: 'running' }, { idleTimeoutMs: 3000, lastChangeAt: 90_000 });
    // the last capture was asked for 1 s after the last change: 10 s of clock, 1 s of evidence
    expect(decideWait({ ...running, screenSeenAt: 91_000 })).toMatchObject({ kind: 'sleep' });
    expect(decideWait({ ...running, screenSeenAt: 93_000 })).toMatchObject({
      reason: 'idle',
      fields: { message: 'no activity for 10s (events, transcript and screen all still; the screen last captured 7s ago)' },
    });
  });
});
