/**
 * The `-p --output-format json` result object against the real `claude -p` output recorded in
 * test-fixtures/real/recorded/ (Claude Code 2.1.328): every key claude prints is in ours, except
 * the keys docs/cli.md lists as absent (with why), and each shared key has the same JSON type.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Outcome } from '@umbel/core';
import { describe, expect, it } from 'vitest';
import { printExitCode, resultObject } from './print-result.js';

const root = join(import.meta.dirname, '..', '..', '..');
const recorded = (file: string): Record<string, unknown> => JSON.parse(readFileSync(join(root, 'test-fixtures/real/recorded', file), 'utf8'));

/** The keys docs/cli.md says `umbel -p` does not print: the first column of its absent-keys table. */
function documentedAbsentKeys(): string[] {
  const doc = readFileSync(join(root, 'docs/cli.md'), 'utf8');
  const start = doc.indexOf('<!-- absent-keys -->');
  const end = doc.indexOf('<!-- /absent-keys -->');
  expect(start, 'docs/cli.md has the absent-keys table').toBeGreaterThan(0);
  return [...doc.slice(start, end).matchAll(/^\| ((?:`[a-z_]+`(?:, )?)+) \|/gm)].flatMap((m) =>
    [...(m[1] as string).matchAll(/`([a-z_]+)`/g)].map((k) => k[1] as string),
  );
}

/** JSON type of a value: null, array, or typeof. */
const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

const base = { worker: 'anon-1', provider: 'claude', turn: 1, durationMs: 300, sessionId: 'a0f1022a-32ef-41cc-8efb-15a71df0c4a6' } as const;
const completed: Outcome = {
  ...base,
  reason: 'completed',
  exitCode: 0,
  result: 'hi',
  model: 'claude-opus-5-5',
  stopReason: 'end_turn',
  usage: { inputTokens: 11961, outputTokens: 8, cacheReadTokens: 0, cacheCreationTokens: 0 },
  numTurns: 1,
};
const apiError: Outcome = {
  ...base,
  reason: 'provider-error',
  exitCode: 122,
  message: 'API Error: 500 mock boom.',
  stopReason: 'stop_sequence',
  apiErrorStatus: 500,
  apiErrorType: 'api_error',
};

describe('umbel -p --output-format json against the recorded claude -p', () => {
  const absent = documentedAbsentKeys();

  it('the documented absent keys are real claude -p keys (no stale entry)', () => {
    expect(absent.length).toBeGreaterThan(0);
    const real = new Set([...Object.keys(recorded('claude-p-json.json')), ...Object.keys(recorded('claude-p-error-500-json.json'))]);
    for (const key of absent) expect(real.has(key), key).toBe(true);
  });

  for (const [name, file, outcome] of [
    ['a completed turn', 'claude-p-json.json', completed],
    ['an API error (500)', 'claude-p-error-500-json.json', apiError],
  ] as const) {
    it(`${name}: every claude key but the documented absent ones, with the same JSON types`, () => {
      const real = recorded(file);
      const ours = resultObject(outcome, { durationMs: 325 });
      const expected = Object.keys(real)
        .filter((k) => !absent.includes(k))
        .sort();
      const shared = Object.keys(ours)
        .filter((k) => k in real)
        .sort();
      expect(shared).toEqual(expected);
      for (const key of shared) expect(`${key}: ${typeOf(ours[key])}`).toBe(`${key}: ${typeOf(real[key])}`);
    });
  }

  it('carries what the transcript says: stop_reason, api_error_status/type, modelUsage by model', () => {
    expect(resultObject(completed, { durationMs: 1 })).toMatchObject({
      stop_reason: 'end_turn',
      api_error_status: null,
      modelUsage: { 'claude-opus-5-5': { inputTokens: 11961, outputTokens: 8, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 } },
    });
    const failed = resultObject(apiError, { durationMs: 1 });
    expect(failed).toMatchObject({ stop_reason: 'stop_sequence', api_error_status: 500, api_error_type: 'api_error', modelUsage: {} });
    // a provider that records none of it (codex, gemini): null, as claude prints an unknown value
    const bare = resultObject({ ...base, reason: 'completed', exitCode: 0, result: 'x', provider: 'codex' }, { durationMs: 1 });
    expect(bare).toMatchObject({ stop_reason: null, api_error_status: null, modelUsage: {} });
    expect(bare).not.toHaveProperty('api_error_type');
  });
});

describe('umbel -p on an account failure', () => {
  const limited: Outcome = {
    ...base,
    reason: 'rate-limited',
    exitCode: 118,
    message: "You've hit your 5-hour limit · resets 2:17pm (UTC)",
    stopReason: 'stop_sequence',
    apiErrorStatus: 429,
    apiErrorType: 'rate_limit_error',
    resetsAt: '2026-12-01T14:17:00.000Z',
    limit: 'five_hour',
  };
  const refused: Outcome = { ...base, reason: 'auth-failed', exitCode: 119, message: 'Invalid API key · Fix external API key', apiErrorStatus: 401 };

  it("keeps claude -p's contract (is_error, the message as result, subtype success, api_error) and adds the reason and reset under umbel", () => {
    const real = (recorded('account/claude-p-usage-limit-json.json').stdout ?? {}) as Record<string, unknown>;
    const ours = resultObject(limited, { durationMs: 1 });
    for (const key of ['type', 'subtype', 'is_error', 'result', 'terminal_reason', 'api_error_status', 'api_error_type', 'stop_reason'])
      expect(`${key}: ${JSON.stringify(ours[key])}`).toBe(`${key}: ${JSON.stringify(key === 'result' ? limited.message : real[key])}`);
    expect(ours.umbel).toMatchObject({ reason: 'rate-limited', exit_code: 118, resets_at: '2026-12-01T14:17:00.000Z', limit: 'five_hour' });
    expect(printExitCode(limited)).toBe(118);
  });

  it('auth-failed: the same contract, its own reason and code, no reset', () => {
    const real = (recorded('account/claude-p-401-json.json').stdout ?? {}) as Record<string, unknown>;
    const ours = resultObject(refused, { durationMs: 1 });
    expect(ours).toMatchObject({ is_error: true, subtype: real.subtype, terminal_reason: real.terminal_reason, result: real.result });
    expect(ours.umbel).toMatchObject({ reason: 'auth-failed', exit_code: 119 });
    expect(ours.umbel).not.toHaveProperty('resets_at');
    expect(printExitCode(refused)).toBe(119);
  });
});

describe('usage keys', () => {
  it("uses only claude -p's snake_case keys, also for counts claude does not have (reasoning tokens, a provider's own)", () => {
    const outcome: Outcome = {
      ...completed,
      usage: { inputTokens: 5, outputTokens: 7, reasoningTokens: 3, cacheReadTokens: 1, costUsd: 0.5, webSearchRequests: 2 },
    };
    const usage = resultObject(outcome, { durationMs: 1 }).usage as Record<string, number>;
    expect(usage).toEqual({
      input_tokens: 5,
      output_tokens: 7,
      reasoning_tokens: 3,
      cache_read_input_tokens: 1,
      cache_creation_input_tokens: 0,
      web_search_requests: 2,
    });
    for (const key of Object.keys(usage)) expect(key).toMatch(/^[a-z_]+$/);
  });
});
