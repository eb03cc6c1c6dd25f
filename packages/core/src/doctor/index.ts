/**
 * `umbel doctor`: for each provider, a checklist proving the installed CLI still behaves as umbel
 * expects — its binary and version against the verified list, the billing and endpoint a worker
 * would get, and (./scratch.ts) a scratch worker that signs in, reaches its prompt and runs umbel's
 * session hook; with `turn`, one tiny model turn. Never touches the caller's workers or state root.
 */
import { tmpdir } from 'node:os';
import { ProviderUnknownError, UmbelError } from '../contract/errors.js';
import { resolveWorkerEnv } from '../engine/env.js';
import { guarded } from '../engine/provider-guard.js';
import type { Provider } from '@umbel/provider';
import type { UnloadedProvider } from '../contract/umbel.js';
import { billingDetail, endpointsOf } from './billing.js';
import type { DoctorCheck, DoctorOptionsParsed, DoctorProvider, DoctorReport } from './schema.js';
import { type ScratchEngineFactory, type ScratchHostFactory, scratchChecks } from './scratch.js';
import { probeVersionIn, VERSION_TIMEOUT_MS, versionStanding } from './version.js';
import { sandboxCheck } from './sandbox.js';

export { billingOf, endpointsOf } from './billing.js';
export { DOCTOR_TURN_PROMPT, type ScratchEngine, type ScratchEngineFactory, type ScratchHost, type ScratchHostFactory } from './scratch.js';
export * from './schema.js';
export { compareVersions, parseVersion, probeVersion, probeVersionIn, VERSION_TIMEOUT_MS, versionStanding, type VersionStanding } from './version.js';

/** @deprecated `--version` has one bound everywhere: {@link VERSION_TIMEOUT_MS}. */
export const DOCTOR_VERSION_TIMEOUT_MS = VERSION_TIMEOUT_MS;

/** Default bound of the scratch worker's startup. */
export const DOCTOR_STARTUP_TIMEOUT_MS = 30_000;

/** What `runDoctor` works with. */
export interface DoctorDeps {
  readonly providers: readonly Provider[];
  /** Provider packages that could not be loaded: reported, and the report is not ok. */
  readonly unloaded?: readonly UnloadedProvider[];
  readonly callerEnv: Readonly<Record<string, string | undefined>>;
  /** Hosts for scratch state roots; without it the live checks are skipped. */
  readonly scratch?: ScratchHostFactory;
  readonly engine: ScratchEngineFactory;
}

type Found = { readonly path?: string; readonly version?: string; readonly checks: DoctorCheck[] };

/** Check the providers asked for (default: every one whose binary is found, else all of them). */
export async function runDoctor(deps: DoctorDeps, options: DoctorOptionsParsed, signal?: AbortSignal): Promise<DoctorReport> {
  const chosen = options.providers ? [...new Set(options.providers)].map((id) => pick(deps, id)) : deps.providers;
  // Resolve the worker env of each first: an unset --env NAME is bad input, refused before any launch.
  const envs = chosen.map((p) => workerEnv(p, deps.callerEnv, options));
  const binaries = await Promise.all(chosen.map((p) => binaryChecks(p, deps.callerEnv)));
  const anyFound = binaries.some((b) => b.path !== undefined);
  const reports: DoctorProvider[] = [];
  for (const [i, provider] of chosen.entries()) {
    const binary = binaries[i] as Found;
    if (!options.providers && anyFound && binary.path === undefined) continue;
    const checks = [...binary.checks, ...configChecks(provider, envs[i] as Record<string, string>, deps.callerEnv)];
    if (binary.path === undefined) checks.push(skip('launch', 'starts to its ready prompt', 'not tried: no binary'));
    else if (!deps.scratch) checks.push(skip('launch', 'starts to its ready prompt', 'not tried: this engine has no scratch host'));
    else {
      const run = {
        provider,
        scratch: deps.scratch,
        engine: deps.engine,
        startupTimeoutMs: options.startupTimeout ?? DOCTOR_STARTUP_TIMEOUT_MS,
        turn: options.turn === true,
        tempDir: deps.callerEnv.TMPDIR || tmpdir(),
        workerEnv: { HOME: deps.callerEnv.HOME, ...envs[i] },
      };
      checks.push(...(await scratchChecks({ ...run, ...(options.env ? { env: options.env } : {}), ...(signal ? { signal } : {}) })));
    }
    reports.push({
      provider: provider.providerId,
      displayName: provider.displayName,
      ok: checks.every((c) => c.status !== 'fail'),
      ...(binary.path !== undefined ? { binary: binary.path } : {}),
      ...(binary.version !== undefined ? { version: binary.version } : {}),
      verifiedVersions: [...(provider.verifiedVersions ?? [])],
      checks: orderLogin(checks),
    });
  }
  const unloaded = deps.unloaded ?? [];
  const ok = reports.length > 0 && reports.every((r) => r.ok) && unloaded.length === 0;
  const sandbox = await sandboxCheck(deps.callerEnv);
  return { ok, turn: options.turn === true, providers: reports, sandbox, ...(unloaded.length > 0 ? { unloaded: [...unloaded] } : {}) };
}

function pick(deps: DoctorDeps, id: string): Provider {
  const found = deps.providers.find((p) => p.providerId === id);
  if (found) return found;
  throw new ProviderUnknownError(
    id,
    deps.providers.map((p) => p.providerId),
    deps.unloaded,
  );
}

function skip(id: DoctorCheck['id'], title: string, detail: string): DoctorCheck {
  return { id, title, status: 'skip', detail };
}

/** The env a worker of this provider would get (before the provider's reserved variables). */
function workerEnv(provider: Provider, callerEnv: DoctorDeps['callerEnv'], options: DoctorOptionsParsed): Record<string, string> {
  const env = resolveWorkerEnv({ callerEnv, inherit: provider.inheritEnv, ...(options.env ? { explicit: options.env } : {}) });
  return provider.doReconcileEnv ? guarded(provider, 'doReconcileEnv', () => provider.doReconcileEnv?.(env) ?? env) : env;
}

/** The binary (path) and its version against the verified list. */
async function binaryChecks(provider: Provider, callerEnv: DoctorDeps['callerEnv']): Promise<Found> {
  if (typeof provider.doFindBinary !== 'function') {
    return {
      checks: [
        { id: 'binary', title: 'CLI binary', status: 'fail', detail: 'the provider does not say how it finds its CLI', hint: 'update the provider package' },
      ],
    };
  }
  let path: string;
  try {
    path = await provider.doFindBinary(callerEnv);
  } catch (error) {
    const hint = UmbelError.isInstance(error) ? error.hint : undefined;
    return {
      checks: [
        { id: 'binary', title: 'CLI binary', status: 'fail', detail: error instanceof Error ? error.message : String(error), ...(hint ? { hint } : {}) },
      ],
    };
  }
  const probed = await probeVersionIn(callerEnv.TMPDIR || tmpdir(), path, callerEnv);
  const binary: DoctorCheck = { id: 'binary', title: 'CLI binary', status: 'pass', detail: path };
  return { path, ...(probed.version ? { version: probed.version } : {}), checks: [binary, versionCheck(provider, probed)] };
}

function versionCheck(provider: Provider, probed: { version?: string; versionError?: string }): DoctorCheck {
  const title = 'version verified';
  const verified = provider.verifiedVersions ?? [];
  const list = verified.join(', ');
  const upgrade = `install a verified release of ${provider.displayName} (${list || 'see umbel providers'})`;
  if (probed.version === undefined) return { id: 'version', title, status: 'fail', detail: probed.versionError ?? 'no version', hint: upgrade };
  const { standing, version } = versionStanding(probed.version, verified);
  switch (standing) {
    case 'verified':
      return { id: 'version', title, status: 'pass', detail: `${version} is verified` };
    case 'newer':
      return {
        id: 'version',
        title,
        status: 'pass',
        detail: `${version} is newer than verified (${list}): not verified yet, the checks below say whether it behaves`,
      };
    case 'between':
      return { id: 'version', title, status: 'pass', detail: `${version} lies within the verified range (${list}) but was not itself verified` };
    case 'no-list':
      return { id: 'version', title, status: 'skip', detail: `${probed.version}: the provider declares no verified versions` };
    case 'older':
      return { id: 'version', title, status: 'fail', detail: `${version} is older than every verified version (${list})`, hint: upgrade };
    case 'unparseable':
      return { id: 'version', title, status: 'fail', detail: `cannot read a version in ${JSON.stringify(probed.version)}`, hint: upgrade };
  }
}

/** Billing and endpoint: informational, from the env the worker would get (never a key's value). */
function configChecks(provider: Provider, env: Readonly<Record<string, string>>, callerEnv: DoctorDeps['callerEnv']): DoctorCheck[] {
  const endpoints = endpointsOf(env, provider.billing);
  return [
    { id: 'billing', title: 'billing', status: 'pass', detail: billingDetail(provider, env, callerEnv) },
    {
      id: 'endpoint',
      title: 'endpoint',
      status: 'pass',
      detail: endpoints.length ? `custom: ${endpoints.map((e) => `${e.variable}=${e.url}`).join(', ')}` : "the CLI's default",
    },
  ];
}

/** The login check reads best next to billing: binary, version, login, billing, endpoint, launch … */
function orderLogin(checks: DoctorCheck[]): DoctorCheck[] {
  const login = checks.find((c) => c.id === 'login');
  if (!login) return checks;
  const rest = checks.filter((c) => c !== login);
  const at = rest.findIndex((c) => c.id === 'billing');
  return [...rest.slice(0, at), login, ...rest.slice(at)];
}
