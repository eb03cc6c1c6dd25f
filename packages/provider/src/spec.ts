/**
 * The versioned provider specification: everything umbel needs to know about one agent CLI.
 * A provider states its CLI's facts (how to launch it, what its hooks mean, how to read its
 * transcript, its dialogs); shared behaviour (waiting, retries, unwinding) lives in the engine.
 *
 * Never change ProviderV1 in place except by adding optional members; anything else is a V2.
 */
import type { PROVIDER_SPEC_V1 } from './shape.js';

/**
 * Neutral hook kinds. A provider wires its CLI's hook events to `umbel-hook <kind>`:
 * - `session`: the CLI started (or switched session); payload may carry session id / transcript path
 * - `prompt`: a prompt was accepted (confirms a send)
 * - `stop`: a turn ended normally (the transcript may still lag)
 * - `stop-failure`: a turn ended with an API/provider error
 * - `permission`: the CLI is asking for permission (needs input)
 * - `notify`: a notification; the provider classifies it (needs input, or informational)
 * - `interrupt`: a turn was interrupted (Esc, Ctrl-C, denied approval)
 * - `session-end`: the CLI is exiting
 * - `tool`: a tool call started or finished (activity only)
 */
export const HOOK_KINDS = ['session', 'prompt', 'stop', 'stop-failure', 'permission', 'notify', 'interrupt', 'session-end', 'tool'] as const;
export type HookKind = (typeof HOOK_KINDS)[number];

/** One hook event as the engine hands it to the provider. */
export interface HookEvent {
  readonly kind: HookKind | 'sent' | 'exit' | 'dead' | string;
  /** Nanosecond timestamp from the event file name. */
  readonly at: bigint;
  /** The hook payload (parsed JSON), or undefined when it was not JSON. */
  readonly payload: unknown;
}

/** One piece of background work a CLI reported (Claude's Stop `background_tasks`: a background shell, …). */
export interface ProviderV1BackgroundTask {
  /** The CLI's own kind of it (Claude: `shell`). */
  readonly kind: string;
  /** Its id in the CLI's terms (Claude's task id). */
  readonly id: string;
  /** Still running when the CLI reported it. */
  readonly running: boolean;
}

/** What a provider extracts from one hook payload. All optional. */
export interface ProviderV1EventInfo {
  readonly sessionId?: string;
  readonly transcriptPath?: string;
  /** Identifier of the turn in the CLI's own terms (claude prompt_id, codex turn_id). */
  readonly turnKey?: string;
  /** For `permission`/`notify`: what input is needed; undefined = informational. */
  readonly needsInput?: { readonly kind: 'permission' | 'question' | 'idle'; readonly message?: string; readonly tool?: string };
  /** For `stop-failure`: the error text. */
  readonly error?: string;
  /** Final answer carried in the payload (a fallback when the transcript lags). */
  readonly lastMessage?: string;
  /** Short description of current activity (e.g. the tool being run). */
  readonly activity?: string;
  /** Plan usage the CLI reported (Claude's statusLine `rate_limits`): percent used, reset in epoch seconds. */
  readonly quota?: ProviderV1Quota;
  /** For `stop-failure`: the error was the account's (a usage or rate limit, a refused login). */
  readonly account?: ProviderV1AccountError;
  /**
   * For `notify`: the CLI continues the last turn by itself (Claude Code at a plan limit's reset,
   * `quota_auto_resume_fired`); the next `prompt` event is that continuation, not a prompt umbel sent.
   */
  readonly autoContinue?: true;
  /** For `stop`: the background work the CLI listed when it stopped (Claude's `background_tasks`). */
  readonly background?: readonly ProviderV1BackgroundTask[];
  /**
   * For `prompt`: a turn the CLI started by itself, not a prompt anyone sent (Claude Code's
   * `<task-notification>` when background work it started ended); its events credit no turn of umbel's.
   */
  readonly selfStarted?: true;
}

/** An account dialog on the screen: the kind it means and its line. */
export interface ProviderV1AccountScreen {
  readonly kind: ProviderV1AccountError['kind'];
  readonly message: string;
  /** How the caller answers it with `umbel keys` (named in send's refusal), when known. */
  readonly answer?: string;
}

/**
 * An account failure, as a provider classifies it from its CLI's own records: `rate-limited` (HTTP
 * 429, a plan's usage limit reached) or `auth-failed` (401/403, an expired or revoked login). The
 * engine maps it once into the outcome's reason; anything else stays a `provider-error`.
 */
export interface ProviderV1AccountError {
  readonly kind: 'rate-limited' | 'auth-failed';
  /** When the limit resets (ISO time), when the CLI recorded it. */
  readonly resetsAt?: string;
  /** Which limit was reached, in the CLI's terms (`five_hour`, `seven_day`, `usage_limit_exceeded`), when known. */
  readonly limit?: string;
}

/** One usage window of a plan. */
export interface ProviderV1QuotaWindow {
  readonly usedPercent: number;
  /** Epoch seconds. */
  readonly resetsAt?: number;
}

/** Plan usage as a CLI reports it. */
export interface ProviderV1Quota {
  readonly fiveHour?: ProviderV1QuotaWindow;
  readonly sevenDay?: ProviderV1QuotaWindow;
}

/** Options the engine passes to `doBuildLaunch`. */
export interface ProviderV1LaunchOptions {
  readonly worker: string;
  /** Real (symlink-resolved) working directory. */
  readonly cwd: string;
  readonly model?: string;
  readonly permissionMode?: string;
  readonly allowedTools?: string;
  readonly appendSystemPrompt?: string;
  readonly unattended: boolean;
  /** The resolved worker env (read only; for decisions such as which key is set). */
  readonly env: Readonly<Record<string, string>>;
  /** umbel's own environment (to find the user's config, `UMBEL_<ID>_BIN`, HOME). */
  readonly callerEnv: Readonly<Record<string, string | undefined>>;
  /** A private directory for this worker's provider files; removed with the worker. */
  readonly workerDir: string;
  /**
   * A directory shared by every worker of this provider under one state root (never cleaned per
   * worker). `doBuildLaunch` may write here itself when it must merge (read-modify-write) rather
   * than replace; it then owns the locking (concurrent spawns are common).
   */
  readonly sharedDir: string;
  /** A fresh UUID the provider may use as the CLI's session id (when `resume` is set: the resumed one). */
  readonly sessionId: string;
  /**
   * Resume this conversation of the CLI (its session id, as the worker's ledger recorded it) rather
   * than start a new one: `umbel revive`. Only given to a provider whose `capabilities.resume` is true.
   */
  readonly resume?: { readonly sessionId: string };
  /**
   * The worker's first prompt, for the CLI to start on as it comes up (its own command-line prompt:
   * `claude -- 'text'`), instead of a paste once it is ready. Only given to a provider whose
   * `capabilities.launchPrompt` is true, never with `resume`; the text is as the engine would paste it.
   */
  readonly prompt?: string;
  /** The shell command string that delivers a hook payload (stdin) as an event of `kind`. */
  hookCommand(kind: HookKind, options?: { readonly stdout?: string }): string;
  /** Absolute path of the hook sink script (for configs that want argv arrays). */
  readonly hookSinkPath: string;
}

/** Input to `doValidate`: the spawn's choices (before any I/O) and whether umbel runs as root. */
export interface ProviderV1ValidateOptions {
  readonly spawn: Omit<ProviderV1LaunchOptions, 'hookCommand' | 'hookSinkPath' | 'workerDir' | 'sharedDir' | 'sessionId' | 'worker' | 'resume'>;
  readonly isRoot: boolean;
}

/** A file a provider needs on disk before launch. */
export interface ProviderV1File {
  readonly path: string;
  readonly content: string;
  readonly mode?: number;
  /** Shared infrastructure: written if different, never removed with the worker. */
  readonly shared?: boolean;
}

/** The launch a provider builds. */
export interface ProviderV1Launch {
  /** Executable (absolute path preferred) and its arguments. Never env values. */
  readonly argv: readonly string[];
  /** Variables the provider reserves; they win over explicit ones. */
  readonly env?: Readonly<Record<string, string>>;
  /** Variables to remove from the final env (e.g. ones that force a headless mode). */
  readonly unsetEnv?: readonly string[];
  readonly files?: readonly ProviderV1File[];
  /** Known up front (e.g. from a fixed `--session-id`). */
  readonly sessionId?: string;
  readonly transcriptPath?: string;
  /** What the launch's own files say about billing (e.g. Codex's auth.json mode), refined on the ready screen. */
  readonly billing?: ProviderV1BillingReport;
  /** The endpoint's base URL the launch's config names (a custom provider's `base_url`), when no variable sets one. */
  readonly endpoint?: string;
}

/** How a worker is billed: on the user's plan login, through an API key / cloud account, or not known. */
export type ProviderV1Billing = 'subscription' | 'api' | 'unknown';

/** A billing verdict and what it rests on (a screen line, an auth mode, a variable's name; never a value). */
export interface ProviderV1BillingReport {
  readonly billing: ProviderV1Billing;
  readonly evidence?: string;
}

/** The provider's billing facts (ACCOUNT-FACTS.md in test-fixtures/real). */
export interface ProviderV1BillingSpec {
  /**
   * Variables that switch the CLI from the subscription login to API (or cloud) billing. They are
   * never inherited: a worker gets one only when the caller passes it by name.
   */
  readonly apiEnv: readonly string[];
  /** Variables holding the endpoint's base URL (shown in status; a URL, never a key). First set wins. */
  readonly endpointEnv?: readonly string[];
  /**
   * Why the billing cannot be told from the worker's env before the CLI starts (its own stored
   * logins decide, as opencode's do). Without it, no API-billing variable passed means the CLI's own
   * (subscription) login. Doctor shows `unknown: <this>`.
   */
  readonly unknowableBeforeStart?: string;
  /**
   * The CLI bills only a subscription login: it has no API billing at all. Only then does a worker
   * whose verdict is `unknown` pass `billing: subscription`; otherwise the guard refuses it, as it
   * cannot tell the worker does not bill the API.
   */
  readonly subscriptionOnly?: boolean;
}

/**
 * What a confined worker (`spawn --sandbox`) of this CLI needs beyond its cwd: facts, not code. The
 * engine builds the sandbox policy from them (network: `hosts` plus the host of a custom base URL
 * named by `billing.endpointEnv`; write: `writePaths`).
 */
export interface ProviderV1SandboxSpec {
  /** Hosts of the model endpoint(s) the CLI calls (srt `allowedDomains` syntax: `api.example.com`, `*.example.com`). */
  readonly hosts: readonly string[];
  /**
   * Files and directories the CLI itself writes outside the worker's own dirs (its config and
   * transcripts). `~/` is the worker's HOME; `env` names a variable that moves the path (set: its value wins).
   */
  readonly writePaths?: readonly { readonly path: string; readonly env?: string }[];
}

/** A scratch session to forget (`doForgetScratch`). */
export interface ProviderV1ScratchSession {
  /** The scratch worker's cwd (absolute; a fresh private temp dir, never one of the user's). */
  readonly folder: string;
  /** The CLI's session ids that ran there. */
  readonly sessionIds: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Input of `doDetectBilling`: the ready screen, the worker env's names, and what the launch said. */
export interface ProviderV1BillingInput {
  readonly screen: string;
  readonly envNames: readonly string[];
  readonly launch?: ProviderV1BillingReport;
}

/** What the startup screen shows. */
export type ProviderV1StartupState =
  | { readonly state: 'starting' }
  | { readonly state: 'ready' }
  | { readonly state: 'dialog'; readonly id: string; readonly keys: readonly string[] }
  | { readonly state: 'sign-in'; readonly line: string }
  | { readonly state: 'fatal'; readonly message: string };

/** Input to `doReadTurn`. */
export interface ProviderV1ReadTurnOptions {
  /** The whole transcript text (the engine does the I/O). */
  readonly content: string;
  readonly transcriptPath: string;
  /** Turn id from the `prompt` (or `stop`) event, when known. */
  readonly turnKey?: string;
  /** The prompt as sent. */
  readonly prompt?: string;
  /**
   * 1-based turn number as umbel counts it (one per `send`). Use it only as a fallback when no
   * `turnKey` is known: it equals the n-th prompt of the transcript only while every prompt came
   * from umbel and started a model turn.
   */
  readonly ordinal: number;
  /** Whether a `stop` hook for this turn has fired. */
  readonly stopSeen: boolean;
  /**
   * The final message the `stop` hook reported (`lastMessage` of its parsed event), when it has
   * fired. A provider may call the turn completed as soon as the transcript shows this same final
   * message, before its own end-of-turn marker lands.
   */
  readonly stopMessage?: string;
  /**
   * The provider's {@link ProviderV1.sideRecords} as they are now, by name: each file's text (only
   * its last `maxBytes` when it is longer, so the first record may be cut), or undefined when it does
   * not exist (yet). The engine does the I/O, on the reader's first access to a record (so a turn the
   * transcript settles costs no side read); the reader stays pure.
   */
  readonly sideRecords?: Readonly<Record<string, string>>;
  /**
   * What the provider's own {@link ProviderV1.doParseTranscript} made of `content`, when it has one:
   * the engine parses one transcript text once and hands the result to every reader of it (the
   * turn's read, its messages, every turn of `actions`). Absent: parse `content` yourself.
   */
  readonly parsed?: unknown;
}

/**
 * A file the CLI writes beside its transcript that reading a turn needs (Gemini's telemetry file:
 * the one record of each failed API attempt it retries). Declared by the provider, read by the
 * engine with the transcript and handed to `doReadTurn` as {@link ProviderV1ReadTurnOptions.sideRecords}.
 */
export interface ProviderV1SideRecord {
  /** Its key in `sideRecords`. */
  readonly name: string;
  /** Path relative to the worker's provider dir (the launch's `workerDir`). */
  readonly path: string;
  /** Read only the last this many bytes of a longer file (default: the whole file). */
  readonly maxBytes?: number;
}

/** One message for stream output, in Claude's stream-json shape (`{type, message}`). */
export interface ProviderV1Message {
  readonly type: 'assistant' | 'user';
  readonly message: unknown;
  readonly uuid?: string;
}

/** A tool call as the transcript shows it (a `tool_use` block of {@link ProviderV1Message}s). */
export interface ProviderV1ToolCall {
  readonly name: string;
  readonly input: unknown;
}

/**
 * What one tool call did to files and the shell, in neutral terms (for `actions` and `diff`).
 * Paths as the call names them (absolute, or relative to the worker cwd). All optional: a tool
 * that does none of these (a web search, a todo list) is `{}`.
 */
export interface ProviderV1ToolUse {
  readonly read?: readonly string[];
  /** Existing files changed in place. */
  readonly edited?: readonly string[];
  /** Files created or overwritten whole. */
  readonly written?: readonly string[];
  /** A shell command the call runs. */
  readonly command?: string;
}

/** A tool's result as the transcript shows it (a `tool_result` block). */
export interface ProviderV1ToolResult {
  /** The tool that produced it, when its call was seen. */
  readonly name?: string;
  /** The result as text. */
  readonly content: string;
  /** The block's own `is_error` flag. */
  readonly isError: boolean;
}

/**
 * Token usage of one turn in umbel's neutral names, as the CLI counts them (e.g. OpenAI's input
 * count includes cached input, Anthropic's does not). Every field is optional: report what the
 * transcript records.
 */
export interface ProviderV1Usage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly cacheReadTokens?: number;
  readonly cacheCreationTokens?: number;
  /** Thinking / reasoning output, when the CLI counts it apart. */
  readonly reasoningTokens?: number;
  readonly costUsd?: number;
}

/** What the transcript says about one turn. */
export type ProviderV1TurnRead =
  | { readonly status: 'missing' }
  | { readonly status: 'running'; readonly activity?: string }
  | {
      readonly status: 'completed';
      readonly answer: string;
      /**
       * Legacy usage record: Claude's field names (`input_tokens`, `output_tokens`,
       * `cache_read_input_tokens`, `cache_creation_input_tokens`, `cost_usd`) are mapped, any other
       * name passes through as it is. Prefer {@link tokenUsage}; when both are given it wins.
       */
      readonly usage?: Record<string, number>;
      /** Usage in umbel's neutral shape (mapped once by the engine, never per provider). */
      readonly tokenUsage?: ProviderV1Usage;
      readonly numTurns?: number;
      readonly sessionId?: string;
      readonly model?: string;
      /** Why the model's last message of the turn ended (`end_turn`, …), when the transcript says. */
      readonly stopReason?: string;
      /** Plan usage the transcript recorded for this turn (Codex: `token_count.rate_limits`); absent when none. */
      readonly quota?: ProviderV1Quota;
      /**
       * Background work the transcript records as still running when the turn ended (Codex: its
       * background terminals), for a CLI whose stop hook does not list it ({@link ProviderV1EventInfo.background}
       * wins); absent when none.
       */
      readonly background?: readonly ProviderV1BackgroundTask[];
    }
  | {
      readonly status: 'failed';
      readonly message: string;
      /** The failed API call's HTTP status and error type (`500`, `api_error`), when the transcript records them. */
      readonly apiErrorStatus?: number;
      readonly apiErrorType?: string;
      readonly stopReason?: string;
      /** The failure was the account's (usage or rate limit, refused login): outcome `rate-limited` / `auth-failed`. */
      readonly account?: ProviderV1AccountError;
      /** Plan usage the transcript recorded for this turn, as on a completed one (a plan limit: the used-up window). */
      readonly quota?: ProviderV1Quota;
      /**
       * The CLI has not ended the turn: it keeps retrying the failed call and would go on (Gemini's
       * TUI retries a 429 in rounds, forever). `wait` reports the failure at once and ends the turn
       * with the provider's {@link ProviderV1InputSpec.cancelKeys}, so the worker stops calling the API.
       */
      readonly retrying?: boolean;
    }
  | { readonly status: 'interrupted'; readonly message?: string };

/** How prompts are delivered. */
export interface ProviderV1InputSpec {
  /** Delay between the text and the Enter that submits it. Default 0. */
  readonly submitDelayMs?: number;
  /** How long to wait for the `prompt` event before pressing Enter again. Default 1500. */
  readonly confirmTimeoutMs?: number;
  /**
   * Extra Enter presses when the prompt is not confirmed. Default 3. Spent while the input box (read
   * by `doReadInputBox`) still holds the prompt, as many again (a CLI slow to take it under load);
   * spent with the box empty, as long again is waited for the turn (a prompt hook that comes late).
   */
  readonly maxSubmitRetries?: number;
  /** Always paste (true), or type short single lines literally (false). Default true. */
  readonly alwaysPaste?: boolean;
  /**
   * Keys that clear a non-empty input box, pressed one at a time after a prompt that was never
   * submitted (e.g. `['Escape', 'Escape']`). The engine presses the next one only while
   * {@link ProviderV1.doReadInputBox} still reads text, so a key that means something else on an
   * empty box (quit, rewind) is never pressed there. Without `doReadInputBox` nothing is pressed.
   */
  readonly clearKeys?: readonly string[];
  /**
   * The CLI's own cancel of a running turn (Gemini: `['Escape']`), pressed once by `wait` when a
   * turn read is a failure the CLI keeps {@link retrying}. Without it such a turn is reported but
   * left running.
   */
  readonly cancelKeys?: readonly string[];
  /**
   * What the CLI does with a prompt typed while a turn runs: `queue` it and start it after that turn
   * (default; `send` returns `queued: true`), or `drop` it. For `drop`, `send` into a worker whose
   * latest turn is still running is refused at once (`SendBusyError`): nothing is typed and no turn
   * number is taken, so the caller waits for the running turn and sends again. `merge`: it may take
   * the prompt into the running turn (Qwen Code drains a queued prompt into the turn after its tool
   * calls), so it would be no turn of its own: refused like `drop`.
   */
  readonly whileBusy?: 'queue' | 'drop' | 'merge';
}

/** Capabilities the engine checks before any I/O. */
export interface ProviderV1Capabilities {
  readonly unattended: boolean;
  readonly allowedTools: boolean;
  readonly appendSystemPrompt: boolean;
  /** Accepted `permissionMode` values, or empty when the CLI has none. */
  readonly permissionModes: readonly string[];
  /**
   * The CLI takes a model (`--model`): `doBuildLaunch` passes `model` on. Absent or false: a spawn
   * given a model is refused (`OptionUnsupportedError`), never launched with the model dropped.
   */
  readonly model?: boolean;
  /**
   * The CLI can resume its own conversation by session id (`umbel revive`): `doBuildLaunch` given
   * `resume` continues that conversation. Absent or false: revive refuses (`ResumeUnsupportedError`),
   * never starting a fresh conversation instead.
   */
  readonly resume?: boolean;
  /**
   * The CLI starts on a prompt given on its command line (`claude -- 'text'`) and submits it as if
   * typed: `doBuildLaunch` given `prompt` puts it there. Absent or false: a first prompt is pasted
   * once the CLI is ready.
   */
  readonly launchPrompt?: boolean;
}

/** Version 1 of the provider specification. */
export interface ProviderV1 {
  /** Always the literal `'umbel-provider-v1'` (`PROVIDER_SPEC_V1`). */
  readonly specificationVersion: typeof PROVIDER_SPEC_V1;
  /** Stable kebab-case id (`claude`). */
  readonly providerId: string;
  /** Human name (`Claude Code`). */
  readonly displayName: string;
  readonly capabilities: ProviderV1Capabilities;
  /** Configuration variables inherited from the caller, named one by one (never a prefix). */
  readonly inheritEnv: readonly string[];
  /** Billing facts: the variables that bill the API (never inherited). Optional. */
  readonly billing?: ProviderV1BillingSpec;
  /** What a confined worker needs (hosts, the CLI's own write paths). Without it `--sandbox` allows no network and writes only the worker's dirs. */
  readonly sandbox?: ProviderV1SandboxSpec;
  /**
   * How a user signs this CLI in (one sentence, e.g. "run `acme login` once in a terminal"): the hint
   * of a sign-in screen (`NotSignedInError`, `doctor`'s login check), instead of umbel's generic one.
   */
  readonly signInHint?: string;
  readonly input?: ProviderV1InputSpec;
  /** The CLI versions this provider was verified against (newest last). Optional. */
  readonly verifiedVersions?: readonly string[];
  /**
   * Forget a scratch session umbel ran (`umbel doctor`): remove what the CLI itself recorded about
   * `folder` and those sessions in its own state (Claude: the folder's trust entry in `.claude.json`,
   * its history lines, the sessions' own dirs), and nothing else. `env` is the env the worker had.
   * Best effort, never throws. Optional.
   */
  doForgetScratch?(input: ProviderV1ScratchSession): Promise<void>;
  /**
   * When the CLI fires its `session` hook: at startup (the default), or only once the first prompt
   * is submitted (Codex). `doctor` checks the session payload without a model call only in the
   * first case. Optional.
   */
  readonly sessionHook?: 'startup' | 'first-prompt';
  /**
   * Whether the CLI fires its `prompt` hook for every prompt it takes — a prompt typed while it works
   * when it starts that prompt — before any other event of that turn (`'every-prompt'`). Then a turn
   * umbel sent has not started before its `prompt` event: a terminal event that comes earlier ends a
   * turn the CLI started by itself without a prompt hook (Qwen Code's `<task-notification>` turn), never
   * the unconfirmed one, and a `send` whose text left the input box (read by {@link doReadInputBox})
   * with no `prompt` event is queued behind such a turn (`queued: true`), not re-submitted. Absent: the
   * CLI may skip its prompt hook, so a terminal event ends the oldest open turn. Optional.
   */
  readonly promptHook?: 'every-prompt';
  /**
   * The absolute path of the CLI's executable, found exactly as `doBuildLaunch` finds it; throws a
   * typed error naming where it looked when there is none. Never runs it. Optional.
   */
  doFindBinary?(callerEnv: Readonly<Record<string, string | undefined>>): Promise<string>;
  /** Pure checks of the options and env; throw a UsageError subclass to refuse before any I/O. */
  doValidate?(options: ProviderV1ValidateOptions): void;
  /** Adjust the final env (e.g. drop a key another one supersedes). Pure. */
  doReconcileEnv?(env: Readonly<Record<string, string>>): Record<string, string>;
  /** Build the command, reserved env and files. May read the caller's config; must not launch. */
  doBuildLaunch(options: ProviderV1LaunchOptions): Promise<ProviderV1Launch>;
  /** Classify the startup screen (plus the events seen so far). Pure. */
  doDetectStartup(input: {
    readonly screen: string;
    readonly events: readonly HookEvent[];
    /** Names of the variables in the worker env (a dialog may be answered differently when a key was passed). */
    readonly envNames?: readonly string[];
  }): ProviderV1StartupState;
  /** How the ready worker is billed, from its ready screen, env names and launch. Pure. Optional (unknown). */
  doDetectBilling?(input: ProviderV1BillingInput): ProviderV1BillingReport;
  /** Text to paste for a prompt (e.g. a leading space so `/x` is not a command). Throw UsageError to refuse. */
  doPreparePrompt?(prompt: string): string;
  /** Extract what a hook payload says. Pure. */
  doParseEvent(event: HookEvent): ProviderV1EventInfo;
  /** Files beside the transcript that {@link doReadTurn} reads too (see {@link ProviderV1SideRecord}). Optional. */
  readonly sideRecords?: readonly ProviderV1SideRecord[];
  /**
   * Directories of the CLI's background work beside a transcript (Claude: its subagents'
   * transcripts, `<transcript without .jsonl>/subagents/`): a file there growing counts as activity
   * for the idle net of `wait --idle-timeout`, so a turn whose subagents work behind a still screen is
   * never reported idle. `sessionId` is the CLI's session id when umbel knows it, for a CLI that names
   * that directory by it and not by the transcript's name (Gemini CLI: `chats/<session id>/`). Pure. Optional.
   */
  doFindActivityDirs?(transcriptPath: string, sessionId?: string): readonly string[];
  /**
   * Parse one transcript text once for all its readers: what it returns is handed to
   * {@link doReadTurn} and {@link doReadMessages} as {@link ProviderV1ReadTurnOptions.parsed}.
   * Pure; the result is only read, never changed. Optional.
   */
  doParseTranscript?(input: { readonly content: string; readonly transcriptPath: string }): unknown;
  /** Read one turn from the transcript text (and the side records). Pure. */
  doReadTurn(options: ProviderV1ReadTurnOptions): ProviderV1TurnRead;
  /** Messages of one turn for stream output. Pure. Optional. */
  doReadMessages?(options: ProviderV1ReadTurnOptions): readonly ProviderV1Message[];
  /** A sign-in screen seen after startup (wait reports needs-input/sign-in). Pure. Optional. */
  doDetectSignIn?(screen: string): string | undefined;
  /**
   * A blocking account dialog drawn mid-turn before the CLI records any error (Gemini's daily-quota
   * "Usage limit reached" dialog): wait reports its kind (`rate-limited`) with the line as message.
   * Pure. Optional.
   */
  doDetectAccountScreen?(screen: string): ProviderV1AccountScreen | undefined;
  /**
   * Whether the screen shows the permission prompt a pending `permission` event asks about, drawn
   * and taking keys. Some CLIs fire the hook before they draw the prompt; with this, `wait` reports
   * needs-input only once the prompt is there (bounded by {@link INPUT_PROMPT_SETTLE_MS}), so keys
   * sent at once reach it and the outcome's pane tail shows it. Pure. Optional.
   */
  doDetectInputPrompt?(screen: string): boolean;
  /**
   * The text in the CLI's input box on this screen: `''` when the box is empty, undefined when the
   * screen shows no input box (a dialog, still starting). Used only to clear an unsubmitted prompt
   * (see {@link ProviderV1InputSpec.clearKeys}); never to read answers. Pure. Optional.
   */
  doReadInputBox?(screen: string): string | undefined;
  /**
   * What a tool call of this CLI does (files read/edited/written, a shell command), from its name
   * and input as {@link doReadMessages} reports them. Used by `actions` and by `diff` outside git.
   * Without it, `actions` counts tools but lists no files or commands. Pure. Optional.
   */
  doClassifyTool?(call: ProviderV1ToolCall): ProviderV1ToolUse;
  /**
   * Whether a tool result reports a failure, and the error text to show. Without it (or when it
   * returns undefined) a result is an error only when its block says `is_error`. Pure. Optional.
   */
  doReadToolError?(result: ProviderV1ToolResult): string | undefined;
  /**
   * One line of help text for people and models choosing a provider (what the CLI is, what it
   * needs: "Google's Gemini CLI; needs GEMINI_API_KEY"). Shown by `umbel providers`, `--help` and
   * the MCP tool descriptions. Optional: the display name stands in.
   */
  readonly description?: string;
}

/** Any provider version this engine understands. */
export type Provider = ProviderV1;
