import { describe, expect, it } from 'vitest';
import { DurationSchema, EnvArgsSchema, parseDuration, SpawnOptionsSchema, WorkerNameSchema } from './schemas.js';
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
