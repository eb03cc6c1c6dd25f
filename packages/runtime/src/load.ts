/**
 * Loading provider packages named in the config file (`providers`) and in `UMBEL_PROVIDERS`
 * (comma-separated), after the built-ins. A name is looked up from the cwd upward, then from where
 * umbel itself is installed, then in npm's global install; a path is absolute or relative (to the
 * cwd for UMBEL_PROVIDERS, to the config file's directory for the config). The module provides its
 * provider as its default export, a named `provider` export, or a `providers` array. Anything else
 * is a {@link ProviderLoadError} naming the package, its source and why, collected in `failures`:
 * a broken package makes only its own providers unusable, never the others nor umbel.
 */
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseDuration, type ProviderV1, providerShapeIssues, UmbelErrorCode, UsageError } from '@umbel/core';
import { builtInProviders } from './builtins.js';
import { type LoadedConfig, loadConfig } from './config.js';
import type { RuntimeEnv } from './env.js';
import { globalNodeModules } from './global-dir.js';
import type { LoadedProvider, LoadedProviders, ProviderSource } from './loaded.js';
import { ancestors, isPathSpecifier, ResolveFailure, type ResolvedModule, resolveName, resolvePath, type SearchPlace } from './resolve.js';
import { DEFAULT_PROVIDER_LOAD_TIMEOUT_MS, ImportRefusal, importGuarded } from './guarded-import.js';

export type { LoadedProvider, LoadedProviders, ProviderLoadFailure, ProviderSource } from './loaded.js';

/** Where a loaded (not built-in) provider came from. */
type ExtraSource = Exclude<ProviderSource, 'built-in'>;

/** A provider package could not be loaded. Exit 2. */
export class ProviderLoadError extends UsageError {
  /** The entry as written. */
  readonly specifier: string;
  readonly source: ExtraSource;
  /** Why, without the package and the source. */
  readonly reason: string;
  constructor(specifier: string, source: ExtraSource, sourceLabel: string, reason: string, options: { hint?: string; cause?: unknown } = {}) {
    super(`cannot load provider package '${specifier}' (from ${sourceLabel}): ${reason}`, {
      code: UmbelErrorCode.ProviderInvalid,
      hint: options.hint ?? `fix or remove '${specifier}' in ${sourceLabel}; run 'umbel providers' to see what is loaded`,
      cause: options.cause,
    });
    this.name = 'ProviderLoadError';
    this.specifier = specifier;
    this.source = source;
    this.reason = reason;
  }
}

/** One entry to load. */
interface Request {
  readonly specifier: string;
  readonly source: ExtraSource;
  /** "UMBEL_PROVIDERS" or "the config file /path". */
  readonly label: string;
  /** Base directory of a relative path. */
  readonly base: string;
}

/** Options of {@link loadProviders}. */
export interface LoadProvidersOptions {
  readonly env: RuntimeEnv;
  /** Where a relative UMBEL_PROVIDERS path and a package lookup start. */
  readonly cwd: string;
  /** The config file, already read (default: read it from the env). */
  readonly config?: LoadedConfig;
}

/** The entries of the config file, then those of UMBEL_PROVIDERS. */
function requestsOf(config: LoadedConfig, options: LoadProvidersOptions): Request[] {
  const fromConfig = (config.config.providers ?? []).map((specifier) => ({
    specifier,
    source: 'config' as const,
    label: `the config file ${config.path}`,
    base: dirname(config.path),
  }));
  const fromEnv = (options.env.UMBEL_PROVIDERS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((specifier) => ({ specifier, source: 'env' as const, label: 'UMBEL_PROVIDERS', base: options.cwd }));
  return [...fromConfig, ...fromEnv];
}

/** The built-in providers, then those of the config file, then those of UMBEL_PROVIDERS. */
export async function loadProviders(options: LoadProvidersOptions): Promise<LoadedProviders> {
  const config = options.config ?? (await loadConfig(options));
  const requests = requestsOf(config, options);
  const providers: LoadedProvider[] = builtInProviders();
  const failures: ProviderLoadError[] = [];
  if (requests.length === 0) return { providers, config, failures };
  const places = await searchPlaces(options);
  const timeoutMs = loadTimeout(options.env);
  for (const request of requests) {
    // A package that cannot be loaded makes only its own providers unusable: collected, never thrown.
    try {
      providers.push(...(await loadRequest(request, places, providers, timeoutMs)));
    } catch (error) {
      if (!(error instanceof ProviderLoadError)) throw error;
      failures.push(error);
    }
  }
  return { providers, config, failures };
}

/** The providers of one package (all or none of them), checked against those already loaded. */
async function loadRequest(request: Request, places: readonly SearchPlace[], loaded: readonly LoadedProvider[], timeoutMs: number): Promise<LoadedProvider[]> {
  const resolved = await resolveRequest(request, places);
  const out: LoadedProvider[] = [];
  for (const provider of await importProviders(request, resolved, timeoutMs)) {
    if ([...loaded, ...out].some((p) => p.provider === provider)) continue; // the same module listed twice
    const clash = [...loaded, ...out].find((p) => p.provider.providerId === provider.providerId);
    if (clash) throw shadowError(request, provider.providerId, clash);
    out.push({ provider, source: request.source, specifier: request.specifier, ...packageOf(resolved), module: resolved.file });
  }
  return out;
}

/** How long one provider module may take to load: UMBEL_PROVIDER_LOAD_TIMEOUT (a duration), else 10 s. */
function loadTimeout(env: LoadProvidersOptions['env']): number {
  const text = env.UMBEL_PROVIDER_LOAD_TIMEOUT;
  if (text === undefined || text.trim() === '') return DEFAULT_PROVIDER_LOAD_TIMEOUT_MS;
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0) throw new UsageError(`UMBEL_PROVIDER_LOAD_TIMEOUT='${text}' is not a duration (use 500ms, 30s, 5m)`);
  return ms;
}

/** Where package names are looked up, in order. */
async function searchPlaces(options: LoadProvidersOptions): Promise<SearchPlace[]> {
  const umbelDir = dirname(fileURLToPath(import.meta.url));
  const globalDir = await globalNodeModules({ env: options.env });
  return [
    { label: `from ${options.cwd} upward`, dirs: ancestors(options.cwd) },
    { label: `from umbel's install (${umbelDir}) upward`, dirs: ancestors(umbelDir) },
    { label: `in the global install (${globalDir})`, dirs: [globalDir], isNodeModules: true },
  ];
}

async function resolveRequest(request: Request, places: readonly SearchPlace[]): Promise<ResolvedModule> {
  try {
    return isPathSpecifier(request.specifier) ? await resolvePath(request.specifier, request.base) : await resolveName(request.specifier, places);
  } catch (error) {
    if (!(error instanceof ResolveFailure)) throw error;
    const hint = isPathSpecifier(request.specifier)
      ? `check the path in ${request.label}`
      : `install it where umbel finds it (npm install ${request.specifier} in this project, or npm install -g ${request.specifier}), or give its path`;
    throw new ProviderLoadError(request.specifier, request.source, request.label, error.reason, { hint });
  }
}

function packageOf(resolved: ResolvedModule): { packageName?: string; packageVersion?: string } {
  return {
    ...(resolved.packageName !== undefined ? { packageName: resolved.packageName } : {}),
    ...(resolved.packageVersion !== undefined ? { packageVersion: resolved.packageVersion } : {}),
  };
}

const looksLikeProvider = (value: unknown): boolean =>
  value !== null && typeof value === 'object' && ('specificationVersion' in value || 'providerId' in value);

/** Import the module and pick its providers: `default`, `provider`, `providers` (exactly these). */
async function importProviders(request: Request, resolved: ResolvedModule, timeoutMs: number): Promise<ProviderV1[]> {
  const fail = (reason: string, cause?: unknown) => new ProviderLoadError(request.specifier, request.source, request.label, reason, { cause });
  let ns: Record<string, unknown>;
  try {
    ns = await importGuarded(pathToFileURL(resolved.file).href, timeoutMs);
  } catch (error) {
    if (error instanceof ImportRefusal) throw fail(`${resolved.file} ${error.reason}`, error);
    throw fail(`importing ${resolved.file} failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`, error);
  }
  const candidates: [string, unknown][] = [];
  // A CommonJS module's default is its whole `module.exports`: it counts only when it is a provider itself.
  if (looksLikeProvider(ns.default)) candidates.push(['the default export', ns.default]);
  if (ns.provider !== undefined) candidates.push(["the export 'provider'", ns.provider]);
  if (ns.providers !== undefined) {
    if (!Array.isArray(ns.providers)) throw fail("its export 'providers' is not an array");
    for (const [i, p] of ns.providers.entries()) candidates.push([`providers[${i}]`, p]);
  }
  if (candidates.length === 0) throw fail("it exports no provider (expected a default export, a named export 'provider', or an array 'providers')");
  const out: ProviderV1[] = [];
  for (const [where, value] of candidates) {
    if (out.includes(value as ProviderV1)) continue;
    out.push(checkShape(value, where, fail));
  }
  return out;
}

function checkShape(value: unknown, where: string, fail: (reason: string) => ProviderLoadError): ProviderV1 {
  const issues = providerShapeIssues(value);
  if (issues[0]?.startsWith('specificationVersion:')) {
    const id = (value as { providerId?: unknown }).providerId;
    const named = typeof id === 'string' ? ` (provider '${id}')` : '';
    throw fail(`${where}${named} ${issues[0].slice('specificationVersion: '.length)}`);
  }
  if (issues.length) throw fail(`${where} is not a valid provider: ${issues.join('; ')}`);
  return value as ProviderV1;
}

function shadowError(request: Request, id: string, clash: LoadedProvider): ProviderLoadError {
  const owner =
    clash.source === 'built-in'
      ? `the built-in provider '${id}' (${clash.packageName})`
      : `provider '${id}' from ${clash.specifier} (${clash.source === 'env' ? 'UMBEL_PROVIDERS' : 'the config file'})`;
  return new ProviderLoadError(request.specifier, request.source, request.label, `its provider '${id}' would shadow ${owner}`, {
    hint: 'a provider id names one provider: remove one of the two packages, or give yours its own id',
  });
}
