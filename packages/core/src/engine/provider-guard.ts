/**
 * The one guard around provider code. A provider is a third party's code over a CLI that changes
 * every few days: whatever it throws becomes a ProviderFailedError naming the provider and the
 * method — except the typed errors a provider throws on purpose (a refused option, a refused
 * prompt), which pass through unchanged.
 */
import { ProviderFailedError, UmbelError } from '../contract/errors.js';
import type { Provider } from '@umbel/provider';

/** Run `fn` (a call into `provider.<method>`), turning an untyped throw into a ProviderFailedError. */
export function guarded<T>(provider: Provider, method: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (UmbelError.isInstance(error)) throw error;
    throw new ProviderFailedError(provider.providerId, method, error);
  }
}

/** The async form of {@link guarded}. */
export async function guardedAsync<T>(provider: Provider, method: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (UmbelError.isInstance(error)) throw error;
    throw new ProviderFailedError(provider.providerId, method, error);
  }
}
