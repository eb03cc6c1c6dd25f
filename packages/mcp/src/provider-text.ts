/**
 * Texts that name the engine's providers — the ones actually loaded (built-ins and provider
 * packages), each with the one-line `description` it supplies — for the tool descriptions, the
 * `provider` field of umbel_spawn and `umbel_help providers`.
 */
import { SpawnOptionsSchema, type Umbel } from '@umbel/core';

/** One provider as the texts name it. */
export interface ProviderSummary {
  readonly id: string;
  readonly displayName: string;
  readonly description?: string;
}

/** The engine's providers, in its order. */
export function providerSummaries(engine: Pick<Umbel, 'providerIds' | 'provider'>): ProviderSummary[] {
  return engine.providerIds.map((id) => {
    const provider = engine.provider(id);
    return { id, displayName: provider.displayName, ...(provider.description ? { description: provider.description } : {}) };
  });
}

/** `a, b or c`. */
export function idList(providers: readonly ProviderSummary[]): string {
  const ids = providers.map((p) => p.id);
  return ids.length <= 1 ? (ids[0] ?? 'none') : `${ids.slice(0, -1).join(', ')} or ${ids.at(-1)}`;
}

/** `id (Display name): description`, one per provider. */
export function providerLines(providers: readonly ProviderSummary[]): string[] {
  return providers.map((p) => `${p.id} (${p.displayName})${p.description ? `: ${p.description}` : ''}`);
}

/** The input schema of umbel_spawn: core's, with a `provider` field that lists these providers. */
export function spawnInputSchema(providers: readonly ProviderSummary[]) {
  const text = `Provider id (default claude). Loaded here: ${providerLines(providers).join(' | ')}`;
  return SpawnOptionsSchema.extend({ provider: SpawnOptionsSchema.shape.provider.describe(text) });
}
