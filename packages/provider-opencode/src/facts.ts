/** opencode's facts, verified on 1.18.33 (test-fixtures/fake-opencode/FACTS.md): env, permission modes, plugin signals, screens, prompts, payloads, tools. */
import {
  asRecord,
  type ModelListFacts,
  type PayloadFacts,
  type PromptFacts,
  permissionInput,
  stringField,
  subagentEvents,
  type ToolFacts,
  toolActivity,
} from '@umbel/provider';

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

/** The API keys (and cloud profile) of opencode's model providers: each bills that API; never inherited (opencode-FACTS.md: "Billing"). */
export const OPENCODE_API_BILLING_ENV = [
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  'OPENROUTER_API_KEY',
  'GOOGLE_GENERATIVE_AI_API_KEY',
  'GEMINI_API_KEY',
  'GROQ_API_KEY',
  'DEEPSEEK_API_KEY',
  'XAI_API_KEY',
  'MISTRAL_API_KEY',
  'TOGETHER_API_KEY',
  'FIREWORKS_API_KEY',
  'AZURE_API_KEY',
  'AWS_PROFILE',
] as const;

/** The billing verdict when no key was passed (a passed one bills its API): opencode's stored logins decide, unseen by umbel. */
export const OPENCODE_BILLING_UNKNOWABLE = "no API key passed; opencode's stored logins (opencode auth login) may bill a plan or an API";

/** Permission modes: no flag; a mode is a `permission` block in the worker's config, over the user's and project's (`default` keeps theirs). */
export const OPENCODE_PERMISSION_MODES = {
  default: undefined,
  /** Shell commands, file edits and web access ask first (a `needs-input` outcome). */
  ask: { bash: 'ask', edit: 'ask', webfetch: 'ask', websearch: 'ask' },
  /** Everything is allowed (what `--unattended` means). */
  allow: 'allow',
} as const satisfies Record<string, unknown>;
export type OpencodePermissionMode = keyof typeof OPENCODE_PERMISSION_MODES;

/** The `@opencode-ai/plugin` version opencode installs into every config dir (its own version). */
export const PLUGIN_PACKAGE_VERSION = '1.18.33';

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
