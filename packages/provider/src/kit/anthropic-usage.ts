/** The usage record of Anthropic's Messages API (Claude Code's transcript, the spec's legacy `usage`), for `addUsage`. */
import type { ProviderV1Usage } from '../spec.js';

/** Its field names → the neutral ones. */
export const ANTHROPIC_USAGE_NAMES = {
  input_tokens: 'inputTokens',
  output_tokens: 'outputTokens',
  cache_creation_input_tokens: 'cacheCreationTokens',
  cache_read_input_tokens: 'cacheReadTokens',
} as const satisfies Record<string, keyof ProviderV1Usage>;
