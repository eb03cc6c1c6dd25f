/**
 * The engine context: everything an operation needs from outside — the state paths, the terminal
 * host, the providers, umbel's own environment, the settings and the clock — and what this engine
 * remembers (its ledger's caches, its pool keys), built once per engine and passed down by value. Internal: not exported from the package.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { HomeMismatchError, ProviderUnknownError, UmbelError, UmbelErrorCode } from '../contract/errors.js';
import { resolveHome, statePaths, type StatePaths } from './paths.js';
import { type Provider, providerShapeIssues } from '@umbel/provider';
import type { Substrate } from '../contract/substrate.js';
import type { UmbelSettings, UnloadedProvider } from '../contract/umbel.js';
import { createLedgerCache, type LedgerCache } from '../ledger/ledger-cache.js';

/** How long a stop is held for the transcript to show the end of the turn. */
export const STOP_SETTLE_MS = 5000;

/** The providers of one engine, by id. */
export interface ProviderRegistry {
  readonly ids: readonly string[];
  /** Provider packages that could not be loaded (named when a provider is missing). */
  readonly unloaded: readonly UnloadedProvider[];
  /** The provider, or ProviderUnknownError. */
  get(id: string): Provider;
  /** The provider, or undefined. */
  find(id: string): Provider | undefined;
}

/** What every operation is given. */
export interface EngineContext {
  readonly home: string;
  readonly paths: StatePaths;
  readonly substrate: Substrate;
  readonly providers: ProviderRegistry;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly settings: UmbelSettings;
  readonly stopSettleMs: number;
  /** This engine's ledger memory (never shared with another engine). */
  readonly ledger: LedgerCache;
  /** This engine's pool keys, by pools dir (read or made once: ../pool/pool-key.ts). */
  readonly poolKeys: Map<string, Buffer>;
  /** When the host last said a session was alive, to this engine (./alive.ts). */
  readonly aliveSeen: Map<string, number>;
  /** Milliseconds since the epoch (injectable for tests). */
  now(): number;
}

function registry(providers: readonly Provider[], unloaded: readonly UnloadedProvider[] = []): ProviderRegistry {
  const byId = new Map<string, Provider>();
  for (const provider of providers) {
    const issues = providerShapeIssues(provider);
    if (issues.length) {
      throw new UmbelError({
        code: UmbelErrorCode.ProviderInvalid,
        message: `provider ${(provider as { providerId?: string } | undefined)?.providerId ?? '?'} is not a valid provider: ${issues.join('; ')}`,
      });
    }
    byId.set(provider.providerId, provider);
  }
  return {
    ids: [...byId.keys()],
    unloaded,
    find: (id) => byId.get(id),
    get(id) {
      const provider = byId.get(id);
      if (!provider) throw new ProviderUnknownError(id, [...byId.keys()], unloaded);
      return provider;
    },
  };
}

/** A path as the file system knows it: its realpath when it exists, else its absolute form. */
function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * The engine's state root: `settings.home`, else the root the substrate serves, else the
 * environment's default. A substrate bound to another root than `settings.home` is refused: its
 * workers would be orphans the engine never sees.
 */
function engineHome(settings: UmbelSettings, env: Readonly<Record<string, string | undefined>>): string {
  const bound = settings.substrate?.home;
  if (bound === undefined) return resolveHome(env, settings.home);
  if (!settings.home) return resolve(bound);
  const home = resolveHome(env, settings.home);
  if (canonical(home) !== canonical(bound)) throw new HomeMismatchError(home, resolve(bound));
  return home;
}

/** Build the context of one engine. */
export function createContext(settings: UmbelSettings): EngineContext {
  const env = settings.env ?? process.env;
  const home = engineHome(settings, env);
  return {
    home,
    paths: statePaths(home),
    substrate: settings.substrate,
    providers: registry(settings.providers, settings.unloadedProviders),
    env,
    settings,
    stopSettleMs: settings.stopSettleMs ?? STOP_SETTLE_MS,
    ledger: createLedgerCache(),
    poolKeys: new Map(),
    aliveSeen: new Map(),
    now: () => Date.now(),
  };
}
