/**
 * @umbel/provider-codex — umbel's provider for OpenAI Codex (`codex`, verified on 0.169.0 and 0.171.0), written on
 * `@umbel/provider`: its CLI's facts, its managed CODEX_HOME and its rollout reader.
 */
export { CODEX_VERIFIED_VERSIONS, type CodexSettings, codex, createCodex } from './provider.js';
export {
  CODEX_COMPOSER,
  CODEX_DIALOGS,
  CODEX_HOOK_EVENTS,
  CODEX_INHERIT_ENV,
  CODEX_PERMISSION_MODES,
  CODEX_PLACEHOLDERS,
  CODEX_SIGN_IN,
  CODEX_STATUS_LINE,
  TITLE_PROMPT_PREFIX,
} from './facts.js';
export {
  HOOK_TIMEOUT_SECONDS,
  codexHookHash,
  codexHooks,
  configuredEnvKey,
  effectiveTimeout,
  prepareCodexHome,
  readTomlScalar,
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

/** Version of @umbel/provider-codex (kept equal to package.json by a unit test). The CLI releases it was verified on are CODEX_VERIFIED_VERSIONS. */
export const VERSION = '0.1.0';
