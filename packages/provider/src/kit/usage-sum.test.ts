import { describe, expect, it } from 'vitest';
import { sumUsage } from './usage-sum.js';

const NAMES = { input_tokens: 'inputTokens', output_tokens: 'outputTokens' } as const;

describe('sumUsage', () => {
  it('adds every record up by the names, skipping what is no record or no number', () => {
    const records = [{ input_tokens: 3, output_tokens: 1, total: 9 }, undefined, 'x', { input_tokens: 4, output_tokens: 'n' }];
    expect(sumUsage(records, NAMES)).toEqual({ inputTokens: 7, outputTokens: 1 });
  });

  it('is undefined when no record names a number', () => {
    expect(sumUsage([], NAMES)).toBeUndefined();
    expect(sumUsage([{ total: 9 }, null], NAMES)).toBeUndefined();
  });
});
