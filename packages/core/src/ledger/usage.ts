/**
 * Usage: the one place a provider's token counts become the outcome's `usage`. The typed
 * {@link ProviderV1Usage} is taken as it is; a legacy record (Claude's field names) is mapped.
 */
import type { ProviderV1TurnRead, ProviderV1Usage } from '@umbel/provider';
import type { Usage } from '../contract/schemas.js';

type Completed = Extract<ProviderV1TurnRead, { status: 'completed' }>;

/** Claude's (legacy) usage names → umbel's. */
const LEGACY_NAMES: Readonly<Record<string, keyof ProviderV1Usage>> = {
  input_tokens: 'inputTokens',
  output_tokens: 'outputTokens',
  cache_read_input_tokens: 'cacheReadTokens',
  cache_creation_input_tokens: 'cacheCreationTokens',
  cost_usd: 'costUsd',
};

function numbers(record: object, rename: (key: string) => string): Usage | undefined {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(record)) if (typeof value === 'number' && Number.isFinite(value)) out[rename(key)] = value;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The outcome usage of a completed read: its typed usage, else its legacy record mapped; undefined without either. */
export function outcomeUsage(read: Pick<Completed, 'usage' | 'tokenUsage'>): Usage | undefined {
  if (read.tokenUsage) return numbers(read.tokenUsage, (key) => key);
  if (read.usage) return numbers(read.usage, (key) => LEGACY_NAMES[key] ?? key);
  return undefined;
}
