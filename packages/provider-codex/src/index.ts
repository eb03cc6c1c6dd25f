/**
 * @umbel/provider-codex — umbel's provider for OpenAI Codex (`codex`, verified on 0.169.0).
 */
export {
  codex,
  createCodex,
  CODEX_INHERIT_ENV,
  CODEX_PERMISSION_MODES,
  prepareCodexPrompt,
  resolveCodexBin,
  validateCodexOptions,
  type CodexSettings,
} from './provider.js';
export {
  CODEX_HOOK_EVENTS,
  HOOK_TIMEOUT_SECONDS,
  codexHookHash,
  codexHooks,
  configuredEnvKey,
  effectiveTimeout,
  prepareCodexHome,
  renderHooksJson,
  renderManagedConfig,
  type CodexHookEntry,
  type ManagedConfigOptions,
  type PrepareCodexHomeOptions,
  type PreparedCodexHome,
} from './codex-home.js';
export {
  CODEX_USAGE_NAMES,
  codexTurns,
  findCodexTurn,
  parseRollout,
  readCodexMessages,
  readCodexTurn,
  type CodexTurn,
  type ReadCodexTurnOptions,
  type RolloutRecord,
} from './rollout.js';
export { CODEX_COMPOSER, CODEX_DIALOGS, CODEX_SIGN_IN, CODEX_STATUS_LINE, detectCodexApproval, detectCodexSignIn, detectCodexStartup } from './screens.js';
export { parseCodexEvent, TITLE_PROMPT_PREFIX } from './events.js';
export { parseTomlKey, readTomlScalar, tomlString, upsertTomlKey } from './toml-edit.js';

/** Codex CLI version this provider was verified against. */
export const VERSION = '0.169.0';
