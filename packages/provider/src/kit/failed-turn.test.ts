import { describe, expect, it } from 'vitest';
import { failedTurn } from './failed-turn.js';

describe('failedTurn', () => {
  it('carries the status, the type and the account failure of the status', () => {
    expect(failedTurn({ message: 'slow down', fallback: 'x', status: 429, type: 'APIError' })).toEqual({
      status: 'failed',
      message: 'slow down',
      apiErrorStatus: 429,
      apiErrorType: 'APIError',
      account: { kind: 'rate-limited' },
    });
    expect(failedTurn({ message: 'denied', fallback: 'x', status: 403 })).toMatchObject({ account: { kind: 'auth-failed' } });
  });

  it('the fallback for no message; no status that is no number; a kind named by the CLI wins', () => {
    expect(failedTurn({ message: '', fallback: 'the CLI reported an error', status: '500' })).toEqual({
      status: 'failed',
      message: 'the CLI reported an error',
    });
    expect(failedTurn({ fallback: 'f', status: 429, account: 'auth-failed' })).toEqual({
      status: 'failed',
      message: 'f',
      apiErrorStatus: 429,
      account: { kind: 'auth-failed' },
    });
  });
});
