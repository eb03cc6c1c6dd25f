/**
 * The Qwen Code provider: its facts compiled by the provider kit, on `@umbel/provider` alone (as
 * any third-party provider would be written).
 *
 * Launch: `qwen [--model M] [--approval-mode …]` with `QWEN_CODE_SYSTEM_SETTINGS_PATH` pointing at
 * the worker's own system settings (umbel's hooks, update checks off: ./settings.ts). Completion
 * comes from the hooks (`Stop`, `StopFailure`) and the chat recording (./chat.ts), never the screen.
 */
import type { CliSettings, ProviderV1 } from '@umbel/provider';
import { cliBinary, defineProvider, modeFlags, readInputBox } from '@umbel/provider';
import { qwenActivityDirs, readQwenMessages, readQwenTurn } from './chat.js';
import {
  APPROVAL_RE,
  CURSOR,
  QWEN_API_BILLING_ENV,
  QWEN_APPROVAL_MODES,
  QWEN_BILLING_UNKNOWABLE,
  QWEN_ENDPOINT_ENV,
  QWEN_HOOK_EVENTS,
  QWEN_INHERIT_ENV,
  QWEN_INPUT_BOX,
  QWEN_PAYLOAD,
  QWEN_PROMPT,
  QWEN_SIGN_IN,
  qwenBilling,
  SYSTEM_SETTINGS_ENV,
} from './facts.js';
import { installQwenSettings } from './settings.js';
import { QWEN_TOOLS } from './tools.js';

/** Qwen Code releases these facts were verified on (the last is the pinned real CLI). */
export const QWEN_VERIFIED_VERSIONS = ['0.15.10'] as const;

/** Settings of {@link createQwen}. */
export type QwenSettings = CliSettings;

/** The variable umbel points at each worker's own settings file: passing it is refused. */
const QWEN_OWNED_ENV = {
  [SYSTEM_SETTINGS_ENV]: {
    what: 'per-worker hook settings for Qwen Code',
    hint: "umbel copies the system settings it names (or /etc/qwen-code/settings.json) into the worker's file; set it in umbel's own environment instead",
  },
};

/** The text in the input box, the cursor (a zero-width space) left out. */
export function readQwenInputBox(screen: string): string | undefined {
  return readInputBox(QWEN_INPUT_BOX, screen.replaceAll(CURSOR, ''));
}

/**
 * Create the Qwen Code provider.
 * @example
 * const engine = createUmbel({ substrate, providers: [createQwen()] });
 */
export function createQwen(settings: QwenSettings = {}): ProviderV1 {
  const provider = defineProvider({
    id: settings.providerId ?? 'qwen',
    displayName: 'Qwen Code',
    description: 'Qwen Code (`qwen`), on your Qwen OAuth login or an OpenAI-compatible (or other) API key',
    verifiedVersions: QWEN_VERIFIED_VERSIONS,
    binary: cliBinary('qwen', 'npm install -g @qwen-code/qwen-code', settings),
    env: { inherit: QWEN_INHERIT_ENV, unset: ['CI', 'GITHUB_ACTIONS'], owned: QWEN_OWNED_ENV },
    billing: { apiEnv: QWEN_API_BILLING_ENV, endpointEnv: QWEN_ENDPOINT_ENV, detect: qwenBilling, unknowableBeforeStart: QWEN_BILLING_UNKNOWABLE },
    flags: {
      model: '--model',
      permissionModes: modeFlags('--approval-mode', QWEN_APPROVAL_MODES, ['default']),
      unattended: 'yolo',
      appendSystemPrompt: '--append-system-prompt',
      extraArgs: settings.extraArgs ?? [],
    },
    // UserPromptSubmit fires for every prompt it takes (a queued one when it starts it); its own <task-notification> turn fires none
    hooks: { events: QWEN_HOOK_EVENTS, install: installQwenSettings, promptHook: 'every-prompt' },
    screens: {
      signIn: QWEN_SIGN_IN,
      signInHint: 'run `qwen` once in a terminal and sign in with /auth (or pass an API key, e.g. --env OPENAI_API_KEY)',
      // SessionStart fires once the config is initialized; the input box is drawn then too
      ready: { hook: 'session', inputBox: true },
      inputPrompt: APPROVAL_RE,
      inputBox: QWEN_INPUT_BOX,
    },
    // Pasted (bracketed), then Enter; UserPromptSubmit confirms. Escape cancels a turn the CLI keeps retrying.
    // a prompt typed while a turn runs may be drained into that turn after its tool calls (BACKGROUND-FACTS.md §4)
    input: { submitDelayMs: 150, confirmTimeoutMs: 2000, maxSubmitRetries: 3, alwaysPaste: true, cancelKeys: ['Escape'], whileBusy: 'merge' },
    prompt: QWEN_PROMPT,
    payload: QWEN_PAYLOAD,
    transcript: { read: readQwenTurn, messages: readQwenMessages },
    activityDirs: qwenActivityDirs,
    tools: QWEN_TOOLS,
  });
  return { ...provider, doReadInputBox: readQwenInputBox };
}

/** The default Qwen Code provider. */
export const qwen: ProviderV1 = createQwen();
