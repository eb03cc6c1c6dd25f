/**
 * Turn assignment (pure): which hook events belong to which turn umbel sent.
 *
 * The CLIs run prompts in order (a prompt sent while busy is queued), so turns are FIFO: a
 * prompt-accepted event confirms the oldest unconfirmed open turn sent before it, and a terminal
 * event ends the oldest open turn sent before it — unless it names a turn by the CLI's key (Claude's
 * prompt_id) that a turn holds: then that turn, or, when that turn is closed, none. A turn whose send
 * failed (`send-failed`) never started, so it takes no event at all; a turn a wait saw end in the
 * transcript alone is closed by umbel's `ended` event whenever that was written. Terminal events
 * with no open turn (a turn typed by hand in the terminal) are ignored. An input event (a permission
 * request, a notification) is pending until someone answers it — keys pressed, a tool run, a prompt
 * accepted after it; a permission notification after an answered request only re-announces it.
 *
 * A CLI may continue a turn by itself (Claude Code at a plan limit's reset, ACCOUNT-FACTS §1.3): an
 * event marked `autoContinue`, then a prompt umbel never sent. That prompt reopens the latest
 * submitted turn when it has ended (the limited one): its end is dropped, its key becomes the
 * continuation's, so the continuation's stop ends it and its answer is that turn's answer. A
 * continuation with no such turn is foreign: its events credit no turn.
 *
 * A CLI may also start a turn of its own when background work ends (Claude Code's
 * `<task-notification>`): a prompt marked `selfStarted`. It confirms no turn, and the first terminal
 * event keyed to it is its own end, never a turn's umbel sent (a prompt queued behind it may carry
 * its key).
 *
 * A CLI that fires its prompt hook for every prompt it takes, a queued one when it starts it
 * (`promptHook: 'every-prompt'`, a fact its provider declares), has not started a turn umbel sent
 * before that turn's prompt event: a terminal event that comes earlier ends a turn the CLI started
 * by itself without a prompt hook (Qwen Code's `<task-notification>` turn), never the unconfirmed one.
 */
import type { Provider } from '@umbel/provider';
import type { LedgerEvent, TurnView } from './ledger-types.js';

const TERMINAL = new Set(['stop', 'stop-failure', 'interrupt']);
const INPUT = new Set(['permission', 'notify']);
/** Events after an input event that mean someone answered it. */
const ANSWERS = new Set(['keys', 'tool', 'prompt']);

type Draft = { -readonly [K in keyof TurnView]: TurnView[K] } & { inputs: LedgerEvent[]; activity: LedgerEvent[] };

/** The key a turn answers to now: its continuation's, else its prompt's. */
const keyOf = (turn: Draft): string | undefined => (turn.continuation ?? turn.accepted)?.info.turnKey;

/** The latest submitted turn, when it has ended: the one a continuation continues. */
function continued(turns: readonly Draft[]): Draft | undefined {
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i] as Draft;
    if (turn.notSubmitted) continue;
    return turn.end ? turn : undefined;
  }
  return undefined;
}

function closures(events: readonly LedgerEvent[]) {
  const failed = new Map<number, { reason: string; message?: string }>();
  const ended = new Map<number, LedgerEvent>();
  for (const event of events) {
    const own = event.own;
    if (own?.kind === 'send-failed' && !failed.has(own.data.turn)) failed.set(own.data.turn, { reason: own.data.reason, message: own.data.message });
    // the latest one: a continued turn may be ended twice (its limit, then its continuation)
    if (own?.kind === 'ended') ended.set(own.data.turn, event);
  }
  return { failed, ended };
}

function closed(turn: Draft): boolean {
  return turn.notSubmitted !== undefined || turn.end !== undefined;
}

/** A turn a wait closed from the transcript alone (umbel's `ended`), not by a hook event of the CLI. */
const endedByWait = (turn: Draft): boolean => turn.end?.own?.kind === 'ended';

/**
 * Whether `turn` takes the prompt-accepted event `prompt`: not yet accepted and still open — or
 * closed by a wait that read its end in the transcript after the CLI had accepted its prompt (its
 * prompt event may be assigned later than that `ended` was written, never one stamped after it).
 */
function accepts(turn: Draft, prompt: LedgerEvent): boolean {
  if (turn.accepted || turn.notSubmitted) return false;
  return turn.end === undefined || (endedByWait(turn) && prompt.at < turn.end.at);
}

/**
 * An unkeyed terminal event that comes before `target` (the running turn, if any) was accepted, while the turn sent before it
 * was closed by a wait from its transcript and had no terminal event yet, is that turn's late Stop
 * (its hook process stamped it after umbel sent the next prompt): it ends nothing. Only one per turn.
 */
function lateTerminalOf(turns: readonly Draft[], target: Draft | undefined, seen: Set<Draft>): boolean {
  if (target?.accepted) return false;
  const before = turns.slice(0, target ? turns.indexOf(target) : turns.length).findLast((t) => !t.notSubmitted);
  if (!before || !endedByWait(before) || seen.has(before)) return false;
  seen.add(before);
  return true;
}

/** The provider's facts turn assignment depends on. */
export type TurnFacts = Pick<Provider, 'promptHook'>;

/**
 * Assign events (oldest first) to turns. Every turn listed was sent at or before the event at hand
 * (events come in time order), and a closed or accepted turn never reopens, so the oldest open turn
 * and the oldest open unaccepted one are found by two cursors that only move forward.
 */
export function assignTurns(written: readonly LedgerEvent[], facts: TurnFacts = {}): TurnView[] {
  const confirmedOnly = facts.promptHook === 'every-prompt';
  const events = notificationsFirst(written);
  const { failed, ended } = closures(events);
  const turns: Draft[] = [];
  let running = 0;
  let unaccepted = 0;
  /** When someone answered an input (keys, a tool run, an accepted prompt), oldest first. */
  const answers: bigint[] = [];
  let continuing = false;
  /** Keys of continuations that continue no turn of umbel's. */
  const foreign = new Set<string>();
  /** Turns a wait closed from the transcript whose own late terminal event came since. */
  const lateSeen = new Set<Draft>();
  /** Keys of turns the CLI started by itself that have not ended yet. */
  const selfOpen = new Set<string>();
  for (const event of events) {
    if (event.info.autoContinue) {
      continuing = true;
      continue;
    }
    if (ANSWERS.has(event.kind) && !continuing) answers.push(event.at);
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
    if (event.kind === 'prompt' && continuing) {
      continuing = false;
      const turn = continued(turns);
      if (turn) {
        turn.continuation = event;
        turn.limitEnd = turn.end;
        // a wait that saw the continuation end in the transcript recorded it (`ended`, after this prompt)
        const late = ended.get(turn.turn);
        turn.end = late && late.at > event.at ? late : undefined;
        running = Math.min(running, turns.indexOf(turn));
      } else if (event.info.turnKey) foreign.add(event.info.turnKey);
      continue;
    }
    const key = event.info.turnKey;
    if (key !== undefined && foreign.has(key)) continue;
    if (selfStartedEvent(event, selfOpen)) continue;
    if (event.kind === 'prompt') {
      while (unaccepted < turns.length && !accepts(turns[unaccepted] as Draft, event)) unaccepted++;
      const target = turns[unaccepted];
      if (target) target.accepted = event;
      continue;
    }
    while (running < turns.length && closed(turns[running] as Draft)) running++;
    const keyed = key === undefined || !TERMINAL.has(event.kind) ? undefined : turns.find((t) => keyOf(t) === key);
    if (keyed && closed(keyed)) continue;
    const target = keyed ?? turns[running];
    if (!keyed && TERMINAL.has(event.kind) && lateTerminalOf(turns, target, lateSeen)) continue;
    if (!target) continue;
    // (a turn with no prompt event has not started on such a CLI: the end is of a turn of its own)
    if (TERMINAL.has(event.kind) && confirmedOnly && !target.accepted) continue;
    if (TERMINAL.has(event.kind)) target.end = event;
    else if (INPUT.has(event.kind)) target.inputs.push(event);
    else if (event.kind === 'tool') target.activity.push(event);
  }
  return turns.map((t) => finish(t, answers));
}

/**
 * The auto-resume notification and the continuation's own prompt and stop come from separate hook
 * processes, which a loaded machine may run out of order: an `autoContinue` event written after the
 * continuation's prompt (and after its stop) is put back before that prompt — a prompt umbel did not
 * send, right after a turn's end with no send between, whose stop (if any) is its own.
 */
function notificationsFirst(events: readonly LedgerEvent[]): readonly LedgerEvent[] {
  let out: LedgerEvent[] | undefined;
  for (let j = 0; j < events.length; j++) {
    const list = out ?? events;
    if (!list[j]?.info.autoContinue) continue;
    const i = lateContinuationPrompt(list, j);
    if (i === undefined) continue;
    out = [...list];
    const [notify] = out.splice(j, 1);
    out.splice(i, 0, notify as LedgerEvent);
  }
  return out ?? events;
}

/** The index of the continuation prompt that the notification at `j` should precede, if it came late. */
function lateContinuationPrompt(events: readonly LedgerEvent[], j: number): number | undefined {
  const keys = new Set<string | undefined>();
  let i = j - 1;
  for (; i >= 0; i--) {
    const e = events[i] as LedgerEvent;
    if (e.own?.kind === 'sent') return undefined;
    if (e.own) continue;
    if (e.kind === 'prompt') break;
    if (TERMINAL.has(e.kind)) keys.add(e.info.turnKey);
  }
  const prompt = events[i];
  if (!prompt || prompt.info.selfStarted || [...keys].some((k) => k === undefined || k !== prompt.info.turnKey)) return undefined;
  for (let k = i - 1; k >= 0; k--) {
    const e = events[k] as LedgerEvent;
    if (e.own?.kind === 'sent') return undefined;
    if (!e.own && TERMINAL.has(e.kind)) return i;
  }
  return undefined;
}

/** Whether `event` is a self-started turn's prompt or end (`selfOpen` tracks those still running). */
function selfStartedEvent(event: LedgerEvent, selfOpen: Set<string>): boolean {
  const key = event.info.turnKey;
  if (event.kind === 'prompt' && event.info.selfStarted) {
    if (key !== undefined) selfOpen.add(key);
    return true;
  }
  if (key === undefined || !TERMINAL.has(event.kind) || !selfOpen.has(key)) return false;
  selfOpen.delete(key);
  return true;
}

/** Whether an answer came after `from` (and before `to`, when given). */
const answeredBetween = (answers: readonly bigint[], from: bigint, to?: bigint): boolean => answers.some((at) => at > from && (to === undefined || at < to));

/**
 * Whether `input` is a permission notification re-announcing a request already answered: Claude
 * Code fires it ~6 s after its permission dialog appeared, also when the answer raced the timer.
 */
function reannounces(inputs: readonly LedgerEvent[], input: LedgerEvent, answers: readonly bigint[]): boolean {
  if (input.kind !== 'notify' || input.info.needsInput?.kind !== 'permission') return false;
  const request = inputs.findLast((e) => e.kind === 'permission' && e.at < input.at);
  return request !== undefined && answeredBetween(answers, request.at, input.at);
}

/** The input the turn waits on: its latest, unless the turn ended, someone answered it, or it re-announces an answered request. */
function pendingOf(turn: Draft, answers: readonly bigint[]): LedgerEvent | undefined {
  const last = turn.inputs[turn.inputs.length - 1];
  if (!last || turn.end || answeredBetween(answers, last.at) || reannounces(turn.inputs, last, answers)) return undefined;
  return last;
}

function finish(turn: Draft, answers: readonly bigint[]): TurnView {
  const pending = pendingOf(turn, answers);
  const stop = turn.end?.kind === 'stop' ? turn.end : undefined;
  const turnKey = keyOf(turn) ?? turn.end?.info.turnKey;
  return {
    ...turn,
    ...(pending ? { pendingInput: pending } : {}),
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

/** Whether the CLI started a turn: it accepted the prompt, ended the turn, or asks for input in it (pure). */
export function turnStarted(turn: TurnView): boolean {
  return turn.accepted !== undefined || turn.end !== undefined || turn.inputs.length > 0;
}

/** The next turn number (monotonic per worker, never reused, not-submitted turns included). */
export function nextTurnNumber(turns: readonly TurnView[]): number {
  return turns.reduce((max, t) => Math.max(max, t.turn), 0) + 1;
}
