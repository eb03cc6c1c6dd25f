/** The codex provider: Codex's facts (test-fixtures/real/codex-FACTS.md) on the provider kit; its home ./codex-home.ts, its reader ./rollout.ts. */
import type { CliSettings, DialogFact, InputBoxFacts, Matcher, PayloadFacts, ProviderV1, ProviderV1EventInfo } from '@umbel/provider';
import { cliBinary, definedMembers, defineProvider, modeFlags, permissionInput, stringField } from '@umbel/provider';
import { CODEX_HOOK_EVENTS, installCodexHome } from './codex-home.js';
import { codexMessages, codexTurn, parseCodexRollout } from './rollout.js';
import { CODEX_TOOLS } from './tools.js';

/** Configuration variables a worker inherits: none (codex-FACTS.md: "Environment"). */
export const CODEX_INHERIT_ENV: readonly string[] = [];

/** Startup dialogs and the keys that dismiss each safely (codex-FACTS.md: "Startup dialogs"). */
export const CODEX_DIALOGS: readonly DialogFact[] = [
  { id: 'update', match: /Update available!/, keys: ['Down', 'Enter'] },
  { id: 'trust', match: /Trust this folder\?|trust the contents of this directory/i, keys: ['Enter'] },
  { id: 'hooks-review', match: /Hooks need review/i, keys: ['Down', 'Enter'] },
  { id: 'model-migration', match: /Meet GPT-|Try new model/, keys: ['Down', 'Enter'] },
];

/** Lines that mean codex wants a sign-in (0.169.0 shows the first; older builds the others). */
export const CODEX_SIGN_IN: readonly Matcher[] = [
  /Welcome to Codex, OpenAI's command-line coding agent/,
  /Sign in with ChatGPT to use Codex/,
  /or connect an API key for usage-based billing/,
  /^\s*[›>] 1\. Sign in with ChatGPT/,
];

/** The faint suggestions an empty composer shows (codex rotates them). */
export const CODEX_PLACEHOLDERS = [
  'Ask Codex to do anything',
  'Implement {feature}',
  'Use /skills to list available skills',
  'Write tests for @filename',
  'Explain this codebase',
  'Find and fix a bug in @filename',
  'Run /review on my current changes',
  'Summarize recent commits',
  'Improve documentation in @filename',
  'Check recently modified functions for compatibility',
  'How many files have been modified?',
  'Will this algorithm scale well?',
] as const;

/** The composer, down to the status line (codex-FACTS.md: "The composer"; Ctrl-C on an empty one QUITS codex). */
export const CODEX_COMPOSER: InputBoxFacts = {
  start: /^› ?(.*)$/,
  above: /^\s*$/,
  end: /^ {2}\S+(?: \S+)* · [~/]/,
  empty: CODEX_PLACEHOLDERS,
  clearKeys: ['C-c'],
};

/** Prefix of the hidden title thread's prompt (§2.4); its notify must be ignored. */
export const TITLE_PROMPT_PREFIX = 'Generate a concise, single-line task title';

/** The legacy `notify` program's payload (`agent-turn-complete`): no transcript path; the title thread fires it too. */
function legacyNotify(p: Record<string, unknown>): ProviderV1EventInfo {
  const first = Array.isArray(p['input-messages']) ? (p['input-messages'][0] as unknown) : undefined;
  if (typeof first === 'string' && first.startsWith(TITLE_PROMPT_PREFIX)) return {};
  return definedMembers({ sessionId: stringField(p, 'thread-id'), turnKey: stringField(p, 'turn-id'), lastMessage: stringField(p, 'last-assistant-message') });
}

/** What codex hook payloads say (§6.3). */
export const CODEX_PAYLOAD: PayloadFacts = {
  sessionId: 'session_id',
  transcriptPath: 'transcript_path',
  turnKey: 'turn_id',
  lastMessage: { stop: 'last_assistant_message' },
  needsInput: permissionInput({ tool: ['tool_name'], what: ['tool_input.description', 'tool_input.command'], fallback: '' }),
  activity: (p) => [stringField(p, 'tool_name') ?? 'tool', stringField(p, 'tool_input.command')].filter(Boolean).join(': '),
  refine: (event, p, info) => (p.type === 'agent-turn-complete' ? legacyNotify(p) : typeof p.agent_id === 'string' ? ofAgent(event.kind, info) : info),
};

/** A spawned agent's hook (`agent_id`; BACKGROUND-FACTS.md §9) names its rollout, never the worker's; its prompt is self-started (confirms no turn umbel sent). */
const ofAgent = (kind: string, info: ProviderV1EventInfo) =>
  definedMembers({ ...info, transcriptPath: undefined, ...(kind === 'prompt' && { selfStarted: true as const }) });

/** Codex CLI releases these facts were verified on (oldest first; the last is the pinned real CLI). */
export const CODEX_VERIFIED_VERSIONS = ['0.169.0', '0.171.0'] as const;

/** Settings of `createCodex`. */
export interface CodexSettings extends CliSettings {
  /** The user's own CODEX_HOME to derive the managed one from. Default: `$CODEX_HOME`, else `~/.codex`. */
  readonly userHome?: string;
}

/** Create the codex provider. */
export function createCodex(settings: CodexSettings = {}): ProviderV1 {
  return defineProvider({
    id: 'codex',
    displayName: 'OpenAI Codex',
    description: "OpenAI's Codex CLI (`codex`), on your ChatGPT login",
    verifiedVersions: CODEX_VERIFIED_VERSIONS,
    binary: cliBinary('codex', 'npm install -g @openai/codex', settings),
    env: { inherit: CODEX_INHERIT_ENV },
    // API billing instead of the plan (ACCOUNT-FACTS §2.1): never inherited; without auth.json the TUI ignores both.
    billing: { apiEnv: ['CODEX_API_KEY', 'OPENAI_API_KEY'] },
    // A confined worker: the API and ChatGPT-login hosts (its CODEX_HOME is umbel's, under the provider's shared dir).
    sandbox: { hosts: ['api.openai.com', 'chatgpt.com', 'auth.openai.com'] },
    flags: {
      // REVIVE-FACTS.md §1: `resume <id>` (umbel's options after it) continues thread <id> in its rollout
      resume: (sessionId) => ['resume', sessionId],
      model: '--model',
      permissionModes: {
        default: [],
        ...modeFlags('--ask-for-approval', ['on-request', 'never']),
        bypassPermissions: ['--dangerously-bypass-approvals-and-sandbox'],
      },
      unattended: 'bypassPermissions',
      extraArgs: settings.extraArgs ?? [],
      prompt: (text) => ['--', text], // codex.md §5.3: `codex "PROMPT"` submits at once; `--`: no prompt is an option
    },
    // SessionStart fires at the first submit, not at launch (reference codex.md §6.3)
    hooks: { events: CODEX_HOOK_EVENTS, sessionAt: 'first-prompt', install: (context) => installCodexHome(context, settings.userHome) },
    screens: {
      fatal: [{ match: /^Error: loading config\.toml: .*$/ }, { match: /^Error: CODEX_HOME .*$/ }, { match: /Missing optional dependency @openai\/codex.*$/ }],
      signIn: CODEX_SIGN_IN,
      dialogs: CODEX_DIALOGS,
      ready: { inputBox: true },
      // The approval prompt drawn and taking keys (§9); the PermissionRequest hook fires before it is.
      inputPrompt: /^\s*Press enter to confirm or esc to cancel\s*$/m,
      inputBox: CODEX_COMPOSER,
    },
    input: { confirmTimeoutMs: 3000, maxSubmitRetries: 3, alwaysPaste: true }, // codex-FACTS.md: "Input"
    // `/` starts a slash command, `!` a shell command: a leading space avoids both (codex-FACTS.md: "Input")
    prompt: { normalizeNewlines: true, escapeLeading: ['/', '!'] },
    payload: CODEX_PAYLOAD,
    transcript: { parse: parseCodexRollout, turn: codexTurn, messages: codexMessages },
    tools: CODEX_TOOLS,
  });
}

/** The default codex provider. */
export const codex: ProviderV1 = createCodex();
