export {
  createGemini,
  gemini,
  GEMINI_APPROVAL_MODES,
  GEMINI_CLI_VERIFIED_VERSION,
  GEMINI_INHERIT_ENV,
  GEMINI_UNSET_ENV,
  resolveGeminiBin,
  userGeminiHome,
  VERSION,
} from './gemini-provider.js';
export type { GeminiSettings } from './gemini-provider.js';
export {
  contentText,
  isRealPrompt,
  normalizePrompt,
  readGeminiMessages,
  readGeminiTurn,
  replayGeminiChat,
  userText,
} from './chat.js';
export type { GeminiChat, GeminiChatPrompt, GeminiChatMessage, GeminiPart, ReadGeminiTurnOptions } from './chat.js';
export { NO_RESPONSE_TEXT, parseGeminiEvent } from './events.js';
export { prepareGeminiPrompt } from './prompt.js';
export {
  API_KEY_ENTRY_TEXT,
  APPROVAL_RE,
  BUSY_RE,
  detectGeminiApproval,
  detectGeminiSignIn,
  detectGeminiStartup,
  READY_TEXT,
  SIGN_IN_TEXT,
  TRUST_TEXT,
} from './screens.js';
export {
  buildWorkerSettings,
  chooseAuthType,
  deepMerge,
  GEMINI_HOOK_EVENTS,
  GeminiAuthType,
  HOOK_TIMEOUT_MS,
  parseUserSettings,
  stripJsonComments,
} from './settings.js';
export type { GeminiHookEvent, WorkerSettingsInput } from './settings.js';
