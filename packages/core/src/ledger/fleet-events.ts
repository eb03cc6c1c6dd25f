/**
 * The fleet's lifecycle events (pure): what `umbel events` prints, derived from a worker's ledger
 * view — its own events and its hook events, never a screen.
 *
 * - `spawned` (meta's createdAt), `ready` (spawn saw the ready prompt)
 * - `sent` (turn n), `send-failed` (it never got in)
 * - `needs-input` (a permission request, a question; a notification re-announcing a permission
 *   request of the same turn is not a new one)
 * - `ended` (turn, reason and exit code as the hooks tell: stop → completed, stop-failure →
 *   provider-error or the account's kind, interrupt → idle, umbel's `ended` → its reason)
 * - `killed` (umbel's kill), else `dead` (the CLI process ended: the launch wrapper's `exit`, or a
 *   wait's death record)
 * - `revived` (`umbel revive` started the CLI again, resuming its conversation); each life of a
 *   revived worker has its own `ready` and `dead`/`killed`
 * - `self-started` (the CLI started a turn by itself: Claude's `<task-notification>` when background
 *   work ended; it is no turn of umbel's)
 *
 * Every event carries a cursor: `<ns>.<worker>.<rank>`, its place in one total order (time, then
 * worker, then the kind's rank), so `since: cursor` continues after it.
 */
import { OUTCOME_EXIT_CODES } from '../contract/exit-codes.js';
import { type FleetEvent, type OutcomeReason, OutcomeReasonSchema, parseDuration } from '../contract/schemas.js';
import { isoOf } from '../engine/clock.js';
import type { DeathRecord, LedgerEvent, StampedEvent, TurnView, WorkerView } from './ledger-types.js';
import { deathIn, livesOf } from './ledger.js';
import type { Lifecycles } from './ledger-cache.js';

export type { StampedEvent } from './ledger-types.js';

const RANK: Readonly<Record<FleetEvent['kind'], number>> = {
  'host-back': 0,
  spawned: 1,
  ready: 2,
  sent: 3,
  'send-failed': 4,
  'needs-input': 5,
  ended: 6,
  dead: 7,
  killed: 8,
  'host-unreachable': 9,
  // (one digit per cursor: shares spawned's rank, which never has the same time)
  revived: 1,
  // (shares sent's: a prompt the CLI started and one umbel sent are never written at the same time)
  'self-started': 3,
};

/** Stamp one event: its order key and cursor. */
export function stamp(ns: bigint, fields: Omit<FleetEvent, 'cursor' | 'at'>): StampedEvent {
  const rank = RANK[fields.kind];
  return { ns, worker: fields.worker, rank, event: { cursor: `${ns}.${fields.worker}.${rank}`, at: isoOf(ns), ...fields } };
}

/** Order of two stamped events: time, then worker, then rank. */
export function compareStamped(a: Pick<StampedEvent, 'ns' | 'worker' | 'rank'>, b: Pick<StampedEvent, 'ns' | 'worker' | 'rank'>): number {
  if (a.ns !== b.ns) return a.ns < b.ns ? -1 : 1;
  if (a.worker !== b.worker) return a.worker < b.worker ? -1 : 1;
  return a.rank - b.rank;
}

/** How a turn's end event reads, from its hooks alone. */
function endReason(end: LedgerEvent): OutcomeReason {
  if (end.own?.kind === 'ended') {
    const parsed = OutcomeReasonSchema.safeParse(end.own.data.reason);
    return parsed.success ? parsed.data : 'provider-error';
  }
  if (end.kind === 'stop') return 'completed';
  if (end.kind === 'interrupt') return 'idle';
  return end.info.account?.kind ?? 'provider-error';
}

/** When each turn's send failed (the first record of it). */
function sendFailures(events: readonly LedgerEvent[]): Map<number, bigint> {
  const at = new Map<number, bigint>();
  for (const e of events) if (e.own?.kind === 'send-failed' && !at.has(e.own.data.turn)) at.set(e.own.data.turn, e.at);
  return at;
}

function turnEvents(base: { worker: string; provider: string }, turn: TurnView, failedAt: ReadonlyMap<number, bigint>): StampedEvent[] {
  const out = [stamp(turn.sent.at, { ...base, kind: 'sent', turn: turn.turn })];
  if (turn.notSubmitted) {
    const { message } = turn.notSubmitted;
    const at = failedAt.get(turn.turn) ?? turn.sent.at;
    return [...out, stamp(at, { ...base, kind: 'send-failed', turn: turn.turn, ...(message ? { message } : {}) })];
  }
  let asked = false;
  for (const input of turn.inputs) {
    const needs = input.info.needsInput;
    if (!needs) continue;
    // Claude Code re-announces its permission dialog by a notification some seconds later
    if (input.kind === 'notify' && needs.kind === 'permission' && asked) continue;
    if (input.kind === 'permission') asked = true;
    out.push(
      stamp(input.at, {
        ...base,
        kind: 'needs-input',
        turn: turn.turn,
        input: needs.kind,
        ...(needs.tool ? { tool: needs.tool } : {}),
        ...(needs.message ? { message: needs.message } : {}),
      }),
    );
  }
  if (turn.end) {
    const reason = endReason(turn.end);
    const message = turn.end.info.error;
    out.push(stamp(turn.end.at, { ...base, kind: 'ended', turn: turn.turn, reason, exitCode: OUTCOME_EXIT_CODES[reason], ...(message ? { message } : {}) }));
  }
  return out;
}

function deathEvents(base: { worker: string; provider: string }, death: DeathRecord): StampedEvent[] {
  const { exit, dead } = death;
  if (dead?.by === 'kill') return [stamp(dead.at, { ...base, kind: 'killed' })];
  const end = exit ?? dead;
  if (!end) return [];
  return [stamp(end.at, { ...base, kind: 'dead', ...(end.status !== undefined ? { status: end.status } : {}), ...(end.signal ? { signal: end.signal } : {}) })];
}

/** Every lifecycle event of one worker, oldest first (the same array for the same view, kept in `derived`: the engine's). */
export function workerEvents(view: WorkerView, derived: Lifecycles = new WeakMap()): readonly StampedEvent[] {
  const known = derived.get(view);
  if (known) return known;
  const base = { worker: view.name, provider: view.shown.provider };
  const created = Date.parse(view.shown.createdAt);
  const out: StampedEvent[] = [];
  if (Number.isFinite(created) && created > 0) out.push(stamp(BigInt(created) * 1_000_000n, { ...base, kind: 'spawned' }));
  // each process's ready and death; a revived one's starts with its `revived` record
  for (const life of livesOf(view.events)) {
    const first = life[0];
    if (first?.own?.kind === 'revived') out.push(stamp(first.at, { ...base, kind: 'revived' }));
    const ready = life.find((e) => e.own?.kind === 'ready');
    if (ready) out.push(stamp(ready.at, { ...base, kind: 'ready' }));
    out.push(...deathEvents(base, deathIn(life)));
  }
  const failedAt = sendFailures(view.events);
  for (const turn of view.turns) out.push(...turnEvents(base, turn, failedAt));
  // turns the CLI started by itself (Claude's <task-notification>): no turn of umbel's, an event of their own
  for (const e of view.events) if (e.kind === 'prompt' && e.info.selfStarted) out.push(stamp(e.at, { ...base, kind: 'self-started' }));
  out.sort(compareStamped);
  derived.set(view, out);
  return out;
}

/** Where a stream starts: after a cursor, or at a time (inclusive). */
export type SincePoint = { readonly after: Pick<StampedEvent, 'ns' | 'worker' | 'rank'> } | { readonly from: bigint };

const CURSOR_RE = /^(\d{19})\.([a-z0-9][a-z0-9-]{0,62})\.(\d)$/;

/** Read `since`: a cursor, a duration back from `nowMs`, or an ISO time; undefined when it is none of them. */
export function parseSince(since: string, nowMs: number): SincePoint | undefined {
  const cursor = CURSOR_RE.exec(since);
  if (cursor) return { after: { ns: BigInt(cursor[1] as string), worker: cursor[2] as string, rank: Number(cursor[3]) } };
  const back = parseDuration(since);
  if (back !== undefined) return { from: BigInt(Math.max(0, nowMs - back)) * 1_000_000n };
  const time = /^\d{4}-\d\d-\d\d/.test(since) ? Date.parse(since) : Number.NaN;
  return Number.isFinite(time) ? { from: BigInt(time) * 1_000_000n } : undefined;
}

/** Whether an event is past the start point. */
export function isAfter(event: StampedEvent, since: SincePoint | undefined): boolean {
  if (!since) return true;
  return 'after' in since ? compareStamped(event, since.after) > 0 : event.ns >= since.from;
}

/** The fleet's events past `since`, merged into one order. */
export function mergeEvents(perWorker: readonly (readonly StampedEvent[])[], since: SincePoint | undefined): StampedEvent[] {
  return perWorker.flatMap((events) => events.filter((e) => isAfter(e, since))).sort(compareStamped);
}

/** An event made outside a ledger (a fleet's host going away or coming back), at `ns`. */
export function stampEvent(ns: bigint, fields: Omit<FleetEvent, 'cursor' | 'at'>): FleetEvent {
  return stamp(ns, fields).event;
}

/** Order of two events by their cursors (events from several machines merge into the same order). */
export function compareEvents(a: Pick<FleetEvent, 'cursor'>, b: Pick<FleetEvent, 'cursor'>): number {
  const x = parseSince(a.cursor, 0);
  const y = parseSince(b.cursor, 0);
  if (!x || !y || !('after' in x) || !('after' in y)) return a.cursor < b.cursor ? -1 : a.cursor > b.cursor ? 1 : 0;
  return compareStamped(x.after, y.after);
}
