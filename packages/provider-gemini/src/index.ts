/** @umbel/provider-gemini: Google Gemini CLI (`gemini`) as an umbel provider on `@umbel/provider`: its facts, its worker home, its chat reader. */
export { createGemini, GEMINI_CLI_VERIFIED_VERSION, GEMINI_VERIFIED_VERSIONS, gemini, type GeminiSettings, VERSION } from './provider.js';
export * from './facts.js';
export { buildWorkerSettings, chooseAuthType, GeminiAuthType, HOOK_TIMEOUT_MS, userGeminiHome, type WorkerSettingsInput } from './home.js';
export { deepMerge } from '@umbel/provider';
export * from './chat.js';
