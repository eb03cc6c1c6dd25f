import { describe, expect, it } from 'vitest';
import { namedQuota } from './named-quota.js';

const NAMES = { fiveHour: 'five_hour', sevenDay: 'seven_day' };

describe('namedQuota', () => {
  it('reads each window under its name, with its reset when given', () => {
    const limits = { five_hour: { used_percentage: 42, resets_at: 1700000000 }, seven_day: { used_percentage: 7 } };
    expect(namedQuota(limits, NAMES, 'used_percentage')).toEqual({ fiveHour: { usedPercent: 42, resetsAt: 1700000000 }, sevenDay: { usedPercent: 7 } });
    expect(namedQuota({ seven_day: { used_percent: 100 } }, NAMES)).toEqual({ sevenDay: { usedPercent: 100 } });
  });

  it('is undefined when no window has a used percent (or the value is no record)', () => {
    expect(namedQuota({ five_hour: { resets_at: 1 }, other: { used_percentage: 5 } }, NAMES, 'used_percentage')).toBeUndefined();
    expect(namedQuota(undefined, NAMES)).toBeUndefined();
    expect(namedQuota('x', NAMES)).toBeUndefined();
  });
});
