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

/** The providers of one engine (built-ins first), and the config they were read with. */
export interface LoadedProviders {
  readonly providers: readonly LoadedProvider[];
  readonly config: LoadedConfig;
}
