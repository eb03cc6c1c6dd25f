/**
 * @umbel/runtime — umbel's composition root, shared by the `umbel` and `umbel-mcp` bins: the
 * config file, provider packages (`UMBEL_PROVIDERS` and the config's `providers`), the built-in
 * providers and the default engine (tmux + every provider).
 */
export { createDefaultUmbel, type DefaultUmbelOptions } from './engine.js';
export { importModule, setModuleImporter } from './import-module.js';
export { loadProviders, ProviderLoadError, type LoadProvidersOptions } from './load.js';
export type { LoadedProvider, LoadedProviders, ProviderLoadFailure, ProviderSource } from './loaded.js';
export { builtInProviders } from './builtins.js';
export {
  ConfigInvalidError,
  configPath,
  loadConfig,
  UmbelConfigSchema,
  type LoadedConfig,
  type UmbelConfig,
} from './config.js';
export { globalNodeModules, npmPrefix } from './global-dir.js';
export {
  BinaryReportSchema,
  inspectProviders,
  probeVersion,
  ProviderReportSchema,
  ProvidersReportSchema,
  VERSION_TIMEOUT_MS,
  type BinaryReport,
  type ProviderReport,
  type ProvidersReport,
} from './inspect.js';
export type { RuntimeEnv } from './env.js';
/** The config's host schema is core's (HostSchema, HostConfig); the fleet over the hosts is @umbel/remote's. */
export { HostSchema, type HostConfig } from '@umbel/core';
