/**
 * Billing: which variables bill the API (the provider's facts), the verdict spawn records in the
 * `ready` event, the guard of `billing: subscription`, and the endpoint shown in status. Pure.
 */
import { BillingRefusedError } from '../contract/errors.js';
import type { Provider, ProviderV1BillingReport } from '@umbel/provider';
import { guarded } from '../engine/provider-guard.js';
import type { BillingGuard } from '../contract/schemas.js';

/** The provider's API-billing variables present in the worker env (names only). */
export function apiEnvIn(provider: Provider, env: Readonly<Record<string, string>>): string[] {
  return (provider.billing?.apiEnv ?? []).filter((name) => env[name] !== undefined && env[name] !== '');
}

/** Before any I/O: a guarded spawn given an API-billing variable is refused at once. */
export function refuseApiEnv(provider: Provider, env: Readonly<Record<string, string>>, guard: BillingGuard, worker: string): void {
  if (guard !== 'subscription') return;
  const names = apiEnvIn(provider, env);
  if (names.length) throw new BillingRefusedError(worker, `${names.join(', ')} passed to the worker`);
}

/**
 * After the ready prompt: a guarded worker that bills the API is refused (the caller unwinds it), and
 * so is one whose billing is unknown — the guard cannot tell it does not bill the API — unless the
 * provider declares that its CLI bills only a subscription (`billing.subscriptionOnly`).
 */
export function refuseApiBilling(provider: Provider, report: ProviderV1BillingReport, guard: BillingGuard, worker: string, removed = true): void {
  if (guard !== 'subscription') return;
  if (report.billing === 'api') throw new BillingRefusedError(worker, report.evidence, removed);
  if (report.billing === 'unknown' && provider.billing?.subscriptionOnly !== true) {
    throw new BillingRefusedError(worker, report.evidence, removed, 'unknown');
  }
}

/** The verdict on the ready screen; `unknown` when the provider cannot tell. */
export function detectBilling(provider: Provider, screen: string, envNames: readonly string[], launch?: ProviderV1BillingReport): ProviderV1BillingReport {
  const report = provider.doDetectBilling
    ? guarded(provider, 'doDetectBilling', () => provider.doDetectBilling?.({ screen, envNames, ...(launch ? { launch } : {}) }))
    : launch;
  return report ?? { billing: 'unknown' };
}

/** A base URL with its user, password, query and fragment removed (a key may hide in any of them); undefined when not a URL. */
export function safeEndpoint(value: string): string | undefined {
  try {
    const url = new URL(value);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    return url.toString();
  } catch {
    return undefined;
  }
}

/** The endpoint the worker calls: the first of the provider's endpoint variables set in its env, else what its launch's config names. */
export function endpointOf(provider: Provider, env: Readonly<Record<string, string>>, launch?: string): string | undefined {
  for (const name of provider.billing?.endpointEnv ?? []) {
    const value = env[name];
    if (value) return safeEndpoint(value);
  }
  return launch ? safeEndpoint(launch) : undefined;
}
