/**
 * @umbel/provider-qwen — umbel's provider for Qwen Code (`qwen`, verified on 0.15.10), written on
 * `@umbel/provider` only: its CLI's facts, its per-worker hook settings and its chat-recording reader.
 */
export { createQwen, qwen, QWEN_VERIFIED_VERSIONS, readQwenInputBox, type QwenSettings } from './provider.js';
export {
  APPROVAL_RE,
  QWEN_API_BILLING_ENV,
  QWEN_APPROVAL_MODES,
  QWEN_ENDPOINT_ENV,
  QWEN_HOOK_EVENTS,
  QWEN_INHERIT_ENV,
  QWEN_INPUT_BOX,
  QWEN_PAYLOAD,
  QWEN_PROMPT,
  qwenBilling,
  SIGN_IN_TEXT,
  SYSTEM_SETTINGS_ENV,
} from './facts.js';
export { buildWorkerSettings, DEFAULT_SYSTEM_SETTINGS, HOOK_TIMEOUT_MS, installQwenSettings, promptFilterScript } from './settings.js';
export { readQwenMessages, readQwenTurn, textOf, turnRecords } from './chat.js';
export { classifyQwenTool, QWEN_TOOLS, readQwenToolError } from './tools.js';

/** Version of this package. */
export const VERSION = '0.1.0';
