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

function closed(turn: Draft): boolean {
  return turn.notSubmitted !== undefined || turn.end !== undefined;
}

/**
 * Assign events (oldest first) to turns. Every turn listed was sent at or before the event at hand
 * (events come in time order), and a closed or accepted turn never reopens, so the oldest open turn
 * and the oldest open unaccepted one are found by two cursors that only move forward.
 */
export function assignTurns(events: readonly LedgerEvent[]): TurnView[] {
  const { failed, ended } = closures(events);
  const turns: Draft[] = [];
  let running = 0;
  let unaccepted = 0;
  let lastAnswerAt: bigint | undefined;
  for (const event of events) {
    if (ANSWERS.has(event.kind)) lastAnswerAt = event.at;
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
      while (unaccepted < turns.length && (closed(turns[unaccepted] as Draft) || (turns[unaccepted] as Draft).accepted)) unaccepted++;
      const target = turns[unaccepted];
      if (target) target.accepted = event;
      continue;
    }
    while (running < turns.length && closed(turns[running] as Draft)) running++;
    const target = turns[running];
    if (!target) continue;
    if (TERMINAL.has(event.kind)) target.end = event;
    else if (INPUT.has(event.kind)) target.inputs.push(event);
    else if (event.kind === 'tool') target.activity.push(event);
  }
  return turns.map((t) => finish(t, lastAnswerAt));
}

function finish(turn: Draft, lastAnswerAt: bigint | undefined): TurnView {
  const last = turn.inputs[turn.inputs.length - 1];
  const answered = last !== undefined && lastAnswerAt !== undefined && lastAnswerAt > last.at;
  const stop = turn.end?.kind === 'stop' ? turn.end : undefined;
  const turnKey = turn.accepted?.info.turnKey ?? turn.end?.info.turnKey;
  return {
    ...turn,
    ...(last && !turn.end && !answered ? { pendingInput: last } : {}),
    ...(turnKey ? { turnKey } : {}),
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
