import { describe, expect, it } from 'vitest';
import { accountKindOf, payloadAccountError } from './account-names.js';

const NAMES = { rate_limit: 'rate-limited', authentication_failed: 'auth-failed' } as const;

describe('account errors by name', () => {
  it('a known name says the kind; an unknown name is none, whatever the status', () => {
    expect(accountKindOf(NAMES, 'rate_limit')).toBe('rate-limited');
    expect(accountKindOf(NAMES, 'authentication_failed', 500)).toBe('auth-failed');
    expect(accountKindOf(NAMES, 'overloaded', 429)).toBeUndefined();
    expect(accountKindOf(NAMES, 'toString')).toBeUndefined();
  });

  it('without a name, the HTTP status says it', () => {
    expect(accountKindOf(NAMES, undefined, 429)).toBe('rate-limited');
    expect(accountKindOf(NAMES, undefined, 403)).toBe('auth-failed');
    expect(accountKindOf(NAMES, undefined, 500)).toBeUndefined();
    expect(accountKindOf(NAMES, undefined)).toBeUndefined();
  });

  it('the payload fact reads the name in its field', () => {
    const account = payloadAccountError('error', NAMES);
    expect(account({ error: 'rate_limit' })).toEqual({ kind: 'rate-limited' });
    expect(account({ error: 'server_error' })).toBeUndefined();
    expect(account({})).toBeUndefined();
  });
});
