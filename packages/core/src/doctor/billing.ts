/**
 * Which billing a worker would get, and which custom endpoint it would use, from the environment
 * it would be started with. One small function each, so typed billing facts of the providers can
 * replace the name rules below without touching the checklist.
 */

/** Variables that carry an API key or token billed per request (never a subscription login). */
const API_KEY_NAME = /(^|_)(API_KEY|AUTH_TOKEN)$/;
/** Variables that point the CLI at another endpoint. */
const ENDPOINT_NAME = /(^|_)(BASE_URL|ENDPOINT|API_BASE)$/;

/** `api` when a key variable the worker would get is set (named, never its value), else `subscription`. */
export function billingOf(workerEnv: Readonly<Record<string, string>>): { readonly billing: 'api' | 'subscription'; readonly variable?: string } {
  const variable = Object.keys(workerEnv)
    .sort()
    .find((name) => API_KEY_NAME.test(name) && workerEnv[name] !== '');
  return variable ? { billing: 'api', variable } : { billing: 'subscription' };
}

/** The endpoint variables the worker would get, with their URLs stripped of any user:password. */
export function endpointsOf(workerEnv: Readonly<Record<string, string>>): { readonly variable: string; readonly url: string }[] {
  return Object.keys(workerEnv)
    .sort()
    .filter((name) => ENDPOINT_NAME.test(name) && workerEnv[name] !== '')
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
