/**
 * The opencode provider: its facts compiled by the provider kit, on `@umbel/provider` alone
 * (as any third-party provider would be written).
 *
 * Launch: `opencode [--model provider/model]` with `OPENCODE_CONFIG_DIR=<workerDir>/opencode` (umbel's
 * plugin and settings, ./config-dir.ts) and, unless the worker env says otherwise,
 * `npm_config_offline=true` (the plugin-install trap). The model is checked against `opencode
 * models` first (./models.ts).
 */
import { type ProviderV1, type ProviderV1LaunchOptions, type ProviderV1ValidateOptions, UsageError } from '@umbel/provider';
import { defineProvider } from '@umbel/provider';
import { addsNpmOffline, installConfigDir, NPM_OFFLINE } from './config-dir.js';
import {
  MODEL_ID,
  OPENCODE_API_BILLING_ENV,
  OPENCODE_INHERIT_ENV,
  OPENCODE_PAYLOAD,
  OPENCODE_PERMISSION_MODES,
  OPENCODE_PROMPT,
  opencodeBilling,
  OPENCODE_BILLING_UNKNOWABLE,
  PERMISSION_PROMPT,
} from './facts.js';
import { checkModel, listModels } from './models.js';
import { OPENCODE_SIGNALS } from './plugin.js';
import { hasInputBox, readOpencodeInputBox } from './screens.js';
import { OPENCODE_TOOLS } from './tools.js';
import { opencodeMessages, opencodeTurn, parseSessionDoc } from './transcript.js';

/** The opencode releases these facts were verified on. */
export const OPENCODE_VERIFIED_VERSIONS = ['1.18.33'] as const;

/** Settings of {@link createOpencode}. */
export interface OpencodeSettings {
  /** The `opencode` executable (a path or a name on PATH). `UMBEL_OPENCODE_BIN` wins over it. */
  readonly bin?: string;
  /** Extra arguments appended to every launch (never env values). */
  readonly extraArgs?: readonly string[];
  /** Retries of a failing model request before umbel stops the turn as provider-error. Default 2. */
  readonly maxRetries?: number;
  /** A retry opencode would start later than this stops the turn at once (ms). Default 60 000. */
  readonly maxRetryDelayMs?: number;
  /** Deep-merged last into the worker's opencode.json. */
  readonly configOverrides?: Readonly<Record<string, unknown>>;
  /** Check `--model` against `opencode models` before launching. Default true. */
  readonly checkModel?: boolean;
  /** Provider id (default `opencode`), to register a second configuration. */
  readonly providerId?: string;
}

/** The checks opencode needs before any I/O. */
function validate({ spawn }: ProviderV1ValidateOptions): void {
  if (spawn.model !== undefined && !MODEL_ID.test(spawn.model)) {
    throw new UsageError(`opencode takes --model as provider/model (e.g. anthropic/claude-sonnet-4-5), not '${spawn.model}'`, {
      hint: 'run `opencode models` to see the ids',
    });
  }
  if (spawn.env.OPENCODE_CONFIG_DIR !== undefined) {
    throw new UsageError("OPENCODE_CONFIG_DIR is umbel's per-worker plugin dir for opencode and cannot be passed in", {
      hint: 'your ~/.config/opencode and the project .opencode/ still apply; pass an extra config file with OPENCODE_CONFIG',
    });
  }
}

/** The env `opencode models` runs with: the worker's (its providers and keys), offline npm as the worker gets it. */
function modelsEnv(options: ProviderV1LaunchOptions): Record<string, string> {
  return { ...options.env, ...(addsNpmOffline(options.env) ? { [NPM_OFFLINE[0]]: NPM_OFFLINE[1] } : {}) };
}

/**
 * Create the opencode provider.
 * @example
 * const engine = createUmbel({ substrate, providers: [createOpencode()] });
 */
export function createOpencode(settings: OpencodeSettings = {}): ProviderV1 {
  const configDir = {
    maxRetries: settings.maxRetries ?? 2,
    maxRetryDelayMs: settings.maxRetryDelayMs ?? 60_000,
    ...(settings.configOverrides ? { configOverrides: settings.configOverrides } : {}),
  };
  const check = settings.checkModel !== false;
  return defineProvider({
    id: settings.providerId ?? 'opencode',
    displayName: 'opencode',
    description: 'opencode (`opencode`), on the providers, models and keys of your own opencode config',
    verifiedVersions: OPENCODE_VERIFIED_VERSIONS,
    binary: { name: 'opencode', install: 'npm install -g opencode-ai', ...(settings.bin ? { configured: settings.bin } : {}) },
    env: { inherit: OPENCODE_INHERIT_ENV },
    billing: { apiEnv: OPENCODE_API_BILLING_ENV, detect: opencodeBilling, unknowableBeforeStart: OPENCODE_BILLING_UNKNOWABLE },
    flags: {
      // The TUI's `--session <ses_…>` opens that stored session in the same worker config dir, and the
      // next request carries its earlier turns (verified on 1.18.33: test-fixtures/real/REVIVE-FACTS.md §3).
      resume: (sessionId) => ['--session', sessionId],
      model: '--model',
      permissionModes: Object.fromEntries(Object.keys(OPENCODE_PERMISSION_MODES).map((mode) => [mode, []])),
      unattended: 'allow',
      extraArgs: settings.extraArgs ?? [],
    },
    // The plugin reports its load at startup (the ready signal, naming no session); opencode creates
    // the session, and the plugin names it, at the first prompt.
    hooks: { events: OPENCODE_SIGNALS, sessionAt: 'first-prompt', install: (context) => installConfigDir(context, configDir) },
    screens: {
      // the plugin's factory runs before the TUI takes input; the input box is drawn once it does
      ready: { hook: 'session', screen: hasInputBox },
      inputPrompt: PERMISSION_PROMPT,
      // Ctrl-C clears a draft; on an empty box it quits opencode, so it is pressed only while the box holds text.
      inputBox: { read: readOpencodeInputBox, clearKeys: ['C-c'] },
    },
    // Pasted, never typed (a typed TAB switches the agent); the chat.message hook confirms the submit.
    input: { submitDelayMs: 150, confirmTimeoutMs: 3000, maxSubmitRetries: 3, alwaysPaste: true },
    prompt: OPENCODE_PROMPT,
    payload: OPENCODE_PAYLOAD,
    transcript: { parse: parseSessionDoc, turn: opencodeTurn, messages: opencodeMessages },
    validate,
    tools: OPENCODE_TOOLS,
    checkLaunch: async (binary, options) => {
      if (check && options.model !== undefined) checkModel(options.model, await listModels(binary, modelsEnv(options), options.cwd));
    },
  });
}

/** The default opencode provider. */
export const opencode: ProviderV1 = createOpencode();
