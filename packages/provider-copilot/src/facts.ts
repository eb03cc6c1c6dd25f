/**
 * GitHub Copilot CLI's facts (test-fixtures/real/COPILOT-FACTS.md; verified on 1.0.102): env,
 * billing, permission modes, hooks, screens, prompt rules and payload fields. The worker's hooks
 * plugin is ./plugin-dir.ts, the session-events reader ./events.ts.
 */
import type {
  DialogFact,
  HookEvent,
  HookKind,
  InputBoxFacts,
  Matcher,
  PayloadFacts,
  PromptFacts,
  ProviderV1BillingInput,
  ProviderV1BillingReport,
  ProviderV1EventInfo,
  ToolFacts,
} from '@umbel/provider';
import { asRecord, commandPrompt, permissionInput, stringField, subagentEvents } from '@umbel/provider';

/**
 * Configuration variables a worker inherits, named one by one: where Copilot keeps its state and
 * sign-in (`COPILOT_HOME`), offline mode, the GitHub host of the sign-in, extra instruction dirs.
 * None of them picks a model provider or carries a credential.
 */
export const COPILOT_INHERIT_ENV = ['COPILOT_HOME', 'COPILOT_OFFLINE', 'COPILOT_GH_HOST', 'GH_HOST', 'COPILOT_CUSTOM_INSTRUCTIONS_DIRS'] as const;

/**
 * The variables that move a worker off the user's Copilot plan (GitHub sign-in): bring-your-own-key
 * providers (`COPILOT_PROVIDER_*`, billed by that provider) and GitHub tokens, which win over the
 * stored sign-in (`copilot help environment`). Never inherited; passed with `--env NAME` on purpose.
 */
export const COPILOT_API_BILLING_ENV = [
  'COPILOT_PROVIDER_BASE_URL',
  'COPILOT_PROVIDER_API_KEY',
  'COPILOT_PROVIDER_API_KEY_COMMAND',
  'COPILOT_PROVIDER_BEARER_TOKEN',
  'COPILOT_GITHUB_TOKEN',
  'GH_TOKEN',
  'GITHUB_TOKEN',
] as const;

/** Where a bring-your-own-key worker's model endpoint is named. */
export const COPILOT_ENDPOINT_ENV = ['COPILOT_PROVIDER_BASE_URL'] as const;

/** Variables every worker gets: no self-update under the user's feet (COPILOT-FACTS.md §1). */
export const COPILOT_SET_ENV = { COPILOT_AUTO_UPDATE: 'false' } as const;

/**
 * Variables never passed to a worker even when named: `COPILOT_ALLOW_ALL` approves every tool and,
 * set to exactly `true`, trusts the folder's hooks and MCP servers — umbel's permission modes say
 * that, not an inherited switch.
 */
export const COPILOT_UNSET_ENV = ['COPILOT_ALLOW_ALL'] as const;

/** What Copilot exports to the commands it runs (a worker started from inside Copilot must not inherit them). */
export const COPILOT_CHILD_MARKERS = ['COPILOT_CLI', 'COPILOT_AGENT_SESSION_ID', 'COPILOT_CLI_BINARY_VERSION', 'COPILOT_CLI_RESOLVED_DIST_DIR'] as const;

/**
 * The billing verdict: with none of {@link COPILOT_API_BILLING_ENV} passed, only the user's GitHub
 * sign-in can pay (BYOK is configured by env alone, `copilot help providers`): the Copilot plan.
 * With one passed, `unknown` here lets the kit name the variable as API billing.
 */
export function copilotBilling({ envNames }: ProviderV1BillingInput): ProviderV1BillingReport {
  if (COPILOT_API_BILLING_ENV.some((name) => envNames.includes(name))) return { billing: 'unknown' };
  return { billing: 'subscription', evidence: 'no COPILOT_PROVIDER_* or GitHub token variable passed: the GitHub sign-in (Copilot plan) pays' };
}

/**
 * Permission modes → arguments. `default` asks before tools that change things (the TUI's "Manual
 * Approval"); `plan` starts in plan mode; `allow` approves every tool, path and URL (`--allow-all`,
 * what `--unattended` means). Copilot has no finer modes.
 */
export const COPILOT_PERMISSION_MODES = {
  default: [],
  plan: ['--plan'],
  allow: ['--allow-all'],
} as const satisfies Record<string, readonly string[]>;

/**
 * The hook events umbel installs (COPILOT-FACTS.md §4) and the kind each becomes. `sessionStart`
 * fires at the first prompt, not at startup. `errorOccurred` fires once per failed model call,
 * retried or not (`recoverable: true` even for the last one): it is activity; the session events'
 * `session.error` ends the turn. A rejected permission or Escape fires no hook: `abort` in the
 * session events ends the turn.
 */
export const COPILOT_HOOK_EVENTS = {
  sessionStart: 'session',
  userPromptSubmitted: 'prompt',
  preToolUse: 'tool',
  postToolUse: 'tool',
  postToolUseFailure: 'tool',
  permissionRequest: 'permission',
  errorOccurred: 'tool',
  agentStop: 'stop',
} as const satisfies Record<string, HookKind>;

/** The folder-trust dialog shown for every folder not remembered; "1. Yes" (this session only) is preselected. */
export const TRUST_TEXT = /Confirm folder trust/;

/** Startup dialogs and the keys that answer them. */
export const COPILOT_DIALOGS: readonly DialogFact[] = [{ id: 'trust-folder', match: TRUST_TEXT, keys: ['Enter'] }];

/** No sign-in and no bring-your-own-key provider. */
export const COPILOT_SIGN_IN: readonly Matcher[] = [/Please use \/login to sign in/];

/** How a user signs Copilot in. */
export const COPILOT_SIGN_IN_HINT =
  'run `copilot login` (or `copilot` then /login) once in a terminal, or pass a BYOK provider with --env COPILOT_PROVIDER_BASE_URL';

/** A permission dialog drawn and taking keys (Enter = 1. Yes; Escape = stop the turn). */
export const PERMISSION_PROMPT = /No, and tell Copilot what to do differently/;

/**
 * The input box: `❯ text` at the left edge between two rules of `─`, the first row right below a
 * rule (the history echoes prompts as ` ❯ text`, indented). Continuation rows are indented by two.
 * Ctrl-C with text clears it; on an empty box it arms the exit, so it is pressed only while the box holds text.
 */
export const COPILOT_INPUT_BOX: InputBoxFacts = {
  start: /^❯ ?(.*)$/,
  above: /^─{20,}\s*$/,
  end: /^─{20,}\s*$/,
  clearKeys: ['C-c'],
};

/**
 * Prompts: pasted (bracketed). A leading `/` names a command: one leading space keeps it text (the
 * model gets ` /exit please`). A leading `!` runs a local shell command **even after spaces or a
 * newline** (verified on 1.0.102: ` !echo x` ran `echo x`), so such a prompt is refused. CR becomes
 * LF. (Copilot's box then turns a tab into four spaces and trims the end: COPILOT-FACTS.md §2.)
 */
export const COPILOT_PROMPT: PromptFacts = {
  normalizeNewlines: true,
  escapeLeading: ['/'],
  refuse: [commandPrompt({ cli: 'Copilot', as: 'a local shell command', match: /^![^\n]*/ })],
};

const str = (p: Record<string, unknown>, key: string) => stringField(p, key);

/** The fields of a tool call's main argument (`toolArgs`/`toolInput`: command, path, url). */
const ARG_FIELDS = ['command', 'path', 'url', 'pattern'];

/** A tool call as one line: the tool and its main argument (`bash: ls`), or the tool alone. */
export function toolLine(tool: string, args: unknown): string {
  const input = asRecord(args) ?? {};
  const arg = ARG_FIELDS.map((k) => input[k]).find((v): v is string => typeof v === 'string' && v !== '');
  return arg ? `${tool}: ${arg}` : tool;
}

/** One line for a tool-kind payload: a failed model call, or the tool and its main argument. */
export function activityOf(p: Record<string, unknown>): string | undefined {
  const error = asRecord(p.error);
  if (error) return `model call failed${p.recoverable === true ? ' (Copilot retries)' : ''}: ${str(error, 'message') ?? 'error'}`;
  const tool = str(p, 'toolName');
  return tool ? toolLine(tool, p.toolArgs) : undefined;
}

/** A subagent's (the `task` tool's) hooks carry its `agentId`: they take and end no turn (BACKGROUND-FACTS.md §7). */
const subagent = subagentEvents({ field: 'agentId', turnKey: (id) => `agent:${id}` });

/**
 * What the payload facts cannot say (BACKGROUND-FACTS.md §7): Copilot fires `userPromptSubmitted`
 * and `agentStop` for its subagents too (the `task` tool), with the subagent's `agentId` (also as
 * `sessionId`) and the main agent's as `parentAgentId` ({@link subagentEvents}). The turn Copilot
 * starts by itself when a background agent ends (prompt `<system_notification>…`) is self-started too.
 */
export function refineEvent(event: HookEvent, p: Record<string, unknown>, info: ProviderV1EventInfo): ProviderV1EventInfo {
  if (str(p, 'agentId')) return subagent(event, p, info);
  if (event.kind === 'prompt' && str(p, 'prompt')?.startsWith('<system_notification>')) return { ...info, selfStarted: true };
  return info;
}

/** What the hook payloads say (COPILOT-FACTS.md §4). */
export const COPILOT_PAYLOAD: PayloadFacts = {
  sessionId: 'sessionId',
  transcriptPath: 'transcriptPath',
  // `permissionRequest`: the tool named and what it would do
  needsInput: permissionInput({ tool: ['toolName'], what: ARG_FIELDS.map((k) => `toolInput.${k}`), fallback: 'Copilot asks to use {tool}' }),
  activity: (p) => activityOf(p),
  refine: refineEvent,
};

/** What its tool calls do, for `umbel actions` / `umbel diff`: `bash {command}`, `view`/`edit`/`create {path}` (COPILOT-FACTS.md §5); others name no file. */
export const COPILOT_TOOLS: ToolFacts = {
  table: {
    bash: { does: 'command', fields: ['command'] },
    view: { does: 'read', fields: ['path'] },
    edit: { does: 'edited', fields: ['path'] },
    create: { does: 'written', fields: ['path'] },
  },
};
