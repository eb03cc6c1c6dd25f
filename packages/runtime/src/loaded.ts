/** What the runtime knows about each provider of an engine. */
import type { ProviderV1 } from '@umbel/core';
import type { LoadedConfig } from './config.js';

/** Where a provider came from. */
export type ProviderSource = 'built-in' | 'config' | 'env';

/** One provider and its origin. */
export interface LoadedProvider {
  readonly provider: ProviderV1;
  readonly source: ProviderSource;
  /** The entry as written in UMBEL_PROVIDERS or the config file (absent for built-ins). */
  readonly specifier?: string;
  /** `name` and `version` of the package it came from, when it has a package.json. */
  readonly packageName?: string;
  readonly packageVersion?: string;
  /** The module file it was imported from (absent for built-ins). */
  readonly module?: string;
}

/** A package that could not be loaded (a ProviderLoadError: its specifier, source, reason, message and hint). */
export interface ProviderLoadFailure {
  readonly specifier: string;
  readonly source: Exclude<ProviderSource, 'built-in'>;
  /** Why, without the package and the source. */
  readonly reason: string;
  /** The whole sentence: the package, its source and why. */
  readonly message: string;
  readonly hint?: string;
}

/** The providers of one engine (built-ins first), the packages that failed to load, and the config they were read with. */
export interface LoadedProviders {
  readonly providers: readonly LoadedProvider[];
  /** Packages that could not be loaded: only their own providers are missing. */
  readonly failures?: readonly ProviderLoadFailure[];
  readonly config: LoadedConfig;
}
