import { describe, expect, it } from 'vitest';
import { DurationSchema, EnvArgsSchema, parseDuration, SpawnOptionsSchema, WorkerNameSchema } from './schemas.js';
import { interpretEvents, type StoredEvent } from './events.js';
import { resolveWorkerEnv } from './env.js';

describe('schemas', () => {
  it('worker names', () => {
    for (const ok of ['a', 'w1', 'anon-abc123', `a${'b'.repeat(62)}`]) expect(WorkerNameSchema.safeParse(ok).success, ok).toBe(true);
    for (const bad of ['', '-a', 'A', 'a_b', 'a b', `a${'b'.repeat(63)}`]) expect(WorkerNameSchema.safeParse(bad).success, bad).toBe(false);
  });
  it('durations', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('5')).toBeUndefined();
    expect(parseDuration('1d')).toBeUndefined();
    expect(DurationSchema.parse(250)).toBe(250);
    expect(DurationSchema.safeParse('soon').success).toBe(false);
  });
  it('--env arguments: by name or with a value', () => {
    expect(EnvArgsSchema.parse(['KEY', 'A=b=c', 'EMPTY='])).toEqual({ KEY: { fromEnv: 'KEY' }, A: 'b=c', EMPTY: '' });
    expect(EnvArgsSchema.safeParse(['1BAD']).success).toBe(false);
  });
  it('spawn options reject unknown keys', () => {
    expect(SpawnOptionsSchema.safeParse({ provider: 'claude', bogus: 1 }).success).toBe(false);
    expect(SpawnOptionsSchema.parse({})).toMatchObject({ provider: 'claude', unattended: false });
  });
});

describe('env resolution', () => {
  it('never inherits what is not named, and explicit wins', () => {
    const env = resolveWorkerEnv({
      callerEnv: { PATH: '/bin', CLAUDECODE: '1', ANTHROPIC_API_KEY: 'k', OTHER: 'o' },
      inherit: ['ANTHROPIC_API_KEY'],
      explicit: { ANTHROPIC_API_KEY: 'explicit', BY: { fromEnv: 'OTHER' } },
    });
    expect(env).toEqual({ PATH: '/bin', ANTHROPIC_API_KEY: 'explicit', BY: 'o' });
  });
});

describe('turn assignment', () => {
  const ev = (at: number, kind: string, payload: unknown = {}): StoredEvent => ({ at: BigInt(at), kind, payload, file: `${at}-1-${kind}.json` });
  it("is FIFO: a queued prompt does not steal the running turn's stop", () => {
    const history = interpretEvents([
      ev(1, 'session'),
      ev(2, 'sent', { turn: 1, prompt: 'a' }),
      ev(3, 'prompt'),
      ev(4, 'sent', { turn: 2, prompt: 'b' }),
      ev(5, 'prompt'),
      ev(6, 'stop'),
      ev(7, 'stop'),
    ]);
    expect(history.turns.map((t) => [t.turn, t.promptEvent?.at, t.endEvent?.at])).toEqual([
      [1, 3n, 6n],
      [2, 5n, 7n],
    ]);
  });
  it('ignores stops of turns umbel did not send, and keeps input events with the running turn', () => {
    const history = interpretEvents([ev(1, 'stop'), ev(2, 'sent', { turn: 1, prompt: 'a' }), ev(3, 'permission'), ev(4, 'exit', { status: 0 })]);
    expect(history.turns[0]?.endEvent).toBeUndefined();
    expect(history.turns[0]?.inputEvents).toHaveLength(1);
    expect(history.exit?.payload).toEqual({ status: 0 });
  });
});

describe('turns ended without a hook', () => {
  const ev = (at: number, kind: string, payload: unknown = {}): StoredEvent => ({ at: BigInt(at), kind, payload, file: `${at}-1-${kind}.json` });
  it("an 'ended' event closes its turn even when written after the next turn's stop", () => {
    const history = interpretEvents([
      ev(1, 'sent', { turn: 1, prompt: 'a' }),
      ev(2, 'prompt'),
      ev(3, 'sent', { turn: 2, prompt: 'b' }),
      ev(4, 'prompt'),
      ev(5, 'stop'),
      ev(6, 'ended', { turn: 1, reason: 'interrupted' }),
    ]);
    expect(history.turns.map((t) => [t.turn, t.endEvent?.kind])).toEqual([
      [1, 'ended'],
      [2, 'stop'],
    ]);
  });
});
