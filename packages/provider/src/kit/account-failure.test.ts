import { describe, expect, it } from 'vitest';
import { accountFailure } from './account-failure.js';

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
