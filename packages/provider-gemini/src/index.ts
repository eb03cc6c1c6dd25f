/**
 * @umbel/provider-gemini: Google Gemini CLI (`gemini`) as an umbel provider, written on
 * `@umbel/provider`: its CLI's facts, its worker home and its chat reader.
 */
export { createGemini, GEMINI_CLI_VERIFIED_VERSION, GEMINI_VERIFIED_VERSIONS, gemini, type GeminiSettings, VERSION } from './provider.js';
export {
  API_KEY_ENTRY_TEXT,
  APPROVAL_RE,
  GEMINI_APPROVAL_MODES,
  GEMINI_HOOK_EVENTS,
  GEMINI_INHERIT_ENV,
  GEMINI_INPUT_BOX,
  GEMINI_UNSET_ENV,
  NO_RESPONSE_TEXT,
  SIGN_IN_TEXT,
  TRUST_TEXT,
} from './facts.js';
export { buildWorkerSettings, chooseAuthType, GeminiAuthType, HOOK_TIMEOUT_MS, userGeminiHome, type WorkerSettingsInput } from './home.js';
export { deepMerge } from '@umbel/provider';
export {
  chatOptions,
  contentText,
  isRealPrompt,
  normalizePrompt,
  readGeminiMessages,
  readGeminiTurn,
  replayGeminiChat,
  userText,
} from './chat.js';
export type { GeminiChat, GeminiChatPrompt, GeminiChatMessage, GeminiPart, ReadGeminiTurnOptions } from './chat.js';
