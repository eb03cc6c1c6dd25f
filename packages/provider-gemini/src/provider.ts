/** The Gemini CLI provider: its facts compiled by the provider kit (the launch: GEMINI-FACTS.md "Launch"). */
import type { CliSettings, ProviderV1 } from '@umbel/provider';
import { activityDirsOf, cliBinary, defineProvider, modeFlags } from '@umbel/provider';
import { chatOptions, geminiMessages, replayGeminiChat } from './chat.js';
import * as facts from './facts.js';
import { type GeminiHomeOptions, installGeminiHome } from './home.js';
import { GEMINI_SIDE_RECORDS, geminiTurn } from './telemetry.js';

/** Version of this package. */
export const VERSION = '0.1.0';
/** Gemini CLI releases these facts were verified on (oldest first; the last is the pinned real CLI). */
export const GEMINI_VERIFIED_VERSIONS = ['0.61.0'] as const;
/** @deprecated The newest of {@link GEMINI_VERIFIED_VERSIONS}; use that list. */
export const GEMINI_CLI_VERIFIED_VERSION: string = GEMINI_VERIFIED_VERSIONS[GEMINI_VERIFIED_VERSIONS.length - 1]!;

/** Settings of {@link createGemini}: the kit's {@link CliSettings} (`bin`, `extraArgs`, `providerId`) and the worker home's. */
export interface GeminiSettings extends CliSettings, GeminiHomeOptions {
  /** @deprecated The same as `extraArgs` (its name before the kit's settings); used when `extraArgs` is absent. */
  readonly args?: readonly string[];
}

/**
 * Create the Gemini CLI provider.
 * @example
 * const engine = createUmbel({ substrate, providers: [createGemini()] });
 */
export function createGemini(settings: GeminiSettings = {}): ProviderV1 {
  return defineProvider({
    id: settings.providerId ?? 'gemini',
    displayName: 'Gemini CLI',
    description: "Google's Gemini CLI (`gemini`), on your Google login or a Gemini API key",
    verifiedVersions: GEMINI_VERIFIED_VERSIONS,
    binary: cliBinary('gemini', 'npm install -g @google/gemini-cli', settings),
    billing: { apiEnv: facts.GEMINI_API_BILLING_ENV, endpointEnv: facts.GEMINI_ENDPOINT_ENV },
    sandbox: { hosts: ['generativelanguage.googleapis.com', 'cloudcode-pa.googleapis.com', 'oauth2.googleapis.com'], writePaths: [{ path: '~/.gemini' }] },
    env: { inherit: facts.GEMINI_INHERIT_ENV, unset: facts.GEMINI_UNSET_ENV, set: { GEMINI_CLI_NO_RELAUNCH: 'true' } },
    flags: {
      sessionId: '--session-id',
      model: '--model',
      permissionModes: modeFlags('--approval-mode', facts.GEMINI_APPROVAL_MODES, ['default']),
      unattended: 'yolo',
      extraArgs: settings.extraArgs ?? settings.args ?? [],
    },
    hooks: { events: facts.GEMINI_HOOK_EVENTS, install: (context) => installGeminiHome(context, settings) },
    screens: {
      fatal: facts.GEMINI_FATAL,
      signIn: facts.GEMINI_SIGN_IN,
      // GEMINI-FACTS.md: "Launch" (the daily quota's dialog, the trust dialog, ready, input)
      account: [{ match: /^\s*│?\s*Usage limit reached for \S+/, kind: 'rate-limited' }],
      dialogs: [{ id: 'trust-folder', match: facts.TRUST_TEXT, keys: ['Enter'] }],
      ready: { hook: 'session' },
      inputPrompt: facts.APPROVAL_RE,
      inputBox: facts.GEMINI_INPUT_BOX,
    },
    input: { submitDelayMs: 150, confirmTimeoutMs: 1000, maxSubmitRetries: 3, alwaysPaste: true, cancelKeys: ['Escape'] },
    prompt: facts.GEMINI_PROMPT,
    payload: facts.GEMINI_PAYLOAD,
    transcript: {
      parse: replayGeminiChat,
      turn: geminiTurn,
      sideRecords: GEMINI_SIDE_RECORDS,
      messages: (chat, options) => geminiMessages(chat, chatOptions(options)),
    },
    tools: facts.GEMINI_TOOLS,
    // a subagent's (invoke_agent's) chat: chats/<the main session id as the CLI's sanitizeFilenamePart makes it>/<its id>.jsonl (BACKGROUND-FACTS.md §8)
    activityDirs: activityDirsOf({ transcript: /^(.*\/chats)\/session-[^/]+\.jsonl$/, dirs: ['$1/{session}'], unsafe: /[^a-zA-Z0-9_-]/ }),
  });
}

/** The default Gemini CLI provider. */
export const gemini: ProviderV1 = createGemini();
