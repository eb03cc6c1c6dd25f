/** Gemini CLI's facts (verified on 0.61.0; GEMINI-FACTS.md): env, billing, modes, hook events, screens, prompts, payloads, tools; the home: ./home.ts. */
import type { FatalFact, HookKind, InputBoxFacts, Matcher, PayloadFacts, PromptFacts, ProviderV1ToolCall, ProviderV1ToolUse, ToolFacts } from '@umbel/provider';
import { classifyTool, commandPrompt, namedBilling, payloadActivity, permissionInput, toolErrorReader, valueAt } from '@umbel/provider';

/** `--approval-mode` values of Gemini CLI. */
export const GEMINI_APPROVAL_MODES = ['default', 'auto_edit', 'yolo', 'plan'] as const;

/** Configuration variables a worker inherits, named one by one (GEMINI-FACTS.md: "Environment and billing"). */
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

/** Variables that bill the Gemini API or a Google Cloud account, never inherited (GEMINI-FACTS.md: "Environment and billing"). */
export const GEMINI_API_BILLING_ENV = ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENAI_USE_VERTEXAI', 'GOOGLE_APPLICATION_CREDENTIALS'] as const;

/** What each auth type of the settings (`security.auth.selectedType`) bills (GEMINI-FACTS.md: "Environment and billing"). */
const AUTH_TYPE = ['security', 'auth', 'selectedType'];
const AUTH_BILLING = { source: AUTH_TYPE.join('.'), billing: { 'oauth-personal': 'subscription', 'cloud-shell': 'unknown' }, otherwise: 'api' } as const;
/** How a worker bills, from the auth type its settings select. */
export const geminiBilling = (settings: Readonly<Record<string, unknown>>) => namedBilling(valueAt(settings, AUTH_TYPE), AUTH_BILLING);

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

// the sign-in question, the API-key box, the trust dialog, a tool approval box's first option (GEMINI-FACTS.md: "Screens and prompts")
export const SIGN_IN_TEXT = 'How would you like to authenticate for this project?';
export const API_KEY_ENTRY_TEXT = 'Enter Gemini API Key';
export const TRUST_TEXT = 'Do you trust the files in this folder?';
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

/** The input box; Ctrl-C clears it, pressed only while it holds text (GEMINI-FACTS.md: "Screens and prompts"). */
export const GEMINI_INPUT_BOX: InputBoxFacts = {
  start: /^ [>*!] (.*)$/,
  end: /^ workspace \(/,
  empty: [/^Type your (message|shell command)\b/],
  clearKeys: ['C-c'],
};

/** Prompts: a leading `/name` runs a slash command, a trailing `\` needs a `\n` (GEMINI-FACTS.md: "Screens and prompts"). */
const HINT_MORE = ", or send it with --command (command: true over MCP) to run it as gemini's command";
const SLASH_COMMAND = commandPrompt({ cli: 'gemini', as: 'a slash command (built-in, custom or extension)', hintMore: HINT_MORE });
export const GEMINI_PROMPT: PromptFacts = { refuse: [SLASH_COMMAND], trailing: [{ endsWith: '\\', append: '\n' }] };

/** AfterAgent's `prompt_response` when the turn produced no text (API error, cancel). */
export const NO_RESPONSE_TEXT = '[no response text]';

/** Hook payloads; BeforeAgent's `timestamp` is the turn key (GEMINI-FACTS.md: "Screens and prompts", "Chat recording"). */
export const GEMINI_PAYLOAD: PayloadFacts = {
  sessionId: 'session_id',
  transcriptPath: 'transcript_path',
  turnKey: { prompt: 'timestamp' },
  lastMessage: { stop: { field: 'prompt_response', except: [NO_RESPONSE_TEXT] } },
  // `ToolPermission` notifications mean the approval box is up
  needsInput: permissionInput({
    notify: { field: 'notification_type', value: 'ToolPermission' },
    tool: ['details.rootCommand', 'details.title', 'tool_name'],
    what: ['details.command'],
    message: 'message',
    fallback: 'Gemini is asking for permission',
  }),
  activity: payloadActivity({ tool: 'tool_name', input: 'tool_input', fields: ['command', 'file_path', 'dir_path', 'pattern'] }),
};

const FILE = ['file_path', 'absolute_path'];

/** The error a Gemini CLI tool result reports. */
export const readGeminiToolError = toolErrorReader({
  json: true,
  exitCode: /^\[?Exit Code: (-?\d+)\]?$/m,
  output: /^Output: ([\s\S]*?)(?:\n(?:Error|Exit Code|Signal|Process Group PGID):|$)/m,
  noOutput: '(empty)',
});

/** The tool facts of the Gemini CLI provider (GEMINI-FACTS.md: "Tools"). */
export const GEMINI_TOOLS: ToolFacts = {
  table: {
    read_file: { does: 'read', fields: FILE },
    read_many_files: { does: 'read', fields: ['include', 'paths'] },
    write_file: { does: 'written', fields: FILE },
    replace: { does: 'edited', fields: FILE },
    edit: { does: 'edited', fields: FILE },
    run_shell_command: { does: 'command', fields: ['command'] },
  },
  readError: readGeminiToolError,
};

/** Classify one Gemini CLI tool call. */
export const classifyGeminiTool = (call: ProviderV1ToolCall): ProviderV1ToolUse => classifyTool(GEMINI_TOOLS, call);
