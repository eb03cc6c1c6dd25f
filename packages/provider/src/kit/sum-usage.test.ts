import { describe, expect, it } from 'vitest';
import { sumUsage } from './sum-usage.js';

const NAMES = { input_tokens: 'inputTokens', output_tokens: 'outputTokens' } as const;

describe('sumUsage', () => {
  it('adds every record up by the names, skipping what is no record or no number', () => {
    const records = [{ input_tokens: 3, output_tokens: 1, total: 9 }, undefined, 'x', { input_tokens: 4, output_tokens: 'n' }];
    expect(sumUsage(records, NAMES)).toEqual({ inputTokens: 7, outputTokens: 1 });
  });

  it('is undefined when no record names a number, unless every name is asked for', () => {
    expect(sumUsage([], NAMES)).toBeUndefined();
    expect(sumUsage([{ total: 9 }, null], NAMES)).toBeUndefined();
    expect(sumUsage([], { n: 'inputTokens' }, { every: true })).toEqual({ inputTokens: 0 });
  });

  it('sums each dotted path over the records; `every` names every neutral name (0 when none has it)', () => {
    const records = [{ tokens: { input: 3, cache: { read: 1 } }, cost: 0.5 }, { tokens: { input: 4, output: 2 } }, undefined, { tokens: 'x' }];
    const names = {
      'tokens.input': 'inputTokens',
      'tokens.output': 'outputTokens',
      'tokens.cache.read': 'cacheReadTokens',
      'tokens.cache.write': 'cacheCreationTokens',
      cost: 'costUsd',
    } as const;
    expect(sumUsage(records, names, { every: true })).toEqual({ inputTokens: 7, outputTokens: 2, cacheReadTokens: 1, cacheCreationTokens: 0, costUsd: 0.5 });
    expect(sumUsage(records, names)).toEqual({ inputTokens: 7, outputTokens: 2, cacheReadTokens: 1, costUsd: 0.5 });
  });

  it('counts finite numbers only; two fields of one neutral name add up', () => {
    expect(sumUsage([{ n: 1 }, { n: Number.NaN }, { n: '2' }, { n: Number.POSITIVE_INFINITY }], { n: 'inputTokens' })).toEqual({ inputTokens: 1 });
    expect(sumUsage([{ a: 1, b: 2 }, { a: 3 }], { a: 'inputTokens', b: 'inputTokens' })).toEqual({ inputTokens: 6 });
  });
});
