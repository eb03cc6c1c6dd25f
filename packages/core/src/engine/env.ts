/**
 * Worker environment resolution (pure). A worker inherits only a base allowlist plus the
 * configuration variables its provider names one by one; anything else is explicit
 * (`--env NAME`, `--env NAME=VALUE`, `{fromEnv: NAME}`). Never a vendor prefix.
 */
import { EnvUnresolvedError } from '../contract/errors.js';
import type { EnvMap } from '../contract/schemas.js';

/** Variables every worker inherits when umbel has them. */
export const BASE_ENV_ALLOWLIST: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'SSH_AUTH_SOCK',
  'LC_ALL',
  'LC_CTYPE',
  'LC_MESSAGES',
  'LC_COLLATE',
  'LC_NUMERIC',
  'LC_TIME',
  'LC_MONETARY',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'XDG_STATE_HOME',
  'XDG_RUNTIME_DIR',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
];

/** Names umbel itself sets for every worker; callers cannot override them. */
export const UMBEL_WORKER_ENV = ['UMBEL_EVENTS_DIR', 'UMBEL_WORKER'] as const;

/** Resolve explicit entries against umbel's own env. Throws EnvUnresolvedError before any I/O. */
export function resolveExplicitEnv(explicit: EnvMap | undefined, callerEnv: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(explicit ?? {})) {
    if (typeof value === 'string') {
      out[name] = value;
    } else {
      const resolved = callerEnv[value.fromEnv];
      if (resolved === undefined) throw new EnvUnresolvedError(value.fromEnv);
      out[name] = resolved;
    }
  }
  return out;
}

/** Inputs of `resolveWorkerEnv`. */
export interface ResolveWorkerEnvOptions {
  readonly callerEnv: Readonly<Record<string, string | undefined>>;
  /** The provider's named configuration variables. */
  readonly inherit: readonly string[];
  readonly explicit?: EnvMap;
}

/** Allowlisted inheritance + explicit entries (explicit wins). Pure. */
export function resolveWorkerEnv(options: ResolveWorkerEnvOptions): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...BASE_ENV_ALLOWLIST, ...options.inherit]) {
    const value = options.callerEnv[name];
    if (value !== undefined) out[name] = value;
  }
  Object.assign(out, resolveExplicitEnv(options.explicit, options.callerEnv));
  return out;
}

/** Apply the provider's reserved env, removals and umbel's own variables, in that order. Pure. */
export function finalizeWorkerEnv(
  base: Readonly<Record<string, string>>,
  reserved: Readonly<Record<string, string>> | undefined,
  unset: readonly string[] | undefined,
  umbel: Readonly<Record<(typeof UMBEL_WORKER_ENV)[number], string>>,
): Record<string, string> {
  const out: Record<string, string> = { ...base, ...(reserved ?? {}) };
  for (const name of unset ?? []) delete out[name];
  Object.assign(out, umbel);
  return out;
}
