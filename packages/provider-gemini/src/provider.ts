/**
 * The Gemini CLI provider: its facts compiled by the provider kit.
 *
 * Launch: `gemini --session-id <uuid> [--model M] [--approval-mode …]` with a per-worker
 * `GEMINI_CLI_HOME` (./home.ts), `GEMINI_CLI_NO_RELAUNCH=true` (one process, so killing the pane
 * leaves no orphan), `GEMINI_CLI_TRUST_WORKSPACE=true` (the worker's cwd is trusted for this run
 * only), and `CI`/`GITHUB_ACTIONS` removed (either one forces headless mode even on a terminal).
 */
import type { ProviderV1 } from '@umbel/provider';
import { defineProvider, modeFlags } from '@umbel/provider';
import { chatOptions, geminiMessages, replayGeminiChat } from './chat.js';
import {
  APPROVAL_RE,
  GEMINI_APPROVAL_MODES,
  GEMINI_FATAL,
  GEMINI_HOOK_EVENTS,
  GEMINI_API_BILLING_ENV,
  GEMINI_ENDPOINT_ENV,
  GEMINI_INHERIT_ENV,
  GEMINI_INPUT_BOX,
  GEMINI_PAYLOAD,
  GEMINI_PROMPT,
  GEMINI_SIGN_IN,
  GEMINI_UNSET_ENV,
  TRUST_TEXT,
} from './facts.js';
import { installGeminiHome } from './home.js';
import { GEMINI_TOOLS } from './tools.js';
import { GEMINI_SIDE_RECORDS, geminiTurn } from './turn.js';

/** Version of this package. */
export const VERSION = '0.1.0';
/** Gemini CLI releases these facts were verified on (oldest first; the last is the pinned real CLI). */
export const GEMINI_VERIFIED_VERSIONS = ['0.61.0'] as const;
/** @deprecated The newest of {@link GEMINI_VERIFIED_VERSIONS}; use that list. */
export const GEMINI_CLI_VERIFIED_VERSION: string = GEMINI_VERIFIED_VERSIONS[GEMINI_VERIFIED_VERSIONS.length - 1]!;

/** Settings of {@link createGemini}. */
export interface GeminiSettings {
  /** The `gemini` executable (a path or a name on PATH). `UMBEL_<ID>_BIN` (`UMBEL_GEMINI_BIN`) wins over it. */
  readonly bin?: string;
  /** Extra arguments appended to every launch. */
  readonly args?: readonly string[];
  /** Trust the worker's cwd for the run (`GEMINI_CLI_TRUST_WORKSPACE=true`). Default true. */
  readonly trustWorkspace?: boolean;
  /** Settings deep-merged last into the worker's settings (e.g. `{model:{disableLoopDetection:true}}`). */
  readonly settingsOverrides?: Readonly<Record<string, unknown>>;
  /** Provider id (default `gemini`), to register a second configuration. */
  readonly providerId?: string;
}

/**
 * Create the Gemini CLI provider.
 * @example
 * const engine = createUmbel({ substrate, providers: [createGemini()] });
 */
export function createGemini(settings: GeminiSettings = {}): ProviderV1 {
  const home = { trustWorkspace: settings.trustWorkspace !== false, ...(settings.settingsOverrides ? { settingsOverrides: settings.settingsOverrides } : {}) };
  return defineProvider({
    id: settings.providerId ?? 'gemini',
    displayName: 'Gemini CLI',
    description: "Google's Gemini CLI (`gemini`), on your Google login or a Gemini API key",
    verifiedVersions: GEMINI_VERIFIED_VERSIONS,
    binary: { name: 'gemini', install: 'npm install -g @google/gemini-cli', ...(settings.bin ? { configured: settings.bin } : {}) },
    billing: { apiEnv: GEMINI_API_BILLING_ENV, endpointEnv: GEMINI_ENDPOINT_ENV },
    // A confined worker: the Gemini API and Google sign-in hosts; its own dir (~/.gemini: settings, sessions).
    sandbox: { hosts: ['generativelanguage.googleapis.com', 'cloudcode-pa.googleapis.com', 'oauth2.googleapis.com'], writePaths: [{ path: '~/.gemini' }] },
    env: { inherit: GEMINI_INHERIT_ENV, unset: GEMINI_UNSET_ENV, set: { GEMINI_CLI_NO_RELAUNCH: 'true' } },
    flags: {
      sessionId: '--session-id',
      model: '--model',
      permissionModes: modeFlags('--approval-mode', GEMINI_APPROVAL_MODES, ['default']),
      unattended: 'yolo',
      extraArgs: settings.args ?? [],
    },
    hooks: { events: GEMINI_HOOK_EVENTS, install: (context) => installGeminiHome(context, home) },
    screens: {
      fatal: GEMINI_FATAL,
      signIn: GEMINI_SIGN_IN,
      // A used-up daily quota blocks the turn on "Usage limit reached for <model>." (1. Keep trying,
      // 2. Stop) before the chat records any error (ACCOUNT-FACTS.md §3.2).
      account: [{ match: /^\s*│?\s*Usage limit reached for \S+/, kind: 'rate-limited' }],
      // "● 1. Trust folder" is preselected; Enter trusts the worker's folder.
      dialogs: [{ id: 'trust-folder', match: TRUST_TEXT, keys: ['Enter'] }],
      // The input box is drawn before the config is initialized; a prompt then is queued or, on the
      // real 0.61.0, mangled. SessionStart fires right after the initialization: only it means ready.
      ready: { hook: 'session' },
      inputPrompt: APPROVAL_RE,
      inputBox: GEMINI_INPUT_BOX,
    },
    // An Enter within ~45 ms of a paste becomes a newline (§6): wait, then confirm by BeforeAgent.
    // Escape cancels a running turn (it never quits; §8), here a 429 the TUI keeps retrying.
    input: { submitDelayMs: 150, confirmTimeoutMs: 1000, maxSubmitRetries: 3, alwaysPaste: true, cancelKeys: ['Escape'] },
    prompt: GEMINI_PROMPT,
    payload: GEMINI_PAYLOAD,
    transcript: {
      parse: replayGeminiChat,
      turn: geminiTurn,
      sideRecords: GEMINI_SIDE_RECORDS,
      messages: (chat, options) => geminiMessages(chat, chatOptions(options)),
    },
    tools: GEMINI_TOOLS,
  });
}

/** The default Gemini CLI provider. */
export const gemini: ProviderV1 = createGemini();
