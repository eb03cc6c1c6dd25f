import { describe, expect, it } from 'vitest';
import { sumUsage } from './sum-usage.js';

describe('sumUsage', () => {
  it('sums each dotted path over the records, naming every neutral name (0 when none has it)', () => {
    const records = [{ tokens: { input: 3, cache: { read: 1 } }, cost: 0.5 }, { tokens: { input: 4, output: 2 } }, undefined, { tokens: 'x' }];
    const names = {
      'tokens.input': 'inputTokens',
      'tokens.output': 'outputTokens',
      'tokens.cache.read': 'cacheReadTokens',
      'tokens.cache.write': 'cacheCreationTokens',
      cost: 'costUsd',
    } as const;
    expect(sumUsage(records, names)).toEqual({ inputTokens: 7, outputTokens: 2, cacheReadTokens: 1, cacheCreationTokens: 0, costUsd: 0.5 });
  });

  it('counts finite numbers only', () => {
    expect(sumUsage([{ n: 1 }, { n: Number.NaN }, { n: '2' }, { n: Number.POSITIVE_INFINITY }], { n: 'inputTokens' })).toEqual({ inputTokens: 1 });
    expect(sumUsage([], { n: 'inputTokens' })).toEqual({ inputTokens: 0 });
  });
});
