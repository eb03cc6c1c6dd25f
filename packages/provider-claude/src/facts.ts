/** Claude Code's facts as data (claude-code.md, test-fixtures/real/CLAUDE-FACTS.md; verified on 2.1.328, 2.1.332): env, billing, hooks, paths, tools. */
import type { AccountErrorNames, BackgroundTaskFacts, HookKind, NotificationFacts, PromptFacts, QuotaNames, RootModeFacts, ToolFacts } from '@umbel/provider';

/** Variables that switch Claude Code from the subscription login to API or cloud billing (ACCOUNT-FACTS.md §1.1): never inherited, passed only by name. */
export const CLAUDE_API_BILLING_ENV = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
  'CLAUDE_CODE_USE_FOUNDRY',
  'CLAUDE_CODE_USE_ANTHROPIC_AWS',
  'CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD',
  'CLAUDE_CODE_USE_MANTLE',
  'CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR',
] as const;

/** Claude Code's config dir (transcripts, history, settings) and, without `CLAUDE_CONFIG_DIR`, its state file `~/.claude.json` (§2.1). */
export const CLAUDE_CONFIG = { path: '~/.claude', env: 'CLAUDE_CONFIG_DIR' } as const;
export const CLAUDE_STATE_FILE = { path: '~/.claude.json' } as const;

/** A confined worker (`--sandbox`): the API and sign-in hosts; its config dir (transcripts) and `~/.claude.json`. */
export const CLAUDE_SANDBOX = {
  hosts: ['api.anthropic.com', 'console.anthropic.com', 'claude.ai', 'statsig.anthropic.com'],
  writePaths: [CLAUDE_CONFIG, CLAUDE_STATE_FILE],
};

/** Variables naming the endpoint Claude Code calls (status shows it, credentials removed). */
export const CLAUDE_ENDPOINT_ENV = ['ANTHROPIC_BASE_URL'] as const;

/** Configuration variables a worker inherits, named one by one (never `CLAUDE_*`: see the markers; never the API-billing ones). */
export const CLAUDE_INHERIT_ENV = [
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_MODEL',
  'ANTHROPIC_SMALL_FAST_MODEL',
  'ANTHROPIC_DEFAULT_OPUS_MODEL',
  'ANTHROPIC_DEFAULT_SONNET_MODEL',
  'ANTHROPIC_DEFAULT_HAIKU_MODEL',
  'ANTHROPIC_CUSTOM_HEADERS',
  'CLAUDE_CONFIG_DIR',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'API_TIMEOUT_MS',
  'CLAUDE_CODE_MAX_RETRIES',
  'AWS_REGION',
  'AWS_PROFILE',
  'CLOUD_ML_REGION',
  'ANTHROPIC_VERTEX_PROJECT_ID',
  'DISABLE_TELEMETRY',
] as const;

/** Markers a running Claude Code exports to its children (§3, §8); inheriting `CLAUDE_CODE_CHILD_SESSION` turns the transcript off. */
export const CLAUDE_CHILD_MARKERS = [
  'CLAUDECODE',
  'CLAUDE_CODE_CHILD_SESSION',
  'CLAUDE_CODE_ENTRYPOINT',
  'CLAUDE_CODE_SESSION_ID',
  'CLAUDE_PID',
  'CLAUDE_CODE_SESSION_ATTENDED',
  'CLAUDE_CODE_EXECPATH',
  'CLAUDE_CODE_MESSAGING_SOCKET',
  'CLAUDE_CODE_MESSAGING_TOKEN',
  'CLAUDE_CODE_CHILD_NOTES_DIR',
  'CLAUDE_EFFORT',
  'CLAUDE_PROJECT_DIR',
  'CLAUDE_ENV_FILE',
] as const;

/** With both, Claude Code sends both headers and stops on its "custom API key" dialog (upstream.md §2.5): the token wins. */
export const CLAUDE_ENV_PRECEDENCE = { ANTHROPIC_AUTH_TOKEN: ['ANTHROPIC_API_KEY'] };

/** Always set: an auto-update must never replace the binary under a fleet. */
export const CLAUDE_RESERVED_ENV: Readonly<Record<string, string>> = Object.freeze({ DISABLE_AUTOUPDATER: '1' });

/** `--permission-mode` values (§6.1; `default` = `manual`). */
export const CLAUDE_PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'auto', 'dontAsk', 'bypassPermissions', 'manual'] as const;

/** Bypass mode as root without `IS_SANDBOX=1`: Claude Code exits "cannot be used with root/sudo privileges". umbel never sets it. */
export const CLAUDE_ROOT_MODE: RootModeFacts = {
  provider: 'claude',
  mode: 'bypassPermissions',
  flag: '--permission-mode',
  unattended: true,
  unless: { env: 'IS_SANDBOX', value: '1' },
  hint:
    'Claude Code refuses bypass mode as root unless IS_SANDBOX=1 is set in its environment. ' +
    'Run the worker with --sandbox (umbel then sets it inside its own sandbox), or, if this machine is a disposable sandbox, pass --env IS_SANDBOX=1 yourself; ' +
    'otherwise run umbel as a non-root user or choose another --permission-mode',
};

/** Claude Code hook events umbel listens to, and the neutral kind each is delivered as. */
export const CLAUDE_HOOK_EVENTS = {
  SessionStart: 'session',
  UserPromptSubmit: 'prompt',
  Stop: 'stop',
  StopFailure: 'stop-failure',
  PermissionRequest: 'permission',
  Notification: 'notify',
  SessionEnd: 'session-end',
  PreToolUse: 'tool',
} as const satisfies Record<string, HookKind>;

/** The event kind umbel's statusLine command delivers the statusLine input as. */
export const CLAUDE_STATUSLINE_KIND = 'statusline';

/** The settings file written into the worker directory, and the statusLine script beside it. */
export const CLAUDE_SETTINGS_FILE = 'claude-settings.json';
export const CLAUDE_STATUSLINE_FILE = 'claude-statusline.sh';

/** A prompt starting with `/` is a slash command, with `!` a shell command, even pasted; one leading space defeats both (§5). */
export const CLAUDE_PROMPT: PromptFacts = { escapeLeading: ['/', '!'] };

/** The input fields that say most about a Claude Code tool call, most telling first (`Bash(ls -la)`, `Read(/a/b.ts)`). */
export const CLAUDE_TOOL_ARGUMENT = ['command', 'file_path', 'notebook_path', 'path', 'pattern', 'url', 'query', 'description', 'prompt'];

/** Its error names of account failures (ACCOUNT-FACTS.md §1.2), in StopFailure's `error` and the synthetic transcript entry's. */
export const CLAUDE_ERROR_KINDS: AccountErrorNames = { rate_limit: 'rate-limited', authentication_failed: 'auth-failed' };

/** What input a hook says is needed: a PermissionRequest's tool and input (`Bash: ls`), a Notification's by its type. */
export const CLAUDE_NEEDS_INPUT: NotificationFacts = {
  type: 'notification_type',
  kinds: { permission_prompt: 'permission', worker_permission_prompt: 'permission', idle_prompt: 'idle', elicitation_dialog: 'question' },
  message: 'message',
  toolIn: { worker_permission_prompt: /needs permission for (\S+)/ },
  permission: { tool: 'tool_name', input: 'tool_input', fields: CLAUDE_TOOL_ARGUMENT },
};

/** The Stop payload's `background_tasks` (REVIVE-FACTS.md §4): each task's type, id and whether it still runs. */
export const CLAUDE_BACKGROUND_TASK: BackgroundTaskFacts = { id: 'id', kind: 'type', defaultKind: 'task', running: { field: 'status', value: 'running' } };

/** The statusLine input's `rate_limits` windows (ACCOUNT-FACTS §1.4): subscriptions only, absent otherwise. */
export const CLAUDE_QUOTA_WINDOWS: QuotaNames = { fiveHour: 'five_hour', sevenDay: 'seven_day' };

/** Turns Claude Code continues or starts by itself (CLAUDE-FACTS.md "Hooks"): the Notification type at a limit's reset, a self-started prompt's start. */
export const CLAUDE_OWN_TURNS = { autoResume: 'quota_auto_resume_fired', taskNotification: '<task-notification>' } as const;

const FILE = ['file_path', 'notebook_path'];

/** What its tool calls do, for `umbel actions` / `umbel diff` (tool names and inputs: CLAUDE-FACTS.md "Tools"). */
export const CLAUDE_TOOLS: ToolFacts = {
  table: {
    Read: { does: 'read', fields: FILE },
    NotebookRead: { does: 'read', fields: FILE },
    Edit: { does: 'edited', fields: FILE },
    MultiEdit: { does: 'edited', fields: FILE },
    NotebookEdit: { does: 'edited', fields: FILE },
    Write: { does: 'written', fields: FILE },
    Bash: { does: 'command', fields: ['command'] },
  },
};
