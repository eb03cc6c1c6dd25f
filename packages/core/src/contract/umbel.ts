/**
 * The engine's public surface: what `createUmbel()` returns and every face (CLI, MCP, workflow)
 * calls. Inputs are the zod-inferred option types of ./schemas; outputs are plain data.
 */
import type { Provider, ProviderV1Message } from '@umbel/provider';
import type {
  ActionsOptions,
  ActionsResult,
  CaptureOptions,
  CaptureResult,
  DiffOptions,
  DiffResult,
  EventsOptions,
  FleetEvent,
  FleetLimits,
  FleetList,
  KeysResult,
  KillResult,
  LogEntry,
  PruneResult,
  ReadResult,
  SendResult,
  KeysOptions,
  KillOptions,
  ListOptions,
  MessagesOptions,
  ReviveOptions,
  Outcome,
  PoolClaimOptions,
  PoolClaimResult,
  PoolRefillOptions,
  PoolRefillResult,
  PoolRelease,
  PoolStartOptions,
  PoolStatus,
  PoolStopResult,
  PruneOptions,
  ReadOptions,
  SendOptions,
  SpawnOptions,
  WaitOptions,
  WorkerRef,
  WorkerStatus,
  WorktreeReserveJob,
} from './schemas.js';
import type { ScratchHostFactory } from '../doctor/host.js';
import type { DoctorOptions, DoctorReport } from '../doctor/schema.js';
import type { AttachCommand, Substrate } from './substrate.js';

export type { ActionsResult, CaptureResult, DiffResult, KeysResult, KillResult, LogEntry, PruneResult, ReadResult, SendResult };

/** Progress reported while a wait is pending. */
export interface WaitProgress {
  readonly worker: string;
  readonly turn: number;
  readonly elapsedMs: number;
  /** Latest activity from the transcript or hooks (e.g. "Bash(ls)"). */
  readonly activity?: string;
  /** Transcript messages of this turn that appeared since the previous progress report. */
  readonly messages?: readonly ProviderV1Message[];
  /** Guardrail attempt in progress (1-based), when a check/schema is set. */
  readonly attempt?: number;
}

/** Per-call context. */
export interface CallContext {
  /** Cancels the call. A cancelled wait returns outcome `aborted`; the worker keeps running. */
  readonly signal?: AbortSignal;
}

/** Context of a spawn. */
export interface SpawnContext extends CallContext {
  /** The caller may wait for a slot (workflows): with `limits.queue`, a spawn past a limit waits instead of failing. */
  readonly queue?: boolean;
  /**
   * `true`: the worker lives only as long as the calling process (`umbel -p`'s anonymous worker):
   * its pid and start time are recorded in meta.json (`owner`), and `prune` removes the worker once
   * that process is gone (killed before it could remove the worker itself).
   */
  readonly heldByCaller?: boolean;
}

/** Context of a send. */
export interface SendContext extends CallContext {
  /**
   * `false`: skip the git snapshot of the work tree taken before the Enter (it is what `diff`
   * compares with), for a turn nobody will diff — `umbel -p` sends so to the worker it removes.
   * That turn's `diff` then lists the files the transcript names. Default: taken (in git).
   */
  readonly snapshot?: boolean;
}

/** Context of a wait. */
export interface WaitContext extends CallContext {
  readonly onProgress?: (progress: WaitProgress) => void;
}

/** Validates a value against a JSON Schema; returns error strings (empty = valid). */
export type JsonSchemaValidator = (schema: unknown, value: unknown) => readonly string[];

/** Settings of `createUmbel`. */
export interface UmbelSettings {
  readonly substrate: Substrate;
  readonly providers: readonly Provider[];
  /**
   * State root; default: the root the substrate serves (`createTmuxSubstrate({ home })`), else
   * `UMBEL_HOME`, else `$XDG_STATE_HOME/umbel`, else `~/.local/state/umbel`. A substrate bound to
   * another root is refused (`HomeMismatchError`).
   */
  readonly home?: string;
  /** umbel's own environment (default `process.env`): source of inherited and `--env NAME` values. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Overrides for the JSON Schema validator used by `wait --schema`. */
  readonly validateJsonSchema?: JsonSchemaValidator;
  /**
   * How long a wait holds a turn whose stop hook fired for its final message to reach the
   * transcript (default 5 s). Then it completes with the stop payload's message, or ends `unknown`.
   */
  readonly stopSettleMs?: number;
  /**
   * Hosts for scratch state roots (`doctor`'s scratch worker runs under its own root, never this
   * one). Without it, `doctor` checks binaries and configuration only.
   */
  readonly scratch?: ScratchHostFactory;
  /**
   * Provider packages that could not be loaded (the runtime's): every other provider works, and
   * wherever a worker's provider is missing (its status, a refusal, `doctor`) they are named.
   */
  readonly unloadedProviders?: readonly UnloadedProvider[];
  /** Fleet limits on this state root (the config file's `limits`); none by default. */
  readonly limits?: FleetLimits;
  /**
   * After a `--worktree` spawn, start keeping a spare worktree of its repository ready (`reserveSpare`,
   * git/spare.ts) so the next one is quick. The CLI hands it to a detached process; by default the
   * engine makes it in the background of this process (a spare left half-made is removed later).
   */
  readonly reserveWorktree?: (job: WorktreeReserveJob) => Promise<void>;
}

/** A provider package that could not be loaded: the package (and where it was named) and why. */
export interface UnloadedProvider {
  readonly package: string;
  readonly reason: string;
}

/**
 * Warm pools (./pool.ts): N idle workers kept at their ready prompt, so a one-shot call skips the
 * CLI's startup. No daemon: a pool is its workers and its state files under `pools/`.
 */
export interface UmbelPools {
  /** Create the pool (or resize a matching one) and spawn until it is full. */
  start(options: PoolStartOptions, context?: CallContext): Promise<PoolStatus>;
  /** Every pool, or the one named, with each worker's state. */
  status(name?: string): Promise<PoolStatus[]>;
  /** Remove the pool (every one when no name): its workers, in use or not, and its files. */
  stop(name?: string): Promise<PoolStopResult[]>;
  /** Atomically take an idle worker of a matching pool (two callers never get the same one). */
  claim(options: PoolClaimOptions): Promise<PoolClaimResult>;
  /**
   * Remove a claimed worker after its call (a pool worker is never used twice). A removal that fails
   * throws, and its marker stays with the error: `status` shows it, the next refill or `prune` finishes it.
   */
  release(claim: PoolRelease): Promise<void>;
  /** Replace dead, used and missing workers until the pool is full (one refill at a time per pool). */
  refill(options: PoolRefillOptions, context?: RefillContext): Promise<PoolRefillResult>;
  /**
   * Take the pool's refill lock now for a refill another process runs (`umbel -p` hands it to its
   * detached process before it exits): from then until that refill ends the pool has a refill in
   * flight, and a claim that finds no idle worker waits for it. Undefined when a live refill holds
   * the lock (or the pool is gone).
   */
  reserveRefill(name: string): Promise<RefillReservation | undefined>;
}

/** Context of a refill. */
export interface RefillContext extends CallContext {
  /** The pool's lock is being handed to this process (a `reserveRefill` in another one): take it over. */
  readonly handedOver?: boolean;
}

/** A refill lock taken for another process (`UmbelPools.reserveRefill`). */
export interface RefillReservation {
  /** Make process `pid` the lock's owner (it refills with `handedOver`); false when this process no longer holds it. */
  handTo(pid: number): Promise<boolean>;
  /** Give the lock up (no other process will refill). */
  cancel(): Promise<void>;
}

/** The engine. */
export interface Umbel {
  readonly home: string;
  readonly providerIds: readonly string[];
  provider(id: string): Provider;
  spawn(options: SpawnOptions, context?: SpawnContext): Promise<WorkerStatus>;
  /** Deliver a prompt (or, with `command: true`, run the CLI's own command) and confirm it was taken. */
  send(options: SendOptions, context?: SendContext): Promise<SendResult>;
  /** Press keys in the worker's terminal (e.g. answer a permission dialog); a pending needs-input counts as answered. */
  keys(options: KeysOptions, context?: CallContext): Promise<KeysResult>;
  /** Wait for a turn to end (or, with `until`, for a file to appear or the screen to match). */
  wait(options: WaitOptions, context?: WaitContext): Promise<Outcome>;
  read(options: ReadOptions, context?: CallContext): Promise<ReadResult>;
  /**
   * The lifecycle of the workers (all, or `names`) as one ordered stream, from their ledgers:
   * spawned, ready, sent, send-failed, needs-input, ended, dead, killed. With `follow`, it goes on
   * with each new event as it is written (woken by file-system notifications) until cancelled.
   */
  events(options?: EventsOptions, context?: CallContext): AsyncIterable<FleetEvent>;
  status(options: WorkerRef, context?: CallContext): Promise<WorkerStatus>;
  list(options?: ListOptions, context?: CallContext): Promise<WorkerStatus[]>;
  /**
   * Optional (a fleet has it: @umbel/remote's createFleet): every worker here and on every
   * configured host, and how each host answered — an unreachable host is a report with its reason
   * (its recorded workers are `unreachable`, never dead). `list()` is its `workers`.
   */
  listFleet?(): Promise<FleetList>;
  /**
   * Start a dead or killed (not purged) worker again with its provider, options, cwd and env names,
   * resuming its CLI's conversation (`ResumeUnsupportedError` where the provider cannot); turn numbers go on.
   */
  revive(options: ReviveOptions, context?: CallContext): Promise<WorkerStatus>;
  kill(options: KillOptions, context?: CallContext): Promise<KillResult>;
  prune(options?: PruneOptions, context?: CallContext): Promise<PruneResult>;
  capture(options: CaptureOptions, context?: CallContext): Promise<CaptureResult>;
  logs(options: WorkerRef, context?: CallContext): Promise<LogEntry[]>;
  /** Transcript messages of a turn (default the latest sent), for stream output. */
  messages(options: MessagesOptions, context?: CallContext): Promise<readonly ProviderV1Message[]>;
  /** The command a person runs to watch the worker (`umbel attach`). */
  attachCommand(options: WorkerRef, context?: CallContext): Promise<AttachCommand>;
  /** What the worker did in a turn (default the latest sent), or in every turn (`turn: 'all'`), from its transcript. */
  actions(options: ActionsOptions, context?: CallContext): Promise<ActionsResult>;
  /** The file changes a turn made in the worker's cwd (git snapshot, else the transcript's list), or (`text`) how two answers differ. */
  diff(options: DiffOptions, context?: CallContext): Promise<DiffResult>;
  /** Warm pools. */
  readonly pool: UmbelPools;
  /**
   * Check that the installed CLIs still behave as umbel expects (binary, version, login, billing,
   * endpoint, and a scratch worker's hooks; with `turn`, one small model request). Touches none of
   * this engine's workers. Cancelling tears the scratch worker down.
   */
  doctor(options?: DoctorOptions, context?: CallContext): Promise<DoctorReport>;
}
