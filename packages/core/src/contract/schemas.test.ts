import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  DurationSchema,
  EnvArgsSchema,
  type Outcome,
  type OutcomeReason,
  OutcomeSchema,
  parseDuration,
  SpawnOptionsSchema,
  WorkerNameSchema,
} from './schemas.js';
import { resolveWorkerEnv } from '../engine/env.js';

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
    expect(DurationSchema.parse('8760h')).toBe(8760 * 3_600_000);
    for (const long of ['999999999999999h', '8761h', `${'9'.repeat(400)}s`, 1e300]) {
      const parsed = DurationSchema.safeParse(long);
      expect(parsed.success, String(long)).toBe(false);
      expect(parsed.error?.issues[0]?.message).toMatch(/too long a duration \(at most 8760h/);
    }
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

describe('Outcome: a discriminated union on reason, one schema', () => {
  const completed = { worker: 'w1', provider: 'mock', turn: 1, reason: 'completed', exitCode: 0, result: 'the answer', durationMs: 5 } as const;

  it('completed narrows to a string result; the other reasons keep it optional', () => {
    const o: Outcome = OutcomeSchema.parse(completed) as Outcome;
    if (o.reason === 'completed') {
      const answer: string = o.result;
      expect(answer).toBe('the answer');
    }
    expectTypeOf<Extract<Outcome, { reason: 'completed' }>['result']>().toEqualTypeOf<string>();
    expectTypeOf<Exclude<Outcome, { reason: 'completed' }>['result']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Outcome['reason']>().toEqualTypeOf<OutcomeReason>();
  });

  it('the one schema is an object whose shape names every field (MCP registers it as an output schema)', () => {
    expect(Object.keys(OutcomeSchema.shape)).toEqual(expect.arrayContaining(['worker', 'reason', 'exitCode', 'result', 'paneTail']));
    expect(OutcomeSchema.safeParse({ ...completed, reason: 'timeout', exitCode: 124, result: undefined }).success).toBe(true);
  });
});

describe('own event quota', () => {
  it('names at least one window; never an empty reading', async () => {
    const { parseOwnEvent } = await import('../ledger/own-events.js');
    expect(parseOwnEvent('quota', { turn: 1, fiveHour: { usedPercent: 42, resetsAt: 1800000000 } })).toHaveProperty('event');
    expect(parseOwnEvent('quota', { turn: 1, sevenDay: { usedPercent: 13 } })).toHaveProperty('event');
    expect(parseOwnEvent('quota', { turn: 1 })).toHaveProperty('problem');
    expect(parseOwnEvent('quota', { turn: 1, fiveHour: { usedPercent: -1 } })).toHaveProperty('problem');
  });
});
