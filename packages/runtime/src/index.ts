/**
 * @umbel/runtime — umbel's composition root, shared by the `umbel` and `umbel-mcp` bins: the
 * config file, provider packages (`UMBEL_PROVIDERS` and the config's `providers`), the built-in
 * providers and the default engine (tmux + every provider).
 */
export { createDefaultUmbel, type DefaultUmbelOptions } from './engine.js';
export { importModule, setModuleImporter } from './import-module.js';
export { loadProviders, ProviderLoadError, ProviderShapeSchema, type LoadProvidersOptions } from './load.js';
export type { LoadedProvider, LoadedProviders, ProviderLoadFailure, ProviderSource } from './loaded.js';
export { builtInProviders } from './builtins.js';
export {
  ConfigInvalidError,
  configPath,
  HostSchema,
  loadConfig,
  UmbelConfigSchema,
  type HostConfig,
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
export { createFleet, type FleetOptions } from './fleet.js';
export { serveRpc, type ServeContext } from './serve.js';
export { sshTransport, type CallOptions, type SshTransportOptions, type Transport } from './ssh-transport.js';
export { CONTROL_PERSIST, controlDir, remoteCommand, sshArgv, sshEnv } from './ssh.js';
export { RemoteRecordSchema, recordsDir, type RemoteRecord } from './records.js';
export {
  encodeError,
  RemoteError,
  RPC_OPS,
  RPC_VERSION,
  RpcLineSchema,
  RpcRequestSchema,
  type RpcOp,
  type RpcRequest,
  type RpcResponse,
  type WireError,
} from './wire.js';
