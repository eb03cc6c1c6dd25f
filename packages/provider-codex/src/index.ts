/** @umbel/provider-codex — umbel's provider for OpenAI Codex (`codex`) on `@umbel/provider`: its facts, its managed CODEX_HOME, its rollout reader. */
export * from './provider.js';
export { CODEX_HOOK_EVENTS, codexHookHash, codexHooks, configuredEnvKey, readTomlScalar, renderManagedConfig, type CodexHookEntry } from './codex-home.js';
export { codexTurns, parseRollout, readCodexMessages, readCodexTurn, type CodexTurn, type RolloutRecord } from './rollout.js';

/** Version of @umbel/provider-codex (kept equal to package.json by a unit test). The CLI releases it was verified on are CODEX_VERIFIED_VERSIONS. */
export const VERSION = '0.1.0';
