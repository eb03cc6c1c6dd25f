import { describe, expect, it } from 'vitest';
import { ANTHROPIC_USAGE_NAMES } from './anthropic-usage.js';
import { addUsage, type UsageTotal } from './messages.js';

describe('ANTHROPIC_USAGE_NAMES', () => {
  it('maps the Messages API usage record to the neutral names', () => {
    const usage = { input_tokens: 3, output_tokens: 5, cache_creation_input_tokens: 7, cache_read_input_tokens: 11, service_tier: 'standard' };
    expect(addUsage({} as UsageTotal, usage, ANTHROPIC_USAGE_NAMES)).toEqual({ inputTokens: 3, outputTokens: 5, cacheCreationTokens: 7, cacheReadTokens: 11 });
  });
});
