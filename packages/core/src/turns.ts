/**
 * Turn assignment (pure): which hook events belong to which turn umbel sent.
 *
 * The CLIs run prompts in order (a prompt sent while busy is queued), so turns are FIFO: a
 * prompt-accepted event confirms the oldest unconfirmed open turn sent before it, and a terminal
 * event ends the oldest open turn sent before it. A turn whose send failed (`send-failed`) never
 * started, so it takes no event at all; a turn a wait saw end in the transcript alone is closed by
 * umbel's `ended` event whenever that was written. Terminal events with no open turn (a turn typed
 * by hand in the terminal) are ignored.
 */
import type { LedgerEvent, TurnView } from './ledger-types.js';

const TERMINAL = new Set(['stop', 'stop-failure', 'interrupt']);
const INPUT = new Set(['permission', 'notify']);
/** Events after an input event that mean someone answered it. */
const ANSWERS = new Set(['keys', 'tool', 'prompt']);

type Draft = { -readonly [K in keyof TurnView]: TurnView[K] } & { inputs: LedgerEvent[]; activity: LedgerEvent[] };

function closures(events: readonly LedgerEvent[]) {
  const failed = new Map<number, { reason: string; message?: string }>();
  const ended = new Map<number, LedgerEvent>();
  for (const event of events) {
    const own = event.own;
    if (own?.kind === 'send-failed' && !failed.has(own.data.turn)) failed.set(own.data.turn, { reason: own.data.reason, message: own.data.message });
    if (own?.kind === 'ended' && !ended.has(own.data.turn)) ended.set(own.data.turn, event);
  }
  return { failed, ended };
}

function open(turn: Draft, at: bigint): boolean {
  return !turn.notSubmitted && !turn.end && turn.sent.at <= at;
}

/** Assign events (oldest first) to turns. */
export function assignTurns(events: readonly LedgerEvent[]): TurnView[] {
  const { failed, ended } = closures(events);
  const turns: Draft[] = [];
  for (const event of events) {
    const own = event.own;
    if (own?.kind === 'sent') {
      const end = ended.get(own.data.turn);
      const notSubmitted = failed.get(own.data.turn);
      turns.push({
        turn: own.data.turn,
        prompt: own.data.prompt,
        sent: event,
        inputs: [],
        activity: [],
        stopSeen: false,
        ...(end && !notSubmitted ? { end } : {}),
        ...(notSubmitted ? { notSubmitted } : {}),
      });
      continue;
    }
    if (own) continue;
    if (event.kind === 'prompt') {
      const target = turns.find((t) => open(t, event.at) && !t.accepted);
      if (target) target.accepted = event;
      continue;
    }
    const running = turns.find((t) => open(t, event.at));
    if (!running) continue;
    if (TERMINAL.has(event.kind)) running.end = event;
    else if (INPUT.has(event.kind)) running.inputs.push(event);
    else if (event.kind === 'tool') running.activity.push(event);
  }
  return turns.map((t) => finish(t, events));
}

function finish(turn: Draft, events: readonly LedgerEvent[]): TurnView {
  const last = turn.inputs[turn.inputs.length - 1];
  const answered = last !== undefined && events.some((e) => e.at > last.at && ANSWERS.has(e.kind));
  const stop = turn.end?.kind === 'stop' ? turn.end : undefined;
  return {
    ...turn,
    ...(last && !turn.end && !answered ? { pendingInput: last } : {}),
    ...((turn.accepted?.info.turnKey ?? turn.end?.info.turnKey) ? { turnKey: turn.accepted?.info.turnKey ?? turn.end?.info.turnKey } : {}),
    stopSeen: stop !== undefined,
    ...(stop?.info.lastMessage !== undefined ? { stopMessage: stop.info.lastMessage } : {}),
  };
}

/** The latest turn that was submitted (not closed as never submitted). */
export function latestSubmitted(turns: readonly TurnView[]): TurnView | undefined {
  for (let i = turns.length - 1; i >= 0; i--) if (!turns[i]?.notSubmitted) return turns[i];
  return undefined;
}

/** The latest turn that ended. */
export function latestEnded(turns: readonly TurnView[]): TurnView | undefined {
  for (let i = turns.length - 1; i >= 0; i--) if (turns[i]?.end) return turns[i];
  return undefined;
}

/** The next turn number (monotonic per worker, never reused, not-submitted turns included). */
export function nextTurnNumber(turns: readonly TurnView[]): number {
  return turns.reduce((max, t) => Math.max(max, t.turn), 0) + 1;
}
