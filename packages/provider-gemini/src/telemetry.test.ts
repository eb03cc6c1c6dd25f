// Gemini CLI's local telemetry file, recorded from the real 0.61.0 TUI against the Gemini mock
// (test-fixtures/real/recorded/account/gemini-429*-telemetry.log, general.maxAttempts 3; ACCOUNT-FACTS.md
// §3.2): one `gemini_cli.api_error` log record per failed attempt, which the chat never shows.
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { geminiApiAttempts, geminiMaxAttempts, rateLimitRound } from './telemetry.js';

function recorded(name: string): string {
  return readFileSync(new URL(`../../../test-fixtures/real/recorded/account/gemini-${name}-telemetry.log`, import.meta.url), 'utf8');
}
/** The BeforeAgent timestamps of the recorded turns (when the CLI accepted each prompt). */
const ACCEPTED = { '429': '2026-12-01T19:35:32.022Z', '429-retry-info': '2026-12-01T19:37:40.798Z', '429-x2': '2026-12-01T19:38:21.431Z' };
const QUOTA_TEXT = 'You exceeded your current quota, please check your plan and billing details.';

describe('gemini telemetry: the main model attempts', () => {
  it('the same telemetry text read again (a wait tick with no new batch) is not parsed again', () => {
    const text = recorded('429');
    const first = geminiApiAttempts(text);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(geminiApiAttempts(text)).toEqual(first);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });

  it('a persistent 429: every attempt is an api_error 429 with the API body (the classifier call is not the main role)', () => {
    const attempts = geminiApiAttempts(recorded('429'));
    expect(attempts.length).toBe(7);
    expect(attempts.every((a) => a.outcome === 'error' && a.status === 429)).toBe(true);
    expect(attempts[0]?.message).toBe(QUOTA_TEXT);
  });

  it('a tail cut mid-record skips the broken first record', () => {
    const text = recorded('429');
    const cut = text.slice(text.indexOf('"gemini_cli.api_error"') - 50);
    expect(geminiApiAttempts(cut).length).toBe(6);
  });

  it('two 429s then an answer: two errors and a 200 response', () => {
    expect(geminiApiAttempts(recorded('429-x2')).map((a) => `${a.outcome}:${a.status}`)).toEqual(['error:429', 'error:429', 'response:200']);
  });
});

describe('rateLimitRound: a whole round of the retry budget spent on 429s', () => {
  it('7 attempts with maxAttempts 3: rate-limited, with the API error message', () => {
    expect(rateLimitRound(recorded('429'), { since: ACCEPTED['429'], maxAttempts: 3 })).toEqual({ message: QUOTA_TEXT, attempts: 7 });
  });

  it('429 with RetryInfo: the same', () => {
    expect(rateLimitRound(recorded('429-retry-info'), { since: ACCEPTED['429-retry-info'], maxAttempts: 3 })).toMatchObject({ attempts: 5 });
  });

  it('fewer 429s than maxAttempts: not yet', () => {
    expect(rateLimitRound(recorded('429'), { since: ACCEPTED['429'], maxAttempts: 10 })).toBeUndefined();
  });

  it('429s followed by a success: none (the turn goes on)', () => {
    expect(rateLimitRound(recorded('429-x2'), { since: ACCEPTED['429-x2'], maxAttempts: 2 })).toBeUndefined();
  });

  it("an earlier turn's 429s do not count", () => {
    expect(rateLimitRound(recorded('429'), { since: '2026-12-01T19:40:00.000Z', maxAttempts: 3 })).toBeUndefined();
  });

  it('no telemetry: none', () => {
    expect(rateLimitRound('', { since: ACCEPTED['429'], maxAttempts: 1 })).toBeUndefined();
  });
});

describe('geminiMaxAttempts: general.maxAttempts of the worker settings', () => {
  it('reads it, defaults to 10, caps at 10', () => {
    expect(geminiMaxAttempts('{"general":{"maxAttempts":3}}')).toBe(3);
    expect(geminiMaxAttempts('{"general":{}}')).toBe(10);
    expect(geminiMaxAttempts(undefined)).toBe(10);
    expect(geminiMaxAttempts('{"general":{"maxAttempts":50}}')).toBe(10);
    expect(geminiMaxAttempts('not json')).toBe(10);
  });
});
