import { describe, expect, it } from 'vitest';
import { accountError, accountErrorOfStatus, accountFailure, isoOfEpoch } from './account.js';

describe('account helpers', () => {
  it('429 is rate-limited, 401 and 403 auth-failed, anything else no account error', () => {
    expect(accountErrorOfStatus(429)).toBe('rate-limited');
    expect(accountErrorOfStatus(401)).toBe('auth-failed');
    expect(accountErrorOfStatus(403)).toBe('auth-failed');
    for (const status of [undefined, 400, 404, 500, 529]) expect(accountErrorOfStatus(status)).toBeUndefined();
  });

  it('epoch seconds and milliseconds become ISO; anything else is no time', () => {
    expect(isoOfEpoch(1796127619)).toBe('2026-12-01T12:20:19.000Z');
    expect(isoOfEpoch(1796127619000)).toBe('2026-12-01T12:20:19.000Z');
    for (const value of [undefined, null, 0, -5, Number.NaN, '1796127619']) expect(isoOfEpoch(value)).toBeUndefined();
  });

  it('accountError carries resetsAt and limit only when given', () => {
    expect(accountError('auth-failed')).toEqual({ kind: 'auth-failed' });
    expect(accountError('rate-limited', '2026-12-01T12:20:19.000Z', 'five_hour')).toEqual({
      kind: 'rate-limited',
      resetsAt: '2026-12-01T12:20:19.000Z',
      limit: 'five_hour',
    });
  });
});

describe('accountFailure', () => {
  it('keeps the reset and the limit for a rate limit only, and is undefined without a kind', () => {
    expect(accountFailure('rate-limited', '2026-12-06T10:00:00.000Z', 'five_hour')).toEqual({
      kind: 'rate-limited',
      resetsAt: '2026-12-06T10:00:00.000Z',
      limit: 'five_hour',
    });
    expect(accountFailure('rate-limited')).toEqual({ kind: 'rate-limited' });
    expect(accountFailure('auth-failed', '2026-12-06T10:00:00.000Z', 'five_hour')).toEqual({ kind: 'auth-failed' });
    expect(accountFailure(undefined, '2026-12-06T10:00:00.000Z')).toBeUndefined();
  });
});
