/**
 * The engine's public surface: what `createUmbel()` returns and every face (CLI, MCP, workflow)
 * calls. Inputs are the zod-inferred option types of ./schemas; outputs are plain data.
 */
import type { Provider, ProviderV1Message } from '@umbel/provider';
import type * as z from 'zod';
import type { VERBS, VerbName } from './verbs.js';
import type {
  ActionsResult,
  CaptureResult,
  DiffResult,
  FleetLimits,
  FleetList,
  KeysResult,
  KillResult,
  LogEntry,
  PruneResult,
  ReadResult,
  SendResult,
  Outcome,
  PoolClaimOptions,
  PoolClaimResult,
  PoolNamed,
  PoolRef,
  PoolRefillOptions,
  PoolRefillResult,
  PoolRelease,
  PoolStartOptions,
  PoolStatus,
  PoolStopResult,
  WorktreeReserveJob,
} from './schemas.js';
import type { ScratchHostFactory } from '../doctor/host.js';
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
  /**
   * The worker's first prompt (turn 1), given with the spawn: a CLI whose provider takes a prompt on
   * its command line (`capabilities.launchPrompt`) starts on it as it comes up (no paste after the
   * ready screen: `umbel -p`'s cold call); any other gets it as a send once ready. The spawn returns
   * once the CLI took it (`wait` turn 1). No git snapshot is taken for that turn. The text goes on
   * the CLI's command line, where other users of the machine may see it (`ps`): pass only a prompt
   * that was on the caller's own command line.
   */
  readonly firstPrompt?: string;
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
  status(options?: PoolRef): Promise<PoolStatus[]>;
  /** Remove the pool (every one when no name): its workers, in use or not, and its files. */
  stop(options?: PoolRef): Promise<PoolStopResult[]>;
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
  reserveRefill(options: PoolNamed): Promise<RefillReservation | undefined>;
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

/** The context each verb takes: a `CallContext` unless named here. */
interface VerbContexts {
  readonly spawn: SpawnContext;
  readonly send: SendContext;
  readonly wait: WaitContext;
}
type OptionsOf<V extends VerbName> = z.input<(typeof VERBS)[V]['options']>;
type ContextOf<V extends VerbName> = V extends keyof VerbContexts ? VerbContexts[V] : CallContext;
/** A verb's arguments: its options (which may be left out where the table says so), then its context. */
type ArgsOf<V extends VerbName> = (typeof VERBS)[V] extends { readonly optional: true }
  ? [options?: OptionsOf<V>, context?: ContextOf<V>]
  : [options: OptionsOf<V>, context?: ContextOf<V>];
/**
 * Results whose TypeScript type is narrower than their schema's output (a discriminated union,
 * readonly arrays); each must still be one of the schema's values (checked below).
 */
interface NarrowResults {
  readonly wait: Outcome;
  readonly messages: readonly ProviderV1Message[];
  readonly attachCommand: AttachCommand;
}
type SchemaResultOf<V extends VerbName> = z.output<(typeof VERBS)[V]['result']>;
type ResultOf<V extends VerbName> = V extends keyof NarrowResults ? NarrowResults[V] : SchemaResultOf<V>;
/** A narrowed result that is not one of its schema's values does not compile. */
type Narrowed<T extends { [V in keyof NarrowResults]: DeepWritable<NarrowResults[V]> extends SchemaResultOf<V> ? true : false }> = T;
type DeepWritable<T> = T extends readonly (infer I)[] ? DeepWritable<I>[] : T extends object ? { -readonly [K in keyof T]: DeepWritable<T[K]> } : T;
export type _NarrowResultsCheck = Narrowed<{ wait: true; messages: true; attachCommand: true }>;

/** One verb of the engine, typed from its row of the verb table: `verb(options, context?)`. */
export type VerbMethod<V extends VerbName> = (
  ...args: ArgsOf<V>
) => (typeof VERBS)[V] extends { readonly stream: true } ? AsyncIterable<ResultOf<V>> : Promise<ResultOf<V>>;

/** Every verb of the engine, typed from the verb table (./verbs.ts): declared there once. */
export type UmbelVerbs = { [V in keyof typeof VERBS]: VerbMethod<V> };

/** The engine: its verbs (the verb table) and what is not a verb. */
export interface Umbel extends UmbelVerbs {
  readonly home: string;
  readonly providerIds: readonly string[];
  provider(id: string): Provider;
  /**
   * Optional (a fleet has it: @umbel/remote's createFleet): every worker here and on every
   * configured host, and how each host answered — an unreachable host is a report with its reason
   * (its recorded workers are `unreachable`, never dead). `list()` is its `workers`.
   */
  listFleet?(): Promise<FleetList>;
  /** Warm pools. */
  readonly pool: UmbelPools;
}
