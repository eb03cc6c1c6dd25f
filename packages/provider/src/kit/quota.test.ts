import { describe, expect, it } from 'vitest';
import { quotaWindow, usedUpReset } from './quota.js';

describe('quota windows', () => {
  it('reads a window by its used-percent key, its reset only when it is a finite number', () => {
    expect(quotaWindow({ used_percent: 42, resets_at: 1700000000 })).toEqual({ usedPercent: 42, resetsAt: 1700000000 });
    expect(quotaWindow({ used_percentage: 7, resets_at: 'soon' }, 'used_percentage')).toEqual({ usedPercent: 7 });
    expect(quotaWindow({ used_percentage: 7 })).toBeUndefined();
    expect(quotaWindow(null)).toBeUndefined();
  });

  it('the latest reset among the used-up windows, as ISO', () => {
    const full = (resetsAt: number) => ({ usedPercent: 100, resetsAt });
    expect(usedUpReset([full(1700000000), { usedPercent: 99, resetsAt: 1800000000 }, full(1700000600)])).toBe(new Date(1700000600 * 1000).toISOString());
    expect(usedUpReset([{ usedPercent: 99, resetsAt: 1 }, { usedPercent: 100 }, undefined])).toBeUndefined();
  });
});
