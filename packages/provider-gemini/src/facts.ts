/**
 * Gemini CLI's facts (reference gemini.md; verified on 0.61.0): env, approval modes, hook events,
 * screens, prompt rules and hook payload fields. The worker home that installs the hooks is
 * ./home.ts and ./settings.ts; the chat reader is ./chat.ts.
 */
import type { HookEvent, HookKind, ProviderV1EventInfo } from '@umbel/provider';
import { type FatalFact, type InputBoxFacts, type Matcher, type PayloadFacts, type PromptFacts, stringField, toolActivity } from '@umbel/provider';

/** `--approval-mode` values of Gemini CLI. */
export const GEMINI_APPROVAL_MODES = ['default', 'auto_edit', 'yolo', 'plan'] as const;

/** Configuration variables a worker inherits, named one by one (never `GEMINI_CLI*`: a parent CLI's markers and IDE state). */
export const GEMINI_INHERIT_ENV = [
  'GOOGLE_GEMINI_BASE_URL',
  'GOOGLE_VERTEX_BASE_URL',
  'GOOGLE_GENAI_USE_GCA',
  'GOOGLE_GENAI_API_VERSION',
  'GOOGLE_CLOUD_PROJECT',
  'GOOGLE_CLOUD_LOCATION',
  'GEMINI_MODEL',
  'GEMINI_SYSTEM_MD',
  'GEMINI_CLI_CUSTOM_HEADERS',
  'GEMINI_CLI_TRUSTED_FOLDERS_PATH',
  'GEMINI_CLI_SYSTEM_SETTINGS_PATH',
  'GEMINI_CLI_SYSTEM_DEFAULTS_PATH',
  'NO_BROWSER',
] as const;

/**
 * Variables that bill the Gemini API or a Google Cloud account instead of a Google login
 * (ACCOUNT-FACTS §3.1): never inherited; a worker gets one only when the caller passes it. Kept
 * inherited: GOOGLE_CLOUD_PROJECT/_LOCATION (a Code Assist login for a workspace account needs the
 * project too; alone they switch nothing) and the base URLs (no key, no API call).
 */
export const GEMINI_API_BILLING_ENV = ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENAI_USE_VERTEXAI', 'GOOGLE_APPLICATION_CREDENTIALS'] as const;

/** Variables naming the endpoint Gemini CLI calls (status shows it, credentials removed). */
export const GEMINI_ENDPOINT_ENV = ['GOOGLE_GEMINI_BASE_URL', 'GOOGLE_VERTEX_BASE_URL'] as const;

/** Removed from a worker's env: each one makes gemini run headless even on a terminal. */
export const GEMINI_UNSET_ENV = ['CI', 'GITHUB_ACTIONS'] as const;

/** Gemini hook events umbel listens to, and the neutral kind each becomes. */
export const GEMINI_HOOK_EVENTS = {
  SessionStart: 'session',
  BeforeAgent: 'prompt',
  AfterAgent: 'stop',
  Notification: 'notify',
  BeforeTool: 'tool',
  SessionEnd: 'session-end',
} as const satisfies Record<string, HookKind>;

/** The first-launch auth question (also the sign-in screen of a signed-out CLI). */
export const SIGN_IN_TEXT = 'How would you like to authenticate for this project?';
/** The API-key entry box shown after choosing "Use Gemini API Key" without a key. */
export const API_KEY_ENTRY_TEXT = 'Enter Gemini API Key';
/** The folder-trust dialog (umbel pre-trusts the worker cwd, so this is a fallback). */
export const TRUST_TEXT = 'Do you trust the files in this folder?';
/** The first option of a tool approval box (§7), drawn once the box takes keys. */
export const APPROVAL_RE = /● 1\. Allow once/;

export const GEMINI_SIGN_IN: readonly Matcher[] = [SIGN_IN_TEXT, API_KEY_ENTRY_TEXT];

const fatal = (match: RegExp, message: string): FatalFact => ({ match, message: (line) => `${message}: ${line}` });

/** Messages that mean the CLI will never reach its prompt. */
export const GEMINI_FATAL: readonly FatalFact[] = [
  fatal(/No input provided via stdin/, 'gemini started in headless mode (CI=true or GITHUB_ACTIONS=true reached it) and exited'),
  fatal(/Invalid auth method selected/, 'gemini rejected its auth method (set security.auth.selectedType, or pass GEMINI_API_KEY)'),
  fatal(/must specify the GEMINI_API_KEY environment variable/, 'gemini needs GEMINI_API_KEY (pass it with --env GEMINI_API_KEY)'),
  fatal(/is not running in a trusted directory/, 'gemini refused an untrusted directory'),
  fatal(/Please fix the configuration file/, 'gemini refused its configuration file'),
];

/**
 * The input box: ` > text` (`*` in yolo mode, `!` in shell mode) down to the `workspace` footer; the
 * placeholder reads as empty. Ctrl-C with text clears it (§6); on an empty box it arms the exit
 * ("Press Ctrl+C again to exit."), so it is pressed only while the box holds text. (Esc Esc also
 * clears text, but on an empty box opens rewind.)
 */
export const GEMINI_INPUT_BOX: InputBoxFacts = {
  start: /^ [>*!] (.*)$/,
  end: /^ workspace \(/,
  empty: [/^Type your (message|shell command)\b/],
  clearKeys: ['C-c'],
};

/**
 * Prompts (§6): pasted byte-exact, but a first word that names a command (`/name …`) runs as a slash
 * command (built-in, custom or extension), and Enter after a trailing `\` inserts a newline instead
 * of submitting (a `\n` after it fixes that; the CLI trims it). `//…`, `/*…` and paths are text.
 */
export const GEMINI_PROMPT: PromptFacts = {
  refuse: [
    {
      match: /^\/[A-Za-z][\w:.-]*(?=\s|$)/,
      message: (command) => `gemini would run '${command}' as a slash command (built-in, custom or extension) instead of sending it to the model`,
      hint: (prompt) =>
        `put a word before it, e.g. 'Please: ${prompt.slice(0, 40)}', or send it with --command (command: true over MCP) to run it as gemini's command`,
    },
  ],
  trailing: [{ endsWith: '\\', append: '\n' }],
};

/** AfterAgent's `prompt_response` when the turn produced no text (API error, cancel). */
export const NO_RESPONSE_TEXT = '[no response text]';

/** `ToolPermission` notifications mean the approval box is up. */
function needsInput(event: HookEvent, p: Record<string, unknown>): ProviderV1EventInfo['needsInput'] {
  const type = stringField(p, 'notification_type');
  if (type !== 'ToolPermission' && !(event.kind === 'permission' && type === undefined)) return undefined;
  const tool = stringField(p, 'details.rootCommand') ?? stringField(p, 'details.title') ?? stringField(p, 'tool_name');
  const command = stringField(p, 'details.command');
  const message = stringField(p, 'message') ?? 'Gemini is asking for permission';
  return { kind: 'permission', message: command ? `${message}: ${command}` : message, ...(tool ? { tool } : {}) };
}

/**
 * Hook payloads (§4): every one carries `session_id` and `transcript_path`. BeforeAgent's
 * `timestamp` is the turn key (the prompt's record is written after it; see the chat reader).
 */
export const GEMINI_PAYLOAD: PayloadFacts = {
  sessionId: 'session_id',
  transcriptPath: 'transcript_path',
  turnKey: { prompt: 'timestamp' },
  lastMessage: { stop: { field: 'prompt_response', except: [NO_RESPONSE_TEXT] } },
  needsInput,
  activity: toolActivity({ tool: 'tool_name', input: 'tool_input', fields: ['command', 'file_path', 'dir_path', 'pattern'] }),
};
