import { describe, expect, it } from 'vitest';
import { readRecorded } from './__fixtures__/recorded.js';
import { codexQuota } from './quota.js';

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
