/** The opencode provider: its facts (test-fixtures/fake-opencode/FACTS.md) compiled by the kit on `@umbel/provider` alone, as a third party would write it. */
import type { CliSettings, ModelListFacts, PayloadFacts, PromptFacts, ProviderV1, ToolFacts } from '@umbel/provider';
import {
  activityDirsOf,
  asRecord,
  cliBinary,
  defineProvider,
  MODEL_VENDOR_KEY_ENV,
  permissionInput,
  stringField,
  subagentEvents,
  toolActivity,
} from '@umbel/provider';
import { type ConfigDirOptions, installConfigDir, OPENCODE_PERMISSION_MODES, offlineEnv } from './config-dir.js';
import { readOpencodeInputBox } from './screens.js';
import { opencodeMessages, opencodeTurn, parseSessionDoc } from './transcript.js';

/** The opencode releases these facts were verified on. */
export const OPENCODE_VERIFIED_VERSIONS = ['1.18.33'] as const;

/** Configuration variables a worker inherits, named one by one: opencode's switches, settings that pick no account (never OPENCODE_CONFIG_DIR). */
export const OPENCODE_INHERIT_ENV = [
  'OPENCODE_CONFIG',
  'OPENCODE_CONFIG_CONTENT',
  'OPENCODE_PERMISSION',
  'OPENCODE_DISABLE_PROJECT_CONFIG',
  'OPENCODE_DISABLE_MODELS_FETCH',
  'OPENCODE_DISABLE_AUTOUPDATE',
  'OPENCODE_DISABLE_LSP_DOWNLOAD',
  'OPENCODE_DISABLE_SHARE',
  'AWS_REGION',
  'AZURE_RESOURCE_NAME',
] as const;

/** The API keys (the kit's list) and cloud profile of opencode's model providers: each bills that API; never inherited (opencode-FACTS.md: "Billing"). */
export const OPENCODE_API_BILLING_ENV = [...MODEL_VENDOR_KEY_ENV, 'AWS_PROFILE'] as const;

/** The billing verdict when no key was passed (a passed one bills its API): opencode's stored logins decide, unseen by umbel. */
export const OPENCODE_BILLING_UNKNOWABLE = "no API key passed; opencode's stored logins (opencode auth login) may bill a plan or an API";

/** `--model` is checked against `opencode models` before launching (opencode-FACTS.md: "The model check"). */
export const OPENCODE_MODELS: ModelListFacts = {
  cli: 'opencode',
  args: ['models'],
  // provider/model (the model part may hold more slashes)
  id: /^[^/\s]+\/\S+$/,
  format: 'provider/model',
  example: 'anthropic/claude-sonnet-4-5',
  scratchEnv: ['XDG_STATE_HOME'],
  errorPrefix: 'Opencode',
};

/** The permission dialog drawn and taking keys (Enter = Allow once, Escape = Reject). */
export const PERMISSION_PROMPT = /△ Permission required|Allow once\s+Allow always\s+Reject/;

/** Prompts: pasted, CR as LF, a leading `/` (a command: `/exit` would quit) escaped by a space (FACTS.md §d). */
export const OPENCODE_PROMPT: PromptFacts = { normalizeNewlines: true, escapeLeading: ['/'] };

/** One line for a tool-kind payload: the tool and its main argument, a permission answer, or a retry. */
export function activityOf(p: Record<string, unknown>): string | undefined {
  const status = asRecord(p.status);
  if (status?.type === 'retry') {
    const secs = Math.max(0, Math.round((Number(status.next ?? 0) - Date.now()) / 1000));
    return `retrying (attempt ${String(status.attempt ?? '?')}${Number.isFinite(secs) ? `, next in ${secs}s` : ''}): ${stringField(status, 'message') ?? 'the model request failed'}`;
  }
  const reply = stringField(p, 'reply');
  if (reply) return `permission answered: ${reply}`;
  const tool = stringField(p, 'tool');
  return tool ? toolActivity(tool, p.args, ['command', 'filePath', 'pattern', 'url', 'path'], 'colon') : undefined;
}

/** What the plugin's payloads say (./plugin.ts writes them). */
export const OPENCODE_PAYLOAD: PayloadFacts = {
  sessionId: 'sessionID',
  transcriptPath: 'transcriptPath',
  turnKey: { prompt: 'messageID', stop: 'messageID', 'stop-failure': 'messageID' },
  error: { fields: ['message', 'error.message'], fallback: 'opencode reported an error' },
  // `permission.asked`: the tool named, and what it would do
  needsInput: permissionInput({ tool: ['permission'], what: ['metadata.command', 'metadata.filepath', 'patterns'], fallback: 'opencode asks to use {tool}' }),
  activity: activityOf,
  // a subagent's child session is not the worker's (opencode-FACTS.md: "Child sessions")
  refine: subagentEvents({ field: 'parentSessionID' }),
};

/** The opencode signals the plugin delivers (./plugin.ts), and the hook kind each becomes. */
export const OPENCODE_SIGNALS = {
  'plugin.loaded': 'session',
  'session.created': 'session',
  'chat.message': 'prompt',
  'tool.execute.before': 'tool',
  'permission.asked': 'permission',
  'permission.replied': 'tool',
  'session.status.retry': 'tool',
  'session.error': 'stop-failure',
  'session.idle': 'stop',
} as const;

/** What opencode's tool calls do (their inputs: FACTS.md, "The requests opencode sends"). */
export const OPENCODE_TOOLS: ToolFacts = {
  table: {
    bash: { does: 'command', fields: ['command'] },
    read: { does: 'read', fields: ['filePath'] },
    edit: { does: 'edited', fields: ['filePath'] },
    patch: { does: 'edited', fields: ['filePath'] },
    write: { does: 'written', fields: ['filePath'] },
  },
};

/** OPENCODE_CONFIG_DIR is umbel's (the worker's config dir): a spawn that passes it is refused, with this hint. */
const CONFIG_DIR_HINT = 'your ~/.config/opencode and the project .opencode/ still apply; pass an extra config file with OPENCODE_CONFIG';

/** Settings of {@link createOpencode} (and of the worker config dir: retries, config overrides). */
export interface OpencodeSettings extends ConfigDirOptions, CliSettings {
  /** Check `--model` against `opencode models` before launching. Default true. */
  readonly checkModel?: boolean;
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
    env: { inherit: OPENCODE_INHERIT_ENV, owned: { OPENCODE_CONFIG_DIR: { what: 'per-worker plugin dir for opencode', hint: CONFIG_DIR_HINT } } },
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
    activityDirs: activityDirsOf({ transcript: /^(.+)\/[^/]+$/, dirs: ['$1'] }),
    tools: OPENCODE_TOOLS,
    // the model list is read with the worker's env (its providers and keys) and offline npm as the worker gets it
    models: { ...OPENCODE_MODELS, env: (env) => ({ ...env, ...offlineEnv(env) }), check: settings.checkModel !== false },
  });
}

/** The default opencode provider. */
export const opencode: ProviderV1 = createOpencode();
