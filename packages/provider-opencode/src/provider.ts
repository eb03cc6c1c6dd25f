/** The opencode provider: its facts compiled by the provider kit, on `@umbel/provider` alone (as a third party would write it). */
import { dirname } from 'node:path';
import type { CliSettings, ProviderV1, ProviderV1ValidateOptions } from '@umbel/provider';
import { checkModel, checkModelFormat, cliBinary, defineProvider, listModels, UsageError } from '@umbel/provider';
import { type ConfigDirOptions, installConfigDir, offlineEnv } from './config-dir.js';
import {
  OPENCODE_API_BILLING_ENV,
  OPENCODE_BILLING_UNKNOWABLE,
  OPENCODE_INHERIT_ENV,
  OPENCODE_MODELS,
  OPENCODE_PAYLOAD,
  OPENCODE_PERMISSION_MODES,
  OPENCODE_PROMPT,
  OPENCODE_SIGNALS,
  OPENCODE_TOOLS,
  PERMISSION_PROMPT,
} from './facts.js';
import { readOpencodeInputBox } from './screens.js';
import { opencodeMessages, opencodeTurn, parseSessionDoc } from './transcript.js';

/** The opencode releases these facts were verified on. */
export const OPENCODE_VERIFIED_VERSIONS = ['1.18.33'] as const;

/** Settings of {@link createOpencode} (and of the worker config dir: retries, config overrides). */
export interface OpencodeSettings extends ConfigDirOptions, CliSettings {
  /** Check `--model` against `opencode models` before launching. Default true. */
  readonly checkModel?: boolean;
  /** Provider id (default `opencode`), to register a second configuration. */
  readonly providerId?: string;
}

/** The checks opencode needs before any I/O. */
function validate({ spawn }: ProviderV1ValidateOptions): void {
  if (spawn.model !== undefined) checkModelFormat(OPENCODE_MODELS, spawn.model);
  if (spawn.env.OPENCODE_CONFIG_DIR !== undefined) {
    throw new UsageError("OPENCODE_CONFIG_DIR is umbel's per-worker plugin dir for opencode and cannot be passed in", {
      hint: 'your ~/.config/opencode and the project .opencode/ still apply; pass an extra config file with OPENCODE_CONFIG',
    });
  }
}

/**
 * Create the opencode provider.
 * @example
 * const engine = createUmbel({ substrate, providers: [createOpencode()] });
 */
export function createOpencode(settings: OpencodeSettings = {}): ProviderV1 {
  return defineProvider({
    id: settings.providerId ?? 'opencode',
    displayName: 'opencode',
    description: 'opencode (`opencode`), on the providers, models and keys of your own opencode config',
    verifiedVersions: OPENCODE_VERIFIED_VERSIONS,
    binary: cliBinary('opencode', 'npm install -g opencode-ai', settings),
    env: { inherit: OPENCODE_INHERIT_ENV },
    billing: {
      apiEnv: OPENCODE_API_BILLING_ENV,
      detect: () => ({ billing: 'unknown', evidence: OPENCODE_BILLING_UNKNOWABLE }),
      unknowableBeforeStart: OPENCODE_BILLING_UNKNOWABLE,
    },
    flags: {
      // REVIVE-FACTS.md §3: `--session <ses_…>` opens that stored session, the next request carries its earlier turns
      resume: (sessionId) => ['--session', sessionId],
      model: '--model',
      permissionModes: Object.fromEntries(Object.keys(OPENCODE_PERMISSION_MODES).map((mode) => [mode, []])),
      unattended: 'allow',
      extraArgs: settings.extraArgs ?? [],
    },
    // the plugin reports its load at startup (the ready signal); opencode creates the session, named then, at the first prompt
    hooks: { events: OPENCODE_SIGNALS, sessionAt: 'first-prompt', install: (context) => installConfigDir(context, settings) },
    screens: {
      // the plugin's factory runs before the TUI takes input; the input box is drawn once it does
      ready: { hook: 'session', inputBox: true },
      inputPrompt: PERMISSION_PROMPT,
      // Ctrl-C clears a draft; on an empty box it quits opencode, so it is pressed only while the box holds text.
      inputBox: { read: readOpencodeInputBox, clearKeys: ['C-c'] },
    },
    // Pasted, never typed (a typed TAB switches the agent); the chat.message hook confirms the submit.
    input: { submitDelayMs: 150, confirmTimeoutMs: 3000, maxSubmitRetries: 3, alwaysPaste: true },
    prompt: OPENCODE_PROMPT,
    payload: OPENCODE_PAYLOAD,
    transcript: { parse: parseSessionDoc, turn: opencodeTurn, messages: opencodeMessages },
    // a subagent's child session's transcript, beside the worker's (BACKGROUND-FACTS.md §6)
    activityDirs: (transcriptPath) => [dirname(transcriptPath)],
    validate,
    tools: OPENCODE_TOOLS,
    // the model list is read with the worker's env (its providers and keys) and offline npm as the worker gets it
    checkLaunch: async (binary, options) => {
      if (settings.checkModel !== false && options.model !== undefined)
        checkModel(OPENCODE_MODELS, options.model, await listModels(OPENCODE_MODELS, binary, { ...options.env, ...offlineEnv(options.env) }, options.cwd));
    },
  });
}

/** The default opencode provider. */
export const opencode: ProviderV1 = createOpencode();
