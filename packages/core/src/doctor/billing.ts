/**
 * Which billing a worker would get, and which custom endpoint it would use, from the environment
 * it would be started with, by the provider's billing facts (the name rules only for a provider
 * that declares none).
 */

import type { Provider, ProviderV1BillingSpec } from '@umbel/provider';

/** For a provider that declares no billing facts: variables that carry an API key or token. */
const API_KEY_NAME = /(^|_)(API_KEY|AUTH_TOKEN)$/;
/** For a provider that declares no endpoint variables: names that point a CLI at another endpoint. */
const ENDPOINT_NAME = /(^|_)(BASE_URL|ENDPOINT|API_BASE)$/;

/** The billing a worker would get: `api` names the variable passed; `withheld` one the caller has set but a worker never inherits. */
export interface BillingVerdict {
  readonly billing: 'api' | 'subscription';
  readonly variable?: string;
  readonly withheld?: string;
}

type Env = Readonly<Record<string, string | undefined>>;
const isSet = (env: Env, name: string) => (env[name] ?? '') !== '';

/**
 * From the provider's billing facts (its `apiEnv`: never inherited, passed only by name) and the env
 * the worker would get; a provider without facts falls back to the name rule. Never a value.
 */
export function billingOf(workerEnv: Env, spec?: ProviderV1BillingSpec, callerEnv: Env = {}): BillingVerdict {
  if (!spec) {
    const variable = Object.keys(workerEnv)
      .sort()
      .find((name) => API_KEY_NAME.test(name) && isSet(workerEnv, name));
    return variable ? { billing: 'api', variable } : { billing: 'subscription' };
  }
  const variable = spec.apiEnv.find((name) => isSet(workerEnv, name));
  if (variable) return { billing: 'api', variable };
  const withheld = spec.apiEnv.find((name) => isSet(callerEnv, name));
  return withheld ? { billing: 'subscription', withheld } : { billing: 'subscription' };
}

/** The endpoint variables the worker would get (the provider's own, else by name), URLs stripped of any user:password. */
export function endpointsOf(workerEnv: Env, spec?: ProviderV1BillingSpec): { readonly variable: string; readonly url: string }[] {
  const names = spec?.endpointEnv ? [...spec.endpointEnv] : Object.keys(workerEnv).filter((name) => ENDPOINT_NAME.test(name));
  return names
    .sort()
    .filter((name) => isSet(workerEnv, name))
    .map((variable) => ({ variable, url: withoutCredentials(workerEnv[variable] as string) }));
}

function withoutCredentials(value: string): string {
  try {
    const url = new URL(value);
    if (url.username || url.password) {
      url.username = '';
      url.password = '';
    }
    url.search = '';
    return url.toString();
  } catch {
    return '(not a URL)';
  }
}

/**
 * The billing check's detail, from the env the worker would get and the provider's declared facts:
 * one that declares its billing unknowable before its CLI starts (opencode: its stored logins decide)
 * is `unknown` with its reason unless an API-billing variable would be passed.
 */
export function billingDetail(provider: Provider, env: Env, callerEnv: Env = {}): string {
  const verdict = billingOf(env, provider.billing, callerEnv);
  if (verdict.variable) return `api: ${verdict.variable} would be passed, so the worker bills that key per request`;
  const note = verdict.withheld
    ? ` (${verdict.withheld} is set in your environment but never inherited; --env ${verdict.withheld} bills the API on purpose)`
    : '';
  const unknowable = provider.billing?.unknowableBeforeStart;
  if (unknowable) return `unknown: ${unknowable}${note}`;
  return `subscription: no API-billing variable would be passed, the CLI uses its own login${note}`;
}
