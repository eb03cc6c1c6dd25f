/**
 * Events: one file per event in `workers/<name>/events/`, named `<ns>-<pid>-<kind>.json`. Hook
 * payloads arrive through the sink; the engine adds `sent` (a prompt was delivered, opening a
 * turn) and `dead` (death evidence, or a kill); the launch wrapper adds `exit`.
 */
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from './fs-atomic.js';
import type { HookEvent, Provider } from './provider.js';
import type { PaneState } from './substrate.js';

const EVENT_FILE_RE = /^(\d+)-(\d+)-([a-z-]+)\.json$/;

/** An event with its file name. */
export interface StoredEvent extends HookEvent {
  readonly file: string;
}

const hrStart = process.hrtime.bigint();
const epochStartNs = BigInt(Date.now()) * 1_000_000n;
let lastNs = 0n;

/** Wall-clock nanoseconds, strictly increasing within this process. */
export function nowNs(): bigint {
  let ns = epochStartNs + (process.hrtime.bigint() - hrStart);
  if (ns <= lastNs) ns = lastNs + 1n;
  lastNs = ns;
  return ns;
}

/**
 * Payloads already read, per events dir. An event file never changes once it is visible (the sink,
 * the engine and the launch wrapper all write a temp file and rename it), so each is read once; a
 * name that leaves the dir leaves the cache. Bounded: the oldest dirs are forgotten first.
 */
const payloadCache = new Map<string, Map<string, unknown>>();
const PAYLOAD_CACHE_DIRS = 256;

/** Read every event of a worker, oldest first. Partial (dot-temp) files are ignored. */
export async function readEvents(eventsDir: string): Promise<StoredEvent[]> {
  let names: string[];
  try {
    names = await readdir(eventsDir);
  } catch {
    payloadCache.delete(eventsDir);
    return [];
  }
  const parsed: { file: string; at: bigint; kind: string }[] = [];
  for (const file of names) {
    const m = EVENT_FILE_RE.exec(file);
    if (m) parsed.push({ file, at: BigInt(m[1] as string), kind: m[3] as string });
  }
  parsed.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.file < b.file ? -1 : 1));
  const known = payloadCache.get(eventsDir) ?? new Map<string, unknown>();
  const fresh = new Map<string, unknown>();
  // Event files are small: a synchronous read costs microseconds, where the promise API pays four
  // thread-pool round trips per file (a cold `umbel status` reads hundreds).
  const events = parsed.map(({ file, at, kind }) => {
    if (known.has(file)) {
      const payload = known.get(file);
      fresh.set(file, payload);
      return { file, at, kind, payload };
    }
    let payload: unknown;
    try {
      const text = readFileSync(join(eventsDir, file), 'utf8');
      payload = text.trim() === '' ? undefined : JSON.parse(text);
      fresh.set(file, payload);
    } catch {
      payload = undefined; // vanished or unreadable this time: not remembered
    }
    return { file, at, kind, payload };
  });
  payloadCache.delete(eventsDir);
  payloadCache.set(eventsDir, fresh);
  if (payloadCache.size > PAYLOAD_CACHE_DIRS) payloadCache.delete(payloadCache.keys().next().value as string);
  return events;
}

/** Write an event of umbel's own (atomically). Returns its timestamp. */
export async function writeEvent(eventsDir: string, kind: string, payload: unknown): Promise<bigint> {
  const at = nowNs();
  await writeFileAtomic(join(eventsDir, `${at}-${process.pid}-${kind}.json`), `${JSON.stringify(payload)}\n`);
  return at;
}

/** Convert an event timestamp to an ISO string. */
export function isoOf(at: bigint): string {
  return new Date(Number(at / 1_000_000n)).toISOString();
}

// --- turn assignment (pure) ---

/** Payload of a `sent` event. */
export interface SentPayload {
  readonly turn: number;
  readonly prompt: string;
}

/** What the events say about one turn. */
export interface TurnEvents {
  readonly turn: number;
  readonly sent: StoredEvent;
  readonly prompt: string;
  /** The prompt-accepted event. */
  promptEvent?: StoredEvent;
  /** The event that ended the turn: stop, stop-failure or interrupt. */
  endEvent?: StoredEvent;
  /** Needs-input candidates (permission/notify) while this turn was running, oldest first. */
  readonly inputEvents: StoredEvent[];
  /** Activity events (tool) while running. */
  readonly activityEvents: StoredEvent[];
}

/** The whole event history, interpreted. */
export interface EventHistory {
  readonly turns: TurnEvents[];
  readonly sessionEvents: StoredEvent[];
  readonly exit?: StoredEvent;
  readonly dead?: StoredEvent;
  readonly last?: StoredEvent;
}

const TERMINAL = new Set(['stop', 'stop-failure', 'interrupt']);

/** Payload of umbel's own `ended` event: a wait saw turn `turn` end in the transcript alone (no hook fires for it). */
export interface EndedPayload {
  readonly turn: number;
  readonly reason: string;
}

/**
 * Assign events to turns. The CLIs run prompts in order (a prompt sent while busy is queued), so
 * turns are FIFO: a prompt-accepted event confirms the oldest unconfirmed turn sent before it, and
 * a terminal event ends the oldest unfinished turn sent before it. Terminal events with no open
 * turn (a turn the user typed by hand) are ignored.
 */
export function interpretEvents(events: readonly StoredEvent[]): EventHistory {
  // Turns that ended without a hook (an interrupt or an API error some CLIs report only in their
  // transcript) are closed explicitly by an `ended` event, whenever it was written, so a later
  // turn's hooks are never taken for theirs.
  const endedByUmbel = new Map<number, StoredEvent>();
  for (const event of events) {
    const turn = event.kind === 'ended' ? (event.payload as Partial<EndedPayload> | undefined)?.turn : undefined;
    if (typeof turn === 'number' && !endedByUmbel.has(turn)) endedByUmbel.set(turn, event);
  }
  const turns: TurnEvents[] = [];
  const sessionEvents: StoredEvent[] = [];
  let exit: StoredEvent | undefined;
  let dead: StoredEvent | undefined;
  for (const event of events) {
    if (event.kind === 'sent') {
      const payload = (event.payload ?? {}) as Partial<SentPayload>;
      const turn = typeof payload.turn === 'number' ? payload.turn : turns.length + 1;
      const ended = endedByUmbel.get(turn);
      turns.push({ turn, sent: event, prompt: String(payload.prompt ?? ''), inputEvents: [], activityEvents: [], ...(ended ? { endEvent: ended } : {}) });
      continue;
    }
    if (event.kind === 'ended') continue;
    if (event.kind === 'session') sessionEvents.push(event);
    if (event.kind === 'exit') exit ??= event;
    if (event.kind === 'dead') dead ??= event;
    if (event.kind === 'prompt') {
      const target = turns.find((t) => !t.promptEvent && !t.endEvent && t.sent.at <= event.at);
      if (target) target.promptEvent = event;
      continue;
    }
    const running = turns.find((t) => !t.endEvent && t.sent.at <= event.at);
    if (!running) continue;
    if (TERMINAL.has(event.kind)) running.endEvent = event;
    else if (event.kind === 'permission' || event.kind === 'notify') running.inputEvents.push(event);
    else if (event.kind === 'tool') running.activityEvents.push(event);
  }
  return { turns, sessionEvents, exit, dead, last: events[events.length - 1] };
}

/**
 * The input event a turn is still blocked on, if any: its newest permission/notify event, unless
 * keys were pressed, a tool ran or a prompt was accepted after it.
 */
export function pendingInputEvent(turn: TurnEvents, events: readonly StoredEvent[]): StoredEvent | undefined {
  const last = turn.inputEvents[turn.inputEvents.length - 1];
  if (!last || turn.endEvent) return undefined;
  const answered = events.some((e) => e.at > last.at && (e.kind === 'keys' || e.kind === 'tool' || e.kind === 'prompt'));
  return answered ? undefined : last;
}

/** What a provider's turn reader learns of the turn's stop hook: whether it fired, and the final message it reported. */
export function stopFacts(provider: Provider, turn: TurnEvents): { stopSeen: boolean; stopMessage?: string } {
  if (turn.endEvent?.kind !== 'stop') return { stopSeen: false };
  let stopMessage: string | undefined;
  try {
    stopMessage = provider.doParseEvent(turn.endEvent).lastMessage;
  } catch {
    stopMessage = undefined;
  }
  return stopMessage === undefined ? { stopSeen: true } : { stopSeen: true, stopMessage };
}

/** How a dead worker ended: the launch wrapper's exit record first, then what the host recorded. */
export function deathFacts(history: EventHistory, pane: PaneState): { status?: number; signal?: string; byKill: boolean; cause: string } {
  const exit = (history.exit?.payload ?? {}) as { status?: number; signal?: string };
  const byKill = (history.dead?.payload as { by?: string } | undefined)?.by === 'kill';
  const signal = exit.signal ?? (exit.status === undefined ? pane.signal : undefined);
  const status = exit.status ?? (exit.signal === undefined ? pane.exitStatus : undefined);
  const cause = byKill
    ? 'killed by umbel kill'
    : signal
      ? `killed by ${signal}`
      : status !== undefined
        ? `process exited ${status}`
        : pane.exists
          ? 'process exited, no status recorded'
          : 'its session is gone';
  return { ...(status !== undefined ? { status } : {}), ...(signal ? { signal } : {}), byKill, cause };
}
