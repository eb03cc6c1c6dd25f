/**
 * @umbel/provider-opencode — umbel's provider for opencode (`opencode`, verified on 1.18.33), written on
 * `@umbel/provider` only: its CLI's facts, its per-worker config dir and plugin,
 * its model check and its stored-session transcript reader.
 */
export { createOpencode, opencode, OPENCODE_VERIFIED_VERSIONS, type OpencodeSettings } from './provider.js';
export {
  activityOf,
  MODEL_ID,
  OPENCODE_API_BILLING_ENV,
  OPENCODE_INHERIT_ENV,
  opencodeBilling,
  OPENCODE_BILLING_UNKNOWABLE,
  OPENCODE_PAYLOAD,
  OPENCODE_PERMISSION_MODES,
  OPENCODE_PROMPT,
  PERMISSION_PROMPT,
  PLUGIN_PACKAGE_VERSION,
  type OpencodePermissionMode,
} from './facts.js';
export { addsNpmOffline, installConfigDir, installedLock, NPM_OFFLINE, workerConfig, type ConfigDirOptions } from './config-dir.js';
export { OPENCODE_SIGNALS, renderPlugin, umbelPluginMain, type PluginContext, type PluginHooks, type PluginSettings } from './plugin.js';
export {
  checkModel,
  describeModels,
  listModels,
  MODELS_NAMED,
  MODELS_TIMEOUT_MS,
  OpencodeModelsUnreadableError,
  OpencodeModelUnknownError,
  parseModelList,
} from './models.js';
export { hasInputBox, readOpencodeInputBox } from './screens.js';
export { classifyOpencodeTool, OPENCODE_TOOLS } from './tools.js';
export {
  findOpencodeTurn,
  parseSessionDoc,
  readOpencodeMessages,
  readOpencodeTurn,
  textOf,
  usageOf,
  type OpencodeMessage,
  type OpencodeMessageInfo,
  type OpencodePart,
  type OpencodeSessionDoc,
  type OpencodeTurn,
  type UmbelFailure,
} from './transcript.js';

/** Version of this package. */
export const VERSION = '0.1.0';
