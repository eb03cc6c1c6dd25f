/** The typed view of one worker that the ledger builds (see ./ledger.ts) and every operation reads. */
import type { StateProblem } from './event-store.js';
import type { OwnEvent } from './own-events.js';
import type { Provider, ProviderV1EventInfo } from '@umbel/provider';
import type { BillingKind, FleetEvent, Quota, WorkerMeta } from '../contract/schemas.js';
import type { WorkerPaths } from '../engine/paths.js';

/** One event, interpreted once: umbel's own (typed payload) or a hook event (its provider's reading). */
export interface LedgerEvent {
  readonly file: string;
  readonly at: bigint;
  readonly kind: string;
  readonly payload: unknown;
  /** Set for umbel's own kinds. */
  readonly own?: OwnEvent;
  /** What the provider read from a hook payload (`{}` for own events or without a provider). */
  readonly info: ProviderV1EventInfo;
}

/** One turn: a prompt umbel sent, and what the events say happened to it. */
export interface TurnView {
  readonly turn: number;
  readonly prompt: string;
  readonly sent: LedgerEvent;
  /** Set when the send failed: the turn never started and has no answer. */
  readonly notSubmitted?: { readonly reason: string; readonly message?: string };
  /** The CLI's prompt-accepted event. */
  readonly accepted?: LedgerEvent;
  /** The event that ended the turn: stop, stop-failure, interrupt, or umbel's `ended`. */
  readonly end?: LedgerEvent;
  /**
   * The prompt of the CLI's own continuation of this turn (Claude Code at a plan limit's reset): it
   * reopened the turn, whose key is now the continuation's.
   */
  readonly continuation?: LedgerEvent;
  /** The end the turn had before its continuation (the rate-limited stop-failure). */
  readonly limitEnd?: LedgerEvent;
  /** Needs-input candidates (permission/notify) while the turn ran, oldest first. */
  readonly inputs: readonly LedgerEvent[];
  /** Tool activity while the turn ran, oldest first. */
  readonly activity: readonly LedgerEvent[];
  /** The newest input event nobody answered yet (no keys, tool run or prompt since). */
  readonly pendingInput?: LedgerEvent;
  /** The turn's id in the CLI's own terms, from its prompt (or end) event. */
  readonly turnKey?: string;
  /** Whether a `stop` hook ended it, and the final message that hook reported. */
  readonly stopSeen: boolean;
  readonly stopMessage?: string;
}

/** How the worker's process ended, as umbel's own events recorded it. */
export interface DeathRecord {
  readonly exit?: { readonly at: bigint; readonly status?: number; readonly signal?: string };
  readonly dead?: { readonly at: bigint; readonly by?: string; readonly status?: number; readonly signal?: string; readonly paneTail?: string };
}

/** A worker as its state files describe it, read once. */
export interface WorkerView {
  readonly name: string;
  readonly paths: WorkerPaths;
  /** The substrate session: always derived from the directory name, never from meta.json. */
  readonly session: string;
  /** The validated meta (absent when corrupt). */
  readonly meta?: WorkerMeta;
  /** Why the state cannot be trusted, and which file. */
  readonly corrupt?: { readonly reason: string; readonly path: string };
  /** Best-effort fields of an unusable meta, for display only. */
  readonly shown: { readonly provider: string; readonly cwd: string; readonly createdAt: string; readonly anonymous: boolean; readonly model?: string };
  /** The worker's provider, when it is loaded. */
  readonly provider?: Provider;
  readonly events: readonly LedgerEvent[];
  readonly turns: readonly TurnView[];
  readonly problems: readonly StateProblem[];
  /** When spawn (or, after a revive, revive) saw the current process's ready prompt. */
  readonly readyAt?: bigint;
  /** When `umbel revive` last started the worker's CLI again (its `revived` record): the current process's events come after it. */
  readonly revivedAt?: bigint;
  /** How the worker bills and its endpoint, as spawn recorded them in its `ready` event. */
  readonly billing?: { readonly billing: BillingKind; readonly evidence?: string; readonly endpoint?: string };
  /** The plan usage the CLI reported last (its provider's reading of the newest event carrying one). */
  readonly quota?: Quota;
  /** The current process's CLI announced a session (a `session` hook). */
  readonly sessionSeen: boolean;
  readonly death: DeathRecord;
  /** The newest transcript location any event named (a /clear switches files). */
  readonly transcript: { readonly path?: string; readonly sessionId?: string };
  readonly lastEventAt?: bigint;
}

/** A view whose meta and provider are both usable (what send, wait and read need). */
export interface UsableView extends WorkerView {
  readonly meta: WorkerMeta;
  readonly provider: Provider;
}

/** A lifecycle event derived from a view (./fleet-events.ts), with its place in the fleet's order. */
export interface StampedEvent {
  readonly ns: bigint;
  readonly worker: string;
  readonly rank: number;
  readonly event: FleetEvent;
}
