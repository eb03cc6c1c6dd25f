// Account failures of the real codex 0.169.0, from its recordings against the Responses mock
// (test-fixtures/real/recorded/account/codex-*.json, ACCOUNT-FACTS.md §2.2): task_complete.error's
// codex_error_info names them; a plan limit's reset is in the turn's token_count.rate_limits.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codexQuota } from './account.js';
import { readCodexTurn } from './rollout.js';

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** A recorded real-codex world (test-fixtures/real/recorded/account/codex-<name>.json). */
const recording = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../../test-fixtures/real/recorded/account/codex-${name}.json`, import.meta.url), 'utf8')) as {
    turns: { rollout: Record<string, unknown>[]; screen: string }[];
  };
/** One recorded turn's rollout, read as umbel reads it. */
const read = (turn: { rollout: Record<string, unknown>[] }) =>
  readCodexTurn({ content: `${turn.rollout.map(({ ordinal: _, ...r }) => JSON.stringify(r)).join('\n')}\n`, ordinal: 1, stopSeen: false });
/** The recorded first turn, read. */
function readRecorded(name: string) {
  const turn = recording(name).turns[0];
  if (!turn) throw new Error(`${name}: no turn`);
  return read(turn);
}

describe('codex account failures (real recordings)', () => {
  it.each(['429', '429-retry-after', '429-insufficient-quota'])('%s: rate-limited, no reset recorded', (name) => {
    const read = readRecorded(name);
    expect(read).toMatchObject({ status: 'failed', account: { kind: 'rate-limited' } });
    expect(read.status === 'failed' && read.account?.resetsAt).toBeUndefined();
  });

  it('a plan limit: rate-limited, reset from the used-up window of token_count.rate_limits', () => {
    expect(readRecorded('usage-limit')).toMatchObject({
      status: 'failed',
      account: { kind: 'rate-limited', resetsAt: iso(1796133882), limit: 'usage_limit_exceeded' },
    });
    expect(readRecorded('usage-limit-chatgpt')).toMatchObject({ account: { kind: 'rate-limited', resetsAt: iso(1796133898) } });
    expect(readRecorded('weekly-limit-chatgpt')).toMatchObject({ account: { kind: 'rate-limited', resetsAt: iso(1796385912) } });
  });

  it.each(['401', '401-chatgpt', '403'])('%s: auth-failed', (name) => {
    expect(readRecorded(name)).toMatchObject({ status: 'failed', account: { kind: 'auth-failed' } });
  });
});

describe('the "Approaching rate limits" dialog (real recordings)', () => {
  it('without [notice] hide_rate_limit_model_nudge a plan limit leaves the blocking dialog on screen', () => {
    expect(recording('usage-limit-chatgpt').turns[0]?.screen).toMatch(/Approaching rate limits[\s\S]*2\. Keep current model/);
  });

  it('with it (what umbel writes) no dialog, and the next prompt is a normal turn', () => {
    const [limited, next] = recording('usage-limit-chatgpt-nudge-hidden').turns;
    if (!limited || !next) throw new Error('two turns expected');
    expect(read(limited)).toMatchObject({ status: 'failed', account: { kind: 'rate-limited' } });
    expect(limited.screen).not.toMatch(/Approaching rate limits/);
    expect(read(next)).toMatchObject({ status: 'completed', answer: 'after the limit' });
    expect(next.screen).not.toMatch(/Approaching rate limits/);
  });
});

// Plan usage of the real codex (ACCOUNT-FACTS.md §2.2): a turn's last token_count.rate_limits.
describe('codex plan usage from the rollout (real recordings)', () => {
  it('a normal answer with usage headers: both windows on the completed turn', () => {
    const read = readRecorded('quota');
    expect(read.status).toBe('completed');
    expect(read.status === 'completed' && read.quota).toEqual({
      fiveHour: { usedPercent: 42, resetsAt: 1796130353 },
      sevenDay: { usedPercent: 13, resetsAt: 1796213153 },
    });
  });

  it('a plan limit: the used-up window on the failed turn', () => {
    const five = readRecorded('usage-limit-chatgpt');
    expect(five).toMatchObject({ status: 'failed', account: { kind: 'rate-limited' } });
    expect(five.status === 'failed' && five.quota).toEqual({ fiveHour: { usedPercent: 100, resetsAt: 1796133898 } });
    const custom = readRecorded('usage-limit');
    expect(custom.status === 'failed' && custom.quota).toEqual({ fiveHour: { usedPercent: 100, resetsAt: 1796133882 } });
    const weekly = readRecorded('weekly-limit-chatgpt');
    expect(weekly.status === 'failed' && weekly.quota).toEqual({ sevenDay: { usedPercent: 100, resetsAt: 1796385912 } });
  });

  it.each(['auth-provider-key', 'auth-apikey', 'auth-chatgpt', '429', '401'])('%s: no windows, no quota key at all', (name) => {
    const read = readRecorded(name);
    expect(['completed', 'failed']).toContain(read.status);
    expect(read).not.toHaveProperty('quota');
  });
});

describe('codexQuota', () => {
  const w = (used_percent: number, window_minutes: unknown, resets_at: unknown = 1_800_000_000) => ({ used_percent, window_minutes, resets_at });

  it('maps by window length, not by primary/secondary', () => {
    expect(codexQuota({ primary: w(7, 10_080), secondary: w(3, 300) })).toEqual({
      fiveHour: { usedPercent: 3, resetsAt: 1_800_000_000 },
      sevenDay: { usedPercent: 7, resetsAt: 1_800_000_000 },
    });
  });

  it('drops a window of another length or with no window_minutes (never guessed)', () => {
    expect(codexQuota({ primary: w(50, 60), secondary: w(10, undefined) })).toBeUndefined();
    expect(codexQuota({ primary: w(50, 300), secondary: w(10, 1440) })).toEqual({ fiveHour: { usedPercent: 50, resetsAt: 1_800_000_000 } });
  });

  it('keeps a window without a reset time, drops one without a percent', () => {
    expect(codexQuota({ primary: w(20, 300, null) })).toEqual({ fiveHour: { usedPercent: 20 } });
    expect(codexQuota({ primary: { window_minutes: 300, resets_at: 1 } })).toBeUndefined();
  });

  it('null windows (an API key) or no record: undefined, never an empty object', () => {
    expect(codexQuota({ primary: null, secondary: null })).toBeUndefined();
    expect(codexQuota(undefined)).toBeUndefined();
  });
});
