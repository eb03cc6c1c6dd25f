import { describe, expect, it } from 'vitest';
import { quotaOf, quotaWindow } from './quota.js';

const FIELDS = { used: 'used_percentage', resets: 'resets_at' };

describe('quotaWindow / quotaOf', () => {
  it('reads a window by the given field names; the reset only when it is a number', () => {
    expect(quotaWindow({ used_percentage: 42.5, resets_at: 1_800_000_000 }, FIELDS)).toEqual({ usedPercent: 42.5, resetsAt: 1_800_000_000 });
    expect(quotaWindow({ used_percentage: 0, resets_at: 'soon' }, FIELDS)).toEqual({ usedPercent: 0 });
    expect(quotaWindow({ used_percentage: 1, resets_at: Number.POSITIVE_INFINITY }, FIELDS)).toEqual({ usedPercent: 1 });
    expect(quotaWindow({ used_percent: 3 }, { used: 'used_percent', resets: 'resets_at' })).toEqual({ usedPercent: 3 });
  });
  it('has no window without a finite used percentage', () => {
    expect(quotaWindow({ used_percentage: '42' }, FIELDS)).toBeUndefined();
    expect(quotaWindow({ used_percentage: Number.NaN }, FIELDS)).toBeUndefined();
    expect(quotaWindow(null, FIELDS)).toBeUndefined();
  });
  it('names only the windows found, and is undefined (never {}) with none', () => {
    expect(quotaOf({ fiveHour: { usedPercent: 1 }, sevenDay: undefined })).toEqual({ fiveHour: { usedPercent: 1 } });
    expect(quotaOf({ sevenDay: { usedPercent: 2, resetsAt: 3 } })).toEqual({ sevenDay: { usedPercent: 2, resetsAt: 3 } });
    expect(quotaOf({ fiveHour: undefined, sevenDay: undefined })).toBeUndefined();
  });
});
