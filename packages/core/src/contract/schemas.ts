/**
 * One zod schema per concept, shared by argv (CLI), MCP tool inputs and workflow YAML.
 * Types are inferred from these schemas and never written twice.
 */
import * as z from 'zod';

// --- names and durations ---

/** Worker name: lowercase, digits and dashes, 1–63 chars, starting with a letter or digit. */
export const WorkerNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'a worker name is 1-63 characters of a-z, 0-9 and -, starting with a letter or digit')
  .describe('Worker name: ^[a-z0-9][a-z0-9-]{0,62}$');
export type WorkerName = z.infer<typeof WorkerNameSchema>;

const DURATION_RE = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** Parse a duration string (`500ms`, `30s`, `5m`, `1.5h`) into milliseconds, or undefined. */
export function parseDuration(text: string): number | undefined {
  const m = DURATION_RE.exec(text.trim());
  if (!m) return undefined;
  return Math.round(Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]);
}

/** The longest duration umbel takes (a year): beyond it a deadline is no longer a date at all. */
export const DURATION_MAX_MS = 365 * 24 * 3_600_000;

/** A duration: `500ms`, `30s`, `5m`, `1.5h` (or a number of milliseconds) → milliseconds, at most a year. */
export const DurationSchema = z
  .union([z.string(), z.number().nonnegative()])
  .transform((value, ctx) => {
    const ms = typeof value === 'number' ? Math.round(value) : parseDuration(value);
    if (ms === undefined) {
      ctx.addIssue({ code: 'custom', message: `'${value}' is not a duration (use 500ms, 30s, 5m or 1.5h)` });
      return z.NEVER;
    }
    if (!(ms <= DURATION_MAX_MS)) {
      ctx.addIssue({ code: 'custom', message: `'${value}' is too long a duration (at most ${DURATION_MAX_MS / 3_600_000}h, a year)` });
      return z.NEVER;
    }
    return ms;
  })
  .describe('Duration such as 500ms, 30s, 5m, 1.5h (or milliseconds as a number)');
export type DurationInput = z.input<typeof DurationSchema>;

// --- env ---

const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** An environment variable name. */
export const EnvNameSchema = z.string().regex(ENV_NAME_RE, 'not a valid environment variable name');

/** A reference to a variable of umbel's own environment, resolved at call time. */
export const FromEnvSchema = z.object({ fromEnv: EnvNameSchema }).strict().describe("Take the value from this variable of umbel's own environment");

/** A literal env value: any string but one holding a NUL byte (no environment can carry it; it arrived empty). */
export const EnvLiteralSchema = z.string().refine((value) => !value.includes('\0'), 'an environment value cannot hold a NUL byte (\\u0000)');

/** One env value as written in MCP/YAML: a literal string or `{fromEnv: NAME}`. */
export const EnvValueSchema = z.union([EnvLiteralSchema, FromEnvSchema]);
export type EnvValue = z.infer<typeof EnvValueSchema>;

/** The env map of MCP and YAML: `{NAME: "literal" | {fromEnv: "NAME"}}`. */
export const EnvMapSchema = z.record(EnvNameSchema, EnvValueSchema).describe('Extra environment for the worker: NAME → "literal" or {"fromEnv": "NAME"}');
export type EnvMap = z.infer<typeof EnvMapSchema>;

/**
 * One `--env` argument as written on the command line: `NAME` (value taken from umbel's own env,
 * so a secret never appears on argv) or `NAME=VALUE`. Parsed into the EnvMap form.
 */
export const EnvArgSchema = z.string().transform((arg, ctx): [string, EnvValue] => {
  const eq = arg.indexOf('=');
  const name = eq === -1 ? arg : arg.slice(0, eq);
  if (!ENV_NAME_RE.test(name)) {
    ctx.addIssue({ code: 'custom', message: `--env '${arg}': '${name}' is not a valid variable name (use NAME or NAME=VALUE)` });
    return z.NEVER;
  }
  if (eq === -1) return [name, { fromEnv: name }];
  const value = EnvLiteralSchema.safeParse(arg.slice(eq + 1));
  if (!value.success) {
    ctx.addIssue({ code: 'custom', message: `--env '${name}=…': ${value.error.issues[0]?.message}` });
    return z.NEVER;
  }
  return [name, value.data];
});

/** Turn repeated `--env` arguments into an EnvMap (later ones win). */
export const EnvArgsSchema = z.array(EnvArgSchema).transform((pairs): EnvMap => Object.fromEntries(pairs));

// --- hosts ---

/** A host name, as the config file's `hosts` keys it. */
export const HostNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/, 'a host name is 1-63 characters of letters, digits, _ . and -, starting with a letter or digit')
  .describe("Host name: a key of the config file's hosts");

/** A remote host umbel runs workers on, over SSH (`hosts` in @umbel/runtime's config file; @umbel/remote reaches it). */
export const HostSchema = z
  .object({
    ssh: z.string().min(1).describe('ssh destination: host, user@host or an ~/.ssh/config alias'),
    sshArgs: z.array(z.string()).optional().describe('extra ssh arguments, e.g. ["-p", "2222"]'),
    umbel: z.string().min(1).optional().describe('the umbel command on that host (default: umbel)'),
  })
  .strict();
export type HostConfig = z.infer<typeof HostSchema>;

// --- options of the operations ---

/** How a worker is billed: its plan login (`subscription`), an API key or cloud account (`api`), or not known. */
export const BillingKindSchema = z.enum(['subscription', 'api', 'unknown']);
export type BillingKind = z.infer<typeof BillingKindSchema>;

/**
 * The billing guard of spawn, `-p`, YAML workers and MCP (one field, shared): `subscription`
 * refuses, before the first prompt, a worker that would bill the API (UMBEL_BILLING_REFUSED, exit 3).
 */
export const BillingGuardSchema = z
  .enum(['subscription', 'any'])
  .default('any')
  .describe("'subscription': refuse (and remove) a worker that would bill the API, before its first prompt; 'any' (default): allow either");
export type BillingGuard = z.output<typeof BillingGuardSchema>;

/** Plan usage a CLI reported (Claude's statusLine `rate_limits`): percent used and reset time per window. */
export const QuotaWindowSchema = z.object({
  usedPercent: z.number().min(0).describe('Percent of the window used (0-100)'),
  resetsAt: z.string().optional().describe('ISO time the window resets'),
});
export type QuotaWindow = z.infer<typeof QuotaWindowSchema>;
export const QuotaSchema = z
  .object({ fiveHour: QuotaWindowSchema.optional(), sevenDay: QuotaWindowSchema.optional(), at: z.string().describe('ISO time the CLI reported it') })
  .describe('Plan usage the CLI last reported (absent when it reports none: API keys never get it)');
export type Quota = z.infer<typeof QuotaSchema>;

/**
 * `worktree` of spawn, `-p`, YAML workers and MCP (one field, shared): run the worker in a git
 * worktree of its own, on a new branch (default `umbel/<name>`) from `base` (default HEAD).
 */
export const WorktreeRequestSchema = z
  .union([
    z.boolean(),
    z
      .object({
        branch: z.string().min(1).optional().describe('Branch of the worktree (default umbel/<name>); an existing one is checked out on purpose'),
        base: z.string().min(1).optional().describe('Commit, branch or tag the new branch starts from (default HEAD)'),
      })
      .strict(),
  ])
  .describe(
    'Run the worker in its own git worktree of the repository that holds cwd, on a new branch (default umbel/<name>) from base (default HEAD): true, or {branch, base}. Kill keeps it; kill --purge removes it only when it holds no work',
  );
export type WorktreeRequest = z.infer<typeof WorktreeRequestSchema>;

/**
 * `sandbox` of spawn, `-p`, YAML workers and MCP (one field, shared): run the CLI and every tool it
 * starts inside an OS sandbox (srt: bubblewrap on Linux, sandbox-exec on macOS). `true` is the
 * default policy; `{write, read, allow}` widens it (recorded and shown in status).
 */
export const SandboxRequestSchema = z
  .union([
    z.boolean(),
    z
      .object({
        write: z.array(z.string().min(1)).optional().describe('Extra paths the worker may write (~/ is HOME)'),
        read: z.array(z.string().min(1)).optional().describe('Paths of the read deny list the worker may read after all (~/.npmrc)'),
        allow: z.array(z.string().min(1)).optional().describe('Extra hosts the worker may reach (api.example.com, *.example.com, host:port)'),
      })
      .strict(),
  ])
  .describe(
    "Confine the worker (the CLI and every tool it runs) in an OS sandbox: it writes only its cwd (or worktree), its CLI's own dirs and a private temp dir, reads nothing of the user's secrets (~/.ssh, ~/.aws, …) nor umbel's other state, and reaches only its provider's model hosts: true, or {write, read, allow} to widen that. Refused (exit 116) where the sandbox cannot be had",
  );
export type SandboxRequest = z.infer<typeof SandboxRequestSchema>;

/** Options of `spawn`. */
export const SpawnOptionsSchema = z
  .object({
    name: WorkerNameSchema.optional().describe('Worker name; anonymous (anon-xxxxxx) when omitted'),
    provider: z.string().min(1).default('claude').describe('Provider id: claude, codex or gemini'),
    cwd: z.string().min(1).optional().describe("Working directory of the worker (must exist); default: the caller's cwd"),
    model: z.string().min(1).optional().describe("Model, passed to the CLI's own --model"),
    env: EnvMapSchema.optional(),
    permissionMode: z
      .string()
      .min(1)
      .optional()
      .describe("The CLI's permission mode, where it has one (claude: default, manual, acceptEdits, plan, auto, dontAsk, bypassPermissions)"),
    allowedTools: z.string().min(1).optional().describe("Tools allowed without asking, in the CLI's own syntax (claude: 'Bash(git:*) Edit')"),
    appendSystemPrompt: z.string().optional().describe('Text appended to the system prompt, where the CLI supports it'),
    unattended: z.boolean().default(false).describe("Never stop for permission prompts (maps to the CLI's own bypass mode)"),
    startupTimeout: DurationSchema.optional().describe('How long spawn waits for the ready prompt (default 60s)'),
    host: HostNameSchema.optional().describe(
      'Run the worker on this host of the config file (`hosts`), over SSH; every later call routes there by itself. With a host, cwd is a path on that host (default: its home directory)',
    ),
    billing: BillingGuardSchema,
    maxWorkers: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe("Refuse to start the worker when this many workers already live on this state root (overrides the config's limits.maxWorkers for this call)"),
    worktree: WorktreeRequestSchema.optional(),
    sandbox: SandboxRequestSchema.optional(),
  })
  .strict();
export type SpawnOptions = z.input<typeof SpawnOptionsSchema>;
export type SpawnOptionsParsed = z.output<typeof SpawnOptionsSchema>;

/** The config's fleet limits (`limits` in @umbel/runtime's config file; `createUmbel`'s `limits`). */
export const FleetLimitsSchema = z
  .object({
    maxWorkers: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('At most this many live workers on this state root (starting ones included); a spawn past it is refused (exit 117)'),
    minFreeMemoryMB: z.number().int().min(0).optional().describe('Refuse a spawn while less than this much memory is available (MB)'),
    queue: z.boolean().optional().describe('Workflows wait for a slot instead of failing when a limit is reached'),
  })
  .strict();
export type FleetLimits = z.infer<typeof FleetLimitsSchema>;

/** Options of `send`. */
export const SendOptionsSchema = z
  .object({
    name: WorkerNameSchema,
    prompt: z
      .string()
      .refine((p) => p.trim() !== '', 'the prompt is empty (or only whitespace): nothing would be submitted')
      .describe('The prompt text, delivered exactly as given'),
    command: z
      .boolean()
      .optional()
      .describe(
        "Run the text as the CLI's own command (/compact, !ls) on purpose: no leading space is added, and no turn waits for an answer unless the command starts a model turn (then result.modelTurn is true)",
      ),
  })
  .strict();
export type SendOptions = z.input<typeof SendOptionsSchema>;

/** Named keys `keys` accepts (tmux's names), besides single characters. */
export const KEY_NAMES = [
  'Enter',
  'Escape',
  'Tab',
  'BTab',
  'BSpace',
  'Space',
  'Up',
  'Down',
  'Left',
  'Right',
  'Home',
  'End',
  'PageUp',
  'PageDown',
  'PPage',
  'NPage',
  'Insert',
  'Delete',
  'IC',
  'DC',
  ...Array.from({ length: 12 }, (_, i) => `F${i + 1}`),
] as const;
const KEY_RE = new RegExp(`^(?:[CMS]-)*(?:${KEY_NAMES.join('|')}|[^\\s])$`, 'u');
const KEYS_HELP = `${KEY_NAMES.slice(0, 20).join(', ')}, F1-F12, a single character (y, 1), or C-/M-/S- before one of them (C-c)`;

/** One key name: a tmux key name, a single character, or either with C-/M-/S- modifiers. */
export const KeyNameSchema = z.string().refine((key) => KEY_RE.test(key), { error: (issue) => `unknown key '${String(issue.input)}' (use ${KEYS_HELP})` });

/** Options of `keys`: press keys in the worker's terminal (answer a dialog, interrupt). */
export const KeysOptionsSchema = z
  .object({
    name: WorkerNameSchema,
    keys: z.array(KeyNameSchema).min(1).describe(`Keys to press, in order: ${KEYS_HELP}`),
  })
  .strict();
export type KeysOptions = z.input<typeof KeysOptionsSchema>;

/** What ends a wait (upstream's `--until`). */
export const WaitUntilSchema = z.enum(['stop', 'file', 'pattern']);
export type WaitUntil = z.infer<typeof WaitUntilSchema>;

/** Options of `wait`. */
export const WaitOptionsSchema = z
  .object({
    name: WorkerNameSchema,
    turn: z.number().int().positive().optional().describe('Turn to wait for; default the latest sent model turn (a command that started none is skipped)'),
    timeout: DurationSchema.default(30 * 60_000).describe('Give up after this long with outcome timeout (default 30m)'),
    idleTimeout: DurationSchema.optional().describe('Return outcome idle when the worker shows no activity for this long'),
    check: z
      .string()
      .min(1)
      .optional()
      .describe('Guardrail: a shell command run in the worker cwd after the turn; exit 0 accepts, otherwise its output is fed back and the turn retried'),
    schema: z.string().min(1).optional().describe('Guardrail: path of a JSON Schema file the answer (JSON) must validate against'),
    retries: z.number().int().nonnegative().default(2).describe('Guardrail: feedback rounds before halting (default 2)'),
    checkTimeout: DurationSchema.default(5 * 60_000).describe('Guardrail: time limit for one check run (default 5m)'),
    until: WaitUntilSchema.default('stop').describe(
      'What ends the wait: stop (the turn ends, default), file (a file exists: file), pattern (a regex matches the screen: pattern)',
    ),
    file: z.string().min(1).optional().describe('until file: the path to wait for, relative to the worker cwd'),
    pattern: z
      .string()
      .min(1)
      .optional()
      .describe("until pattern: a JavaScript regular expression tested against the worker's screen (^ and $ match at line ends)"),
  })
  .strict();
export type WaitOptions = z.input<typeof WaitOptionsSchema>;
export type WaitOptionsParsed = z.output<typeof WaitOptionsSchema>;

/**
 * The rules across the wait fields (WaitOptionsSchema stays a plain object so faces can pick and
 * extend it): `file` belongs to until=file and `pattern` to until=pattern, each required there; a
 * pattern must compile; a guardrail (check/schema) judges an answer, so it goes with until=stop.
 */
export function refineWaitOptions(value: { until?: WaitUntil; file?: string; pattern?: string; check?: string; schema?: string }, ctx: z.RefinementCtx): void {
  const until = value.until ?? 'stop';
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (until === 'file' && value.file === undefined) issue('file', 'until file needs file: the path to wait for');
  if (until !== 'file' && value.file !== undefined) issue('file', `file is only used with until file (until is ${until})`);
  if (until === 'pattern' && value.pattern === undefined) issue('pattern', 'until pattern needs pattern: the regular expression to look for');
  if (until !== 'pattern' && value.pattern !== undefined) issue('pattern', `pattern is only used with until pattern (until is ${until})`);
  if (value.pattern !== undefined) {
    try {
      new RegExp(value.pattern, 'm');
    } catch (error) {
      issue('pattern', `not a valid regular expression: ${(error as Error).message}`);
    }
  }
  if (until !== 'stop' && (value.check !== undefined || value.schema !== undefined)) {
    issue(value.check !== undefined ? 'check' : 'schema', `a guardrail (check/schema) judges the turn's answer, so it needs until stop (until is ${until})`);
  }
}

/** WaitOptionsSchema with the rules of {@link refineWaitOptions}: what the engine parses a wait with. */
export const WaitOptionsCheckedSchema = WaitOptionsSchema.superRefine(refineWaitOptions);

/** Options of `read`. */
export const ReadOptionsSchema = z
  .object({
    name: WorkerNameSchema,
    turn: z.number().int().positive().optional().describe('Turn to read; default the latest completed'),
    section: z
      .string()
      .min(1)
      .optional()
      .describe("Only this markdown section of the answer: '## Findings' (that level) or 'Findings' (any level); '' when absent"),
    head: z.number().int().nonnegative().optional().describe('Only the first ~N tokens (4 characters each), cut at a line boundary'),
    tail: z.number().int().nonnegative().optional().describe('Only the last ~N tokens; with head, both ends and the middle elided'),
    full: z.boolean().optional().describe('The whole answer, never shortened (MCP shortens answers over ~2000 tokens otherwise)'),
  })
  .strict();
export type ReadOptions = z.input<typeof ReadOptionsSchema>;

/** A turn number, or `all` (every turn the worker was sent). */
export const TurnOrAllSchema = z.union([z.number().int().positive(), z.literal('all')]);

/** Options of `actions`: what a worker did in a turn, from its transcript. */
export const ActionsOptionsSchema = z
  .object({
    name: WorkerNameSchema,
    turn: TurnOrAllSchema.optional().describe("Turn to report (default: the latest sent), or 'all' for every turn"),
  })
  .strict();
export type ActionsOptions = z.input<typeof ActionsOptionsSchema>;

/** Options of `diff`: the file changes a turn made, or (text) how two turns' answers differ. */
export const DiffOptionsSchema = z
  .object({
    name: WorkerNameSchema,
    turn: z.number().int().positive().optional().describe('Turn whose file changes to show (default: the latest sent); with text, the newer answer'),
    text: z.boolean().optional().describe("Diff two turns' answers instead of files (the earlier umbel's diff)"),
    from: z
      .number()
      .int()
      .refine((n) => n !== 0, 'from is a turn number (1, 2, …) or counts back from the latest completed turn (-1, -2, …)')
      .optional()
      .describe('text: the older turn (default: the completed turn before the newer one); negative counts back from the latest completed (-1 = latest)'),
    to: z
      .number()
      .int()
      .refine((n) => n !== 0, 'to is a turn number (1, 2, …) or counts back from the latest completed turn (-1, -2, …)')
      .optional()
      .describe('text: the newer turn (default: the latest completed, or turn); negative counts back from the latest completed'),
    full: z.boolean().optional().describe('The whole patch, never shortened (MCP shortens patches over ~2000 tokens otherwise)'),
    against: z
      .literal('base')
      .optional()
      .describe("'base': the whole change of a worktree worker: its worktree now (commits and uncommitted files) against the base commit it was made from"),
  })
  .strict()
  .superRefine((value, ctx) => {
    if (value.against !== undefined && (value.text || value.turn !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['against'], message: 'against base shows the whole change of the worktree: not with turn or text' });
    }
    if (!value.text && (value.from !== undefined || value.to !== undefined)) {
      ctx.addIssue({ code: 'custom', path: [value.from !== undefined ? 'from' : 'to'], message: 'from/to pick the answers of a text diff: add text' });
    }
    if (value.turn !== undefined && value.to !== undefined) ctx.addIssue({ code: 'custom', path: ['to'], message: 'give the newer turn once: turn or to' });
  });
export type DiffOptions = z.input<typeof DiffOptionsSchema>;

/** Options of `revive`: the worker is started again with the options, cwd and env names it was spawned with. */
export const ReviveOptionsSchema = z
  .object({
    name: WorkerNameSchema,
    startupTimeout: DurationSchema.optional().describe('How long revive waits for the ready prompt (default 60s)'),
    maxWorkers: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe("Refuse to revive the worker when this many workers already live on this state root (overrides the config's limits.maxWorkers for this call)"),
  })
  .strict();
export type ReviveOptions = z.input<typeof ReviveOptionsSchema>;
export type ReviveOptionsParsed = z.output<typeof ReviveOptionsSchema>;

/** Options of `kill`. */
export const KillOptionsSchema = z
  .object({
    name: WorkerNameSchema,
    purge: z
      .boolean()
      .default(false)
      .describe("Also remove the worker's state (otherwise a tombstone stays for read/status); and its worktree, only when that holds no work"),
    discardWorktree: z
      .boolean()
      .default(false)
      .describe("Purge, and remove the worker's worktree (and the branch umbel made for it) even when it holds uncommitted changes or commits"),
  })
  .strict();
export type KillOptions = z.input<typeof KillOptionsSchema>;

/** Options of `prune`. */
export const PruneOptionsSchema = z
  .object({
    olderThan: DurationSchema.optional().describe('Only remove workers dead for at least this long'),
  })
  .strict();
export type PruneOptions = z.input<typeof PruneOptionsSchema>;

/** Options of `capture`. */
export const CaptureOptionsSchema = z
  .object({
    name: WorkerNameSchema,
    lines: z.number().int().positive().default(100).describe('How many lines of the screen (default 100)'),
  })
  .strict();
export type CaptureOptions = z.input<typeof CaptureOptionsSchema>;

// --- outcomes ---

/** Why a wait ended. */
export const OutcomeReasonSchema = z.enum([
  'completed',
  'file',
  'pattern',
  'needs-input',
  'provider-error',
  'rate-limited',
  'auth-failed',
  'idle',
  'timeout',
  'dead',
  'aborted',
  'guardrail-halted',
  'unknown',
  'host-unreachable',
]);
export type OutcomeReason = z.infer<typeof OutcomeReasonSchema>;

/** One guardrail attempt. */
export const AttemptSchema = z.object({
  attempt: z.number().int().positive(),
  turn: z.number().int().positive(),
  reason: OutcomeReasonSchema,
  answer: z.string().optional(),
  checkExitCode: z.number().int().nullable().optional(),
  checkOutput: z.string().optional().describe('Tail of the check output (bounded)'),
  schemaErrors: z.array(z.string()).optional(),
  accepted: z.boolean(),
  durationMs: z.number().nonnegative(),
});
export type Attempt = z.infer<typeof AttemptSchema>;

/** Token usage where the transcript records it. */
export const UsageSchema = z
  .object({
    inputTokens: z.number().optional(),
    outputTokens: z.number().optional(),
    cacheReadTokens: z.number().optional(),
    cacheCreationTokens: z.number().optional(),
    costUsd: z.number().optional(),
  })
  .passthrough();
export type Usage = z.infer<typeof UsageSchema>;

/** One piece of background work the CLI reported when it stopped (`completed.background`). */
export const BackgroundTaskSchema = z.object({
  kind: z
    .string()
    .describe(
      "The CLI's kind of it (Claude Code: `shell`, a Bash command run in the background; `subagent`, a subagent the Agent tool runs in the background; Codex: `terminal`, a background terminal; `subagent`, an agent spawn_agent started)",
    ),
  id: z
    .string()
    .describe("Its id in the CLI's terms (Claude Code's task id, or the subagent's agent id; Codex's terminal session id, or the agent's thread id)"),
  running: z.boolean().describe('Still running when the CLI stopped'),
});
export type BackgroundTask = z.infer<typeof BackgroundTaskSchema>;

/** The result of a wait: what happened to one turn. */
export const OutcomeSchema = z.object({
  worker: WorkerNameSchema,
  provider: z.string(),
  turn: z.number().int().nonnegative(),
  reason: OutcomeReasonSchema,
  exitCode: z.number().int(),
  result: z.string().optional().describe('The final answer, from the transcript'),
  sessionId: z.string().optional(),
  transcriptPath: z.string().optional(),
  durationMs: z.number().nonnegative(),
  message: z.string().optional().describe('Human explanation: what is awaited, the error, the cause of death'),
  inputKind: z.enum(['permission', 'question', 'idle', 'sign-in']).optional(),
  tool: z.string().optional().describe('The tool waiting for permission, when known'),
  exit: z.object({ status: z.number().int().optional(), signal: z.string().optional() }).optional(),
  paneTail: z.string().optional().describe('Last screen lines, as evidence (never the source of an answer)'),
  usage: UsageSchema.optional(),
  numTurns: z.number().int().optional().describe('Model round trips in this turn (tool calls included), when known'),
  model: z.string().optional().describe('The model that answered, from the transcript, when known'),
  stopReason: z.string().optional().describe("Why the model's last message ended (end_turn, tool_use, …), from the transcript, when known"),
  apiErrorStatus: z.number().int().optional().describe('provider-error: the HTTP status of the failed API call, when the transcript records it'),
  apiErrorType: z.string().optional().describe('provider-error: the API error type (api_error, overloaded_error, …), when recorded'),
  resetsAt: z.string().optional().describe('rate-limited: when the limit resets (ISO time), when the CLI recorded it; absent when it did not (retry later)'),
  limit: z.string().optional().describe("rate-limited: which limit, in the CLI's terms (five_hour, seven_day, usage_limit_exceeded), when known"),
  attempts: z.array(AttemptSchema).optional(),
  match: z.string().optional().describe('until file: the path that appeared; until pattern: the screen line that matched'),
  billing: BillingKindSchema.optional().describe('How the worker is billed (subscription, api, unknown), as spawn found it'),
  billingEvidence: z.string().optional().describe('What the billing verdict rests on (a banner label, an auth mode, a variable name)'),
  quota: QuotaSchema.optional(),
  background: z
    .array(BackgroundTaskSchema)
    .optional()
    .describe(
      "completed: the CLI stopped while background work it started was still running (Claude Code's Stop record `background_tasks`: background shells and subagents; Codex's rollout: background terminals and spawned agents; no other CLI records its background work); each entry: kind, id, running. Absent when nothing was running",
    ),
});
/** The fields of an outcome as the schema has them (one object: MCP registers it as an output schema). */
type OutcomeFields = z.infer<typeof OutcomeSchema>;
/** A turn that completed: its answer, from the transcript, is always there. */
export type CompletedOutcome = Omit<OutcomeFields, 'reason' | 'result'> & { reason: 'completed'; result: string };
/** A turn that did not complete (or not yet): why, in `reason`, and the evidence. */
export type UnfinishedOutcome = Omit<OutcomeFields, 'reason'> & { reason: Exclude<OutcomeReason, 'completed'> };
/**
 * The result of a wait, discriminated on `reason`: after `reason === 'completed'`, `result` is a
 * string. The wire shape is `OutcomeSchema` (the engine never builds a completed outcome without
 * its answer: an answer found nowhere ends `unknown`).
 */
export type Outcome = CompletedOutcome | UnfinishedOutcome;

// --- worker state ---

/** A worker's git worktree as spawn made it (in meta.json). */
export const WorktreeRecordSchema = z.object({
  path: z.string().describe('The worktree (its top directory)'),
  branch: z.string().describe('Its branch'),
  base: z.string().describe('The commit it was made from (what --against base diffs to)'),
  repo: z.string().describe("The top of the caller's checkout it was made from (git runs there to remove it)"),
  createdBranch: z.boolean().describe('umbel made the branch (so it deletes it with the worktree); false for a branch named on purpose that existed'),
});
export type WorktreeRecord = z.infer<typeof WorktreeRecordSchema>;
/** A process that owns something (a send lock, a `-p` worker): pid and, on Linux, its start time (pids are reused). */
export const ProcessOwnerSchema = z.object({
  pid: z.number().int().positive(),
  /** /proc/<pid>/stat's starttime (clock ticks since boot), where there is a /proc. */
  start: z.string().optional(),
  /** When the owner took it (ms since the epoch). */
  at: z.number(),
});
export type ProcessOwner = z.infer<typeof ProcessOwnerSchema>;

/** A confined worker's policy as spawn made it (meta.json) and status shows it. */
export const SandboxRecordSchema = z.object({
  enabled: z.literal(true),
  write: z.array(z.string()).describe('Paths the worker may write'),
  network: z.array(z.string()).describe('Hosts the worker may reach'),
  denyRead: z.array(z.string()).describe('Paths the worker may not read'),
  widened: z
    .object({ write: z.array(z.string()), read: z.array(z.string()), allow: z.array(z.string()) })
    .describe('What --sandbox-write/--sandbox-read/--sandbox-allow added to the default policy'),
});
export type SandboxRecord = z.infer<typeof SandboxRecordSchema>;

/** Persisted per worker (`meta.json`). Never holds any env value. */
export const WorkerMetaSchema = z.object({
  version: z.literal(1),
  name: WorkerNameSchema,
  provider: z.string(),
  cwd: z.string(),
  model: z.string().optional(),
  permissionMode: z.string().optional(),
  allowedTools: z.string().optional(),
  appendSystemPrompt: z.string().optional().describe('Kept so that revive starts the CLI with it again'),
  unattended: z.boolean(),
  anonymous: z.boolean(),
  createdAt: z.string().describe('ISO time of spawn'),
  substrateSession: z.string(),
  sessionId: z.string().optional(),
  transcriptPath: z.string().optional(),
  providerFiles: z.array(z.string()).default([]).describe('Files the provider wrote outside the worker dir, removed on kill'),
  envNames: z.array(z.string()).default([]).describe('Names (never values) of the variables passed to the worker'),
  readyBy: z.string().optional().describe('ISO time by which spawn gives up reaching the ready prompt (a worker without a ready event is starting until then)'),
  spawnPid: z.number().int().optional().describe('The process that spawned it: a starting worker whose spawner died before its launch holds no fleet slot'),
  worktree: WorktreeRecordSchema.optional().describe('The git worktree spawn made for the worker'),
  owner: ProcessOwnerSchema.optional().describe('The process the worker lives for (umbel -p): prune removes the worker once it is gone'),
  sandbox: SandboxRecordSchema.optional().describe('The sandbox the worker runs in (spawn --sandbox)'),
});
export type WorkerMeta = z.infer<typeof WorkerMetaSchema>;

/** Derived state of a worker (never stored). */
export const WorkerStateSchema = z.enum(['starting', 'ready', 'busy', 'needs-input', 'exited', 'dead', 'killed', 'corrupt', 'unreachable']);
export type WorkerState = z.infer<typeof WorkerStateSchema>;

/** What `status` reports about one worker. */
export const WorkerStatusSchema = z.object({
  name: WorkerNameSchema,
  provider: z.string(),
  state: WorkerStateSchema,
  alive: z.boolean(),
  cwd: z.string(),
  model: z.string().optional(),
  createdAt: z.string(),
  lastActivityAt: z.string().optional(),
  turn: z.number().int().nonnegative().describe('Latest turn sent'),
  completedTurn: z.number().int().nonnegative().describe('Latest turn that ended'),
  sessionId: z.string().optional(),
  transcriptPath: z.string().optional(),
  needsInput: z.object({ kind: z.string(), message: z.string().optional(), tool: z.string().optional() }).optional(),
  exit: z.object({ status: z.number().int().optional(), signal: z.string().optional(), at: z.string().optional(), by: z.string().optional() }).optional(),
  anonymous: z.boolean(),
  corrupt: z
    .object({ reason: z.string(), path: z.string() })
    .optional()
    .describe('Set when state is corrupt: why its state files cannot be used, and which file'),
  problems: z
    .array(z.object({ file: z.string(), message: z.string() }))
    .optional()
    .describe('State files that were skipped (a malformed event file, an event the provider could not read)'),
  host: HostNameSchema.optional().describe('The host the worker lives on (absent: this machine)'),
  unreachable: z
    .object({ reason: z.string() })
    .optional()
    .describe('Set when state is unreachable: its host did not answer (the worker may be alive there; its state is unknown)'),
  billing: BillingKindSchema.describe('How the worker is billed: its plan login, an API key / cloud account, or unknown (not ready yet, or no evidence)'),
  billingEvidence: z.string().optional().describe('What the billing verdict rests on (a banner label, an auth mode, a variable name; never a value)'),
  endpoint: z.string().optional().describe('The base URL the CLI calls when a variable sets one (ANTHROPIC_BASE_URL, …), credentials removed'),
  quota: QuotaSchema.optional(),
  worktree: z
    .object({
      path: z.string(),
      branch: z.string(),
      base: z.string().describe('The commit it was made from'),
      dirty: z.boolean().optional().describe('It has uncommitted changes (untracked files included); status NAME only'),
      ahead: z.number().int().nonnegative().optional().describe('Commits on it beyond the base; status NAME only'),
      missing: z.boolean().optional().describe('Its directory is gone'),
    })
    .optional()
    .describe('The git worktree the worker runs in (spawn --worktree)'),
  sandbox: SandboxRecordSchema.optional().describe('The sandbox the worker runs in (spawn --sandbox); absent: unconfined'),
});
export type WorkerStatus = z.infer<typeof WorkerStatusSchema>;

/** One configured host as `list` found it. */
export const HostReportSchema = z.object({
  host: HostNameSchema,
  reachable: z.boolean(),
  reason: z.string().optional().describe('Why the host did not answer'),
  workers: z.number().int().nonnegative().describe('Workers listed on it (when unreachable: the ones recorded here)'),
});
export type HostReport = z.infer<typeof HostReportSchema>;

/** Every worker of the fleet (this machine and every configured host) and how each host answered. */
export const FleetListSchema = z.object({ workers: z.array(WorkerStatusSchema), hosts: z.array(HostReportSchema) });
export type FleetList = z.infer<typeof FleetListSchema>;

// --- results of the operations (shared by the CLI's --json, MCP's structuredContent and workflows) ---

/** A reference to one worker: the options of `status`, `logs` and `attachCommand`. */
export const WorkerRefSchema = z.object({ name: WorkerNameSchema.describe('Worker name') }).strict();
export type WorkerRef = z.infer<typeof WorkerRefSchema>;

/** Options of `list`: none (every worker). */
export const ListOptionsSchema = z.object({}).strict();
export type ListOptions = z.input<typeof ListOptionsSchema>;

/** Options of `messages`: a turn's transcript messages (default the latest sent turn). */
export const MessagesOptionsSchema = z
  .object({
    name: WorkerNameSchema.describe('Worker name'),
    turn: z.number().int().positive().optional().describe('Turn number (default: the latest sent)'),
  })
  .strict();
export type MessagesOptions = z.input<typeof MessagesOptionsSchema>;

/** Result of `attachCommand`: the command a person runs to watch a worker (`umbel attach`). */
export const AttachCommandSchema = z.object({ file: z.string(), args: z.array(z.string()), env: z.record(z.string(), z.string()) });

/** Result of `send`. */
export const SendResultSchema = z.object({
  worker: WorkerNameSchema,
  turn: z.number().int().positive().describe('The turn this prompt opened (1-based, monotonic per worker); pass it to wait/read to be explicit'),
  queued: z.boolean().optional().describe('True when the worker was busy: the CLI queued the prompt and starts it after the running turn'),
  command: z.boolean().optional().describe('The text was run as a CLI command (send with command: true)'),
  modelTurn: z
    .boolean()
    .optional()
    .describe('For a command: true when it started a model turn (wait/read that turn); false when it ran in the CLI alone (nothing to wait for)'),
});
export type SendResult = z.infer<typeof SendResultSchema>;

/** Result of `keys`. */
export const KeysResultSchema = z.object({ worker: WorkerNameSchema, keys: z.array(z.string()) });
export type KeysResult = z.infer<typeof KeysResultSchema>;

/** Result of `read`. */
export const ReadResultSchema = z.object({
  worker: WorkerNameSchema,
  provider: z.string(),
  turn: z.number().int().nonnegative(),
  result: z.string().describe('The final answer of the turn, from the transcript'),
  complete: z.boolean().describe('False when the transcript does not (yet) show the turn as ended'),
  elidedTokens: z.number().int().positive().optional().describe('About this many tokens of the answer were left out (section/head/tail, or the automatic cut)'),
  sessionId: z.string().optional(),
  transcriptPath: z.string().optional(),
});
export type ReadResult = z.infer<typeof ReadResultSchema>;

/** What a worker did, from its transcript (`actions`). Paths are absolute (relative ones resolved against the worker cwd). */
export const ActionsResultSchema = z.object({
  worker: WorkerNameSchema,
  provider: z.string(),
  cwd: z.string().describe("The worker's working directory"),
  turns: z.array(z.number().int().positive()).describe('The turns reported, oldest first'),
  turnCount: z.number().int().nonnegative().describe('How many turns are reported'),
  complete: z.boolean().describe('False when a reported turn is still running (or its transcript lags): more may come'),
  toolsUsed: z.record(z.string(), z.number().int().positive()).describe('Tool name → number of calls, in first-seen order'),
  toolCalls: z.number().int().nonnegative().describe('Tool calls in all'),
  filesRead: z.array(z.string()).describe('Files read, deduplicated, first-seen order'),
  filesEdited: z.array(z.string()).describe('Existing files changed in place'),
  filesWritten: z.array(z.string()).describe('Files created or overwritten whole'),
  shellCommands: z.array(z.string()).describe('Shell commands run, in order'),
  errors: z.array(z.string()).describe('Tool calls that failed (and a failed turn), each cut at 300 characters'),
  finalMessage: z.string().optional().describe("The last turn's final answer, when it has one"),
  classified: z.boolean().describe('False when the provider does not classify its tools: only toolsUsed is filled'),
  note: z.string().optional().describe('Why nothing could be read (no turn sent yet, no transcript yet)'),
  transcriptPath: z.string().optional(),
});
export type ActionsResult = z.infer<typeof ActionsResultSchema>;

/** One file in a diff. */
export const DiffFileSchema = z.object({
  path: z.string().describe('git: relative to the repository root; transcript: absolute'),
  status: z.enum(['added', 'modified', 'deleted', 'renamed', 'type-changed', 'written', 'edited']),
  from: z.string().optional().describe('renamed: the old path'),
});
export type DiffFile = z.infer<typeof DiffFileSchema>;

/** Result of `diff`. */
export const DiffResultSchema = z.object({
  worker: WorkerNameSchema,
  kind: z.enum(['files', 'text']),
  turn: z.number().int().nonnegative().describe('files: the turn; text: the newer turn (0 when there is none yet)'),
  fromTurn: z.number().int().positive().optional().describe('text: the older turn'),
  method: z
    .enum(['git', 'transcript'])
    .optional()
    .describe('files: git (the work tree against its snapshot when the turn was sent) or transcript (the files the transcript says were written, no content)'),
  base: z.string().optional().describe('git: the tree snapshotted when the turn was sent'),
  target: z.string().optional().describe("git: the tree of the next turn's snapshot, or 'worktree' (now)"),
  files: z.array(DiffFileSchema),
  patch: z.string().describe('A unified diff ("" when nothing changed or the method gives none)'),
  elidedTokens: z.number().int().positive().optional().describe('About this many tokens of the patch were left out (MCP shortens long patches unless full)'),
  note: z.string().optional().describe('Why there is no (git) diff, or that nothing changed'),
  against: z.literal('base').optional().describe('The whole change of the worktree against its base commit (turn is then 0)'),
});
export type DiffResult = z.infer<typeof DiffResultSchema>;

/** Result of `kill`. */
export const KillResultSchema = z.object({
  worker: WorkerNameSchema,
  killed: z.boolean().describe('A live session was ended'),
  purged: z.boolean().describe('The state was removed too'),
  worktree: z
    .object({ path: z.string(), branch: z.string(), removed: z.boolean().describe('The worktree was removed (purge of a clean one, or discard)') })
    .optional()
    .describe("The worker's worktree and what became of it (kept unless removed)"),
});
export type KillResult = z.infer<typeof KillResultSchema>;

/** Result of `prune`. */
export const PruneResultSchema = z.object({
  removed: z.array(z.string()),
  kept: z.number().int().nonnegative(),
  unreachable: z
    .array(z.object({ host: HostNameSchema, reason: z.string() }))
    .optional()
    .describe('Hosts that did not answer: nothing of theirs was pruned'),
});
export type PruneResult = z.infer<typeof PruneResultSchema>;

/** Result of `capture`. */
export const CaptureResultSchema = z.object({
  worker: WorkerNameSchema,
  text: z.string().describe('The screen text'),
  live: z.boolean().describe('False when this is the last screen saved at death/kill'),
});
export type CaptureResult = z.infer<typeof CaptureResultSchema>;

/** One line of `logs`. */
export const LogEntrySchema = z.object({ at: z.string(), kind: z.string(), summary: z.string() });
export type LogEntry = z.infer<typeof LogEntrySchema>;

// --- warm pools (see ./pool.ts) ---

/** Pool name: like a worker name, but at most 40 characters (its workers are `<pool>-<6 characters>`). */
export const PoolNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'a pool name is 1-40 characters of a-z, 0-9 and -, starting with a letter or digit')
  .describe('Pool name: ^[a-z0-9][a-z0-9-]{0,39}$');
export type PoolName = z.infer<typeof PoolNameSchema>;

/** Most workers one pool keeps warm. */
export const POOL_MAX_SIZE = 32;

const PoolSpawnFields = SpawnOptionsSchema.omit({ name: true });

/**
 * `worktree` of `pool start`: every member gets its own worktree on its own branch `umbel/<member>`
 * from `base` (a ref, resolved again at each spawn and claim), so no branch can be named.
 */
export const PoolWorktreeRequestSchema = WorktreeRequestSchema.refine((w) => typeof w !== 'object' || w.branch === undefined, {
  message: "a pool member's branch is always umbel/<member> (a claim hands out a branch nobody used): pool start takes no branch",
}).describe(
  'Make every pool member in its own git worktree of the repository that holds cwd, on its own branch umbel/<member> from base (default HEAD, resolved again at each claim: a member made before the base moved is never handed out): true, or {base}',
);

/** Options of `pool start`: the spawn options its workers get, the pool's size and name. */
export const PoolStartOptionsSchema = PoolSpawnFields.extend({
  worktree: PoolWorktreeRequestSchema.optional(),
  name: PoolNameSchema.optional().describe('Pool name; default <provider>-<8 hex>, one per set of matching options'),
  size: z
    .number()
    .int()
    .min(1)
    .max(POOL_MAX_SIZE)
    .optional()
    .describe(`How many idle workers the pool keeps at their ready prompt (1-${POOL_MAX_SIZE}; default 2 for a new pool, else its current size)`),
}).strict();
export type PoolStartOptions = z.input<typeof PoolStartOptionsSchema>;
export type PoolStartOptionsParsed = z.output<typeof PoolStartOptionsSchema>;

/** Options of `pool claim`: the spawn options a call would use; a pool whose workers have exactly these. */
export const PoolClaimOptionsSchema = PoolSpawnFields.omit({ startupTimeout: true, maxWorkers: true })
  .extend({ pool: PoolNameSchema.optional().describe('Claim from this pool only (default: any pool whose options match)') })
  .strict();
export type PoolClaimOptions = z.input<typeof PoolClaimOptionsSchema>;
export type PoolClaimOptionsParsed = z.output<typeof PoolClaimOptionsSchema>;

/** Options of `pool refill`: the pool, and the explicit env its workers get (values are never stored, so the caller brings them). */
export const PoolRefillOptionsSchema = z
  .object({
    name: PoolNameSchema,
    env: EnvMapSchema.optional(),
  })
  .strict();
export type PoolRefillOptions = z.input<typeof PoolRefillOptionsSchema>;

/** A pool reference (`pool status`, `pool stop`): one pool, or every pool when omitted. */
export const PoolRefSchema = z.object({ name: PoolNameSchema.optional().describe('Pool name; every pool when omitted') }).strict();
export type PoolRef = z.infer<typeof PoolRefSchema>;

/** One pool, named (`reserveRefill`). */
export const PoolNamedSchema = z.object({ name: PoolNameSchema }).strict();
export type PoolNamed = z.infer<typeof PoolNamedSchema>;

/** A claimed pool worker, as `pool release` takes it back. */
export const PoolReleaseSchema = z
  .object({
    pool: PoolNameSchema,
    worker: WorkerNameSchema,
    claimedBy: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Pid of the process that claimed it, when another process releases it (the detached teardown of umbel -p takes the claim over)'),
  })
  .strict();
export type PoolRelease = z.infer<typeof PoolReleaseSchema>;

/**
 * What `umbel -p` hands its detached teardown on stdin (`pool finish --detached`): its worker to
 * remove (with the pool claim it takes over) and the pool to refill with the call's own env values.
 */
export const PoolFinishJobSchema = z
  .object({
    worker: WorkerNameSchema.optional(),
    pool: PoolNameSchema.optional(),
    claimedBy: PoolReleaseSchema.shape.claimedBy,
    refill: z
      .object({
        name: PoolNameSchema,
        env: z.record(z.string(), z.string()),
        handedOver: z
          .boolean()
          .optional()
          .describe("The call took the pool's refill lock and hands it to this process (a refill in flight from before it exited)"),
      })
      .strict()
      .optional(),
    spare: z
      .lazy(() => WorktreeReserveJobSchema)
      .optional()
      .describe("A repository's worktree reserve to fill (after a --worktree spawn: git/spare.ts)"),
  })
  .strict();
export type PoolFinishJob = z.infer<typeof PoolFinishJobSchema>;

/** A repository whose spare worktree to keep ready, and the commit a new spare is made at. */
export const WorktreeReserveJobSchema = z
  .object({
    repo: z.string().describe('The top of the checkout the spare is made from'),
    commit: z
      .string()
      .regex(/^[0-9a-f]{40,64}$/)
      .describe('The commit a new spare is detached at'),
  })
  .strict();
export type WorktreeReserveJob = z.infer<typeof WorktreeReserveJobSchema>;

/** A worktree pool's repository and base (pool.json and `pool status`). */
export const PoolWorktreeSchema = z.object({
  repo: z.string().describe('The top of the checkout its members are made from'),
  base: z.string().describe('The ref its members start from (resolved again at each spawn and claim)'),
});
export type PoolWorktree = z.infer<typeof PoolWorktreeSchema>;

/** A confined pool's widenings of the default policy (sorted; empty lists for `sandbox: true`). */
export const PoolSandboxSchema = z.object({ write: z.array(z.string()), read: z.array(z.string()), allow: z.array(z.string()) });
export type PoolSandbox = z.infer<typeof PoolSandboxSchema>;

/**
 * `pools/<name>/pool.json`: what the pool's workers are started with. Env values are never stored:
 * only the names given with --env and `envDigest`, an HMAC (keyed by the state root's private
 * `pools/.key`) of the complete worker environment, so a claim can tell an equal environment from
 * a different one without the values ever being on disk in a form that can be read back or guessed.
 */
export const PoolRecordSchema = z.object({
  version: z.literal(1),
  name: PoolNameSchema,
  provider: z.string(),
  cwd: z.string(),
  model: z.string().optional(),
  permissionMode: z.string().optional(),
  allowedTools: z.string().optional(),
  appendSystemPrompt: z.string().optional(),
  unattended: z.boolean(),
  worktree: PoolWorktreeSchema.optional().describe('Every member is made in its own worktree (pool start --worktree)'),
  sandbox: PoolSandboxSchema.optional().describe('Every member is confined (pool start --sandbox), with these widenings'),
  startupTimeout: z.number().int().positive().optional(),
  size: z.number().int().min(1).max(POOL_MAX_SIZE),
  envNames: z.array(z.string()).describe('Names (never values) of the explicit --env variables'),
  envDigest: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: z.string(),
});
export type PoolRecord = z.infer<typeof PoolRecordSchema>;

/** A pool worker's state: spawning, idle at its ready prompt, claimed by a call, or dead (never claimed; the next refill replaces it). */
export const PoolWorkerStateSchema = z.enum(['starting', 'ready', 'claimed', 'dead']);
export type PoolWorkerState = z.infer<typeof PoolWorkerStateSchema>;

/** One worker of a pool. */
export const PoolWorkerSchema = z.object({
  worker: WorkerNameSchema,
  state: PoolWorkerStateSchema,
  claimedBy: z.number().int().positive().optional().describe('Pid of the process that claimed it'),
  reason: z.string().optional().describe('Why it is dead (a teardown that failed says so, with its error)'),
});
export type PoolWorker = z.infer<typeof PoolWorkerSchema>;

/** What `pool status` reports about one pool. */
export const PoolStatusSchema = z.object({
  name: PoolNameSchema,
  provider: z.string(),
  cwd: z.string(),
  model: z.string().optional(),
  permissionMode: z.string().optional(),
  allowedTools: z.string().optional(),
  unattended: z.boolean(),
  worktree: PoolWorktreeSchema.optional().describe('Each member has its own worktree and branch umbel/<member> from this base'),
  sandbox: PoolSandboxSchema.optional().describe('Each member is confined, with these widenings'),
  envNames: z.array(z.string()),
  size: z.number().int().positive(),
  createdAt: z.string(),
  workers: z.array(PoolWorkerSchema),
  counts: z.object({ starting: z.number().int(), ready: z.number().int(), claimed: z.number().int(), dead: z.number().int() }),
  refilling: z.boolean().describe('A refill is running (it spawns until the pool is full, then exits)'),
  lastError: z.string().optional().describe('Why the last refill could not start a worker'),
});
export type PoolStatus = z.infer<typeof PoolStatusSchema>;

/** Result of `pool claim`: a warm worker, or why there is none (the caller then starts one cold). */
export const PoolClaimResultSchema = z.object({
  worker: WorkerNameSchema.optional().describe('The claimed worker: ready, never used; release it after its one call'),
  pool: PoolNameSchema.optional().describe('The pool that matched (also when it had no idle worker)'),
  reason: z.enum(['claimed', 'empty', 'no-match']).describe('claimed; empty: a pool matched but had no idle worker; no-match: no pool has these options'),
  refill: z.boolean().describe('The matching pool is short and no refill is running: start one after the call, off its critical path'),
});
export type PoolClaimResult = z.infer<typeof PoolClaimResultSchema>;

/** Result of `pool refill`. */
export const PoolRefillResultSchema = z.object({
  pool: PoolNameSchema,
  started: z.array(WorkerNameSchema).describe('Workers this refill started'),
  removed: z.array(WorkerNameSchema).describe('Dead, used or surplus workers it removed'),
  busy: z.boolean().describe('Another refill of this pool was running: it fills the pool, this one did nothing'),
  error: z.string().optional().describe('Why a worker could not be started'),
});
export type PoolRefillResult = z.infer<typeof PoolRefillResultSchema>;

/** Result of `pool stop`. */
export const PoolStopResultSchema = z.object({ pool: PoolNameSchema, removed: z.array(WorkerNameSchema) });
export type PoolStopResult = z.infer<typeof PoolStopResultSchema>;

// --- the fleet's event stream (`umbel events`, see ../ledger/fleet-events.ts) and multi-wait ---

/** What happened to a worker, as its ledger records it. */
export const FleetEventKindSchema = z.enum([
  'spawned',
  'ready',
  'sent',
  'send-failed',
  'needs-input',
  'ended',
  'dead',
  'killed',
  'host-unreachable',
  'host-back',
  'revived',
  'self-started',
]);
export type FleetEventKind = z.infer<typeof FleetEventKindSchema>;

/** One lifecycle event of the fleet (derived from the ledger, never from a screen). */
export const FleetEventSchema = z.object({
  cursor: z.string().describe('Where this event sits in the stream: pass it as `since` to continue after it'),
  at: z.string().describe('When it happened (ISO time)'),
  kind: FleetEventKindSchema,
  worker: z.string(),
  provider: z.string(),
  host: z.string().optional().describe('The host of a remote worker (absent: this machine)'),
  turn: z.number().int().positive().optional().describe('sent, send-failed, needs-input, ended: the turn'),
  input: z.enum(['permission', 'question', 'idle']).optional().describe('needs-input: what the CLI asks for'),
  tool: z.string().optional().describe('needs-input: the tool asking for permission'),
  message: z.string().optional(),
  reason: OutcomeReasonSchema.optional().describe("ended: how the turn ended, as its hooks tell (a wait's outcome reads the transcript too)"),
  exitCode: z.number().int().optional().describe('ended: the exit code of that reason'),
  status: z.number().int().optional().describe('dead: the exit status of the CLI process'),
  signal: z.string().optional().describe('dead: the signal that ended it'),
});
export type FleetEvent = z.infer<typeof FleetEventSchema>;

/** Options of `events`. */
export const EventsOptionsSchema = z.object({
  names: z.array(WorkerNameSchema).optional().describe('Only these workers (default: every one)'),
  since: z.string().optional().describe("Only events after this: a cursor an event carried, an ISO time, or a duration back from now ('10m')"),
  limit: z.number().int().positive().optional().describe('At most this many events (the oldest first)'),
  follow: z.boolean().optional().describe('Keep going: new events as they happen, until cancelled'),
});
export type EventsOptions = z.input<typeof EventsOptionsSchema>;

/** How a wait on several workers ends: when every one ended (all), or the first (any). */
export const WaitModeSchema = z.enum(['all', 'any']).default('all').describe('all: every worker ended (default); any: the first one did');
export type WaitMode = z.infer<typeof WaitModeSchema>;

/** Options of a wait on several workers: the wait fields of each (but its turn), the names and the mode. */
export const WaitManyOptionsSchema = WaitOptionsSchema.omit({ name: true, turn: true })
  .extend({
    names: z
      .array(WorkerNameSchema)
      .min(1)
      .refine((names) => new Set(names).size === names.length, { message: 'a worker is named twice' })
      .describe('The workers; each one waits for its latest sent model turn'),
    mode: WaitModeSchema,
  })
  .strict();
export type WaitManyOptions = z.input<typeof WaitManyOptionsSchema>;
