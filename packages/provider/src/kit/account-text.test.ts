import { describe, expect, it } from 'vitest';
import { accountErrorOfText } from './account-text.js';

describe('accountErrorOfText: an account failure an error text shows, as data', () => {
  const facts = {
    status: /\[API Error: [\s\S]*?"code"\s*:\s*(\d{3})\b[\s\S]*\]/,
    patterns: [
      { match: /"reason"\s*:\s*"API_KEY_INVALID"/, kind: 'auth-failed' },
      { match: /daily quota/i, kind: 'rate-limited' },
    ],
  } as const;

  it('the status the text carries: 429 rate-limited, 401 and 403 auth-failed, the first one counting', () => {
    expect(accountErrorOfText('[API Error: {"error":{"code":429}}]', facts)).toEqual({ kind: 'rate-limited' });
    expect(accountErrorOfText('[API Error: {"code": 403, "x": {"code": 429}}]', facts)).toEqual({ kind: 'auth-failed' });
    expect(accountErrorOfText('[API Error: {"code":500}]', facts)).toBeUndefined();
  });

  it('else the first pattern that matches; nothing matching is no account error', () => {
    expect(accountErrorOfText('[API Error: {"code":400,"reason":"API_KEY_INVALID"}]', facts)).toEqual({ kind: 'auth-failed' });
    expect(accountErrorOfText('You have exhausted your Daily Quota', facts)).toEqual({ kind: 'rate-limited' });
    expect(accountErrorOfText('[API Error: {"reason":"API_KEY_INVALID"}] daily quota', facts)).toEqual({ kind: 'auth-failed' });
    expect(accountErrorOfText('[API Error: {"code":429,"reason":"API_KEY_INVALID"}]', facts)).toEqual({ kind: 'rate-limited' });
    expect(accountErrorOfText('"code":429 but no API error', facts)).toBeUndefined();
    expect(accountErrorOfText('boom', {})).toBeUndefined();
  });
});
