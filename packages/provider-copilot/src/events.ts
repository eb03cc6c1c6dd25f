/**
 * The worker's transcript: Copilot's own session events,
 * `$COPILOT_HOME/session-state/<sessionId>/events.jsonl` (default `~/.copilot`), one JSON object a
 * line `{type, data, id, timestamp, parentId}` (COPILOT-FACTS.md §3). Pure.
 *
 * A turn is the n-th `user.message` (the prompt hook names no message id) and the events up to the
 * next one. Inside it, each model call is `assistant.turn_start` … `assistant.message` …
 * `assistant.turn_end`; a message with `toolRequests` is followed by `tool.execution_*` and another
 * model call.
 * - failed: a `session.error` (`statusCode`, `errorType`), written after the last call's `turn_end`
 *   once Copilot has given up retrying (401 three tries, 500 and 429 five);
 * - interrupted: an `abort` (Escape, a rejected permission);
 * - completed: an `assistant.turn_end` right after an `assistant.message` without tool requests;
 *   the answer is that message's `content`, byte-exact (the screen renders markdown; it is never read).
 *
 * Subagents (the `task` tool; BACKGROUND-FACTS.md §7) write into the same file, every event of theirs
 * with a top-level `agentId`: their own `user.message`, model calls and answer are not the turn's. A
 * `subagent.started` with `executionMode: "background"` that no `subagent.completed`/`failed` ended
 * by the turn's final `turn_end` is `background` work still running. When such an agent ends,
 * Copilot starts a turn by itself (a `system.notification`, no `user.message`): it ends the turn
 * before it, and is no turn of its own.
 */
import type { ProviderV1BackgroundTask, ProviderV1Message, ProviderV1ReadTurnOptions, ProviderV1TurnRead, ProviderV1Usage } from '@umbel/provider';
import {
  type AccountErrorNames,
  accountErrorOfStatus,
  accountKindOf,
  asRecord,
  assistantMessage,
  failedTurn,
  jsonLines,
  stringField,
  sumUsage,
  textBlock,
  toolResultBlock,
  toolResultsMessage,
  toolUseBlock,
  unparsedReader,
} from '@umbel/provider';
import { toolLine } from './facts.js';

/** One session event. */
export interface CopilotEvent {
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly id?: string;
  /** The subagent whose event this is (absent for the main agent's). */
  readonly agentId?: string;
}

/** The events of one turn, and the session they belong to. */
export interface CopilotTurn {
  readonly sessionId?: string;
  readonly events: readonly CopilotEvent[];
}

/** Parse the events file (complete lines; a half-written last line is skipped). */
export function parseEvents(content: string): CopilotEvent[] {
  const out: CopilotEvent[] = [];
  for (const { value } of jsonLines(content)) {
    if (typeof value.type === 'string')
      out.push({
        type: value.type,
        data: asRecord(value.data) ?? {},
        ...(typeof value.id === 'string' ? { id: value.id } : {}),
        ...(typeof value.agentId === 'string' ? { agentId: value.agentId } : {}),
      });
  }
  return out;
}

/** The `ordinal`-th turn (1-based); undefined when its `user.message` is not there yet. */
export function findCopilotTurn(events: readonly CopilotEvent[], ordinal: number): CopilotTurn | undefined {
  const starts = events.flatMap((e, i) => (e.type === 'user.message' && !e.agentId ? [i] : []));
  const from = starts[ordinal - 1];
  if (from === undefined) return undefined;
  const turn = events.slice(from, starts[ordinal] ?? events.length);
  const start = events.find((e) => e.type === 'session.start');
  const sessionId = typeof start?.data.sessionId === 'string' ? start.data.sessionId : undefined;
  return { ...(sessionId ? { sessionId } : {}), events: turn.slice(0, selfStartedAt(turn)) };
}

/** Where the turn Copilot started by itself begins: a main `system.notification` after the turn's answer. */
function selfStartedAt(turn: readonly CopilotEvent[]): number | undefined {
  for (const [i, e] of turn.entries()) if (e.type === 'system.notification' && !e.agentId && finalIndex(turn.slice(0, i)) !== undefined) return i;
  return undefined;
}

const toolRequestsOf = (e: CopilotEvent): unknown[] => (Array.isArray(e.data.toolRequests) ? e.data.toolRequests : []);

/**
 * The index of the main agent's final `turn_end`: one right after an `assistant.message` that asked
 * for no tool (the answer; {@link finalMessage}). A subagent's events are not the turn's.
 */
function finalIndex(events: readonly CopilotEvent[]): number | undefined {
  let last: CopilotEvent | undefined;
  let done: number | undefined;
  for (const [i, e] of events.entries()) {
    if (e.agentId) continue;
    if (e.type === 'assistant.turn_start') {
      last = undefined;
      done = undefined;
    } else if (e.type === 'assistant.message') last = e;
    else if (e.type === 'assistant.turn_end') done = last && toolRequestsOf(last).length === 0 ? i : undefined;
  }
  return done;
}

/** The final answer: the last main `assistant.message`, when a `turn_end` follows it and it asked for no tool. */
function finalMessage(events: readonly CopilotEvent[]): CopilotEvent | undefined {
  const end = finalIndex(events);
  return end === undefined ? undefined : events.slice(0, end).findLast((e) => e.type === 'assistant.message' && !e.agentId);
}

/** Background subagents the turn started that had not ended by its final `turn_end`. */
function runningAgents(events: readonly CopilotEvent[], end: number): ProviderV1BackgroundTask[] {
  const upToEnd = events.slice(0, end + 1);
  const ended = new Set(upToEnd.filter((e) => e.type === 'subagent.completed' || e.type === 'subagent.failed').map((e) => e.agentId));
  return upToEnd.flatMap((e) =>
    e.type === 'subagent.started' && e.data.executionMode === 'background' && e.agentId && !ended.has(e.agentId)
      ? [{ kind: 'subagent', id: e.agentId, running: true }]
      : [],
  );
}

/** A `session.usage_record`'s fields → umbel's neutral names. */
const USAGE_NAMES = {
  inputTokens: 'inputTokens',
  outputTokens: 'outputTokens',
  cacheReadTokens: 'cacheReadTokens',
  cacheWriteTokens: 'cacheCreationTokens',
} as const;

/** The turn's usage in umbel's neutral names, summed over its `session.usage_record`s (0 for a name none of them has). */
export function usageOf(events: readonly CopilotEvent[]): ProviderV1Usage {
  const usages = events.filter((e) => e.type === 'session.usage_record').map((e) => e.data.usage);
  return sumUsage(usages, USAGE_NAMES, { every: true });
}

/** A tool still running, as an activity line. */
function runningTool(events: readonly CopilotEvent[]): string | undefined {
  const done = new Set(events.filter((e) => e.type === 'tool.execution_complete').map((e) => e.data.toolCallId));
  const running = events.findLast((e) => e.type === 'tool.execution_start' && !e.agentId && !done.has(e.data.toolCallId));
  return running && toolLine(typeof running.data.toolName === 'string' ? running.data.toolName : 'tool', running.data.arguments);
}

/** The account failure a `session.error`'s `errorType` names (its HTTP status wins). */
const ERROR_KINDS: AccountErrorNames = { rate_limit: 'rate-limited', authentication: 'auth-failed' };

function failedOf({ data }: CopilotEvent): ProviderV1TurnRead {
  const type = stringField(data, 'errorType');
  const status = typeof data.statusCode === 'number' ? data.statusCode : undefined;
  const account = accountErrorOfStatus(status) ?? accountKindOf(ERROR_KINDS, type);
  return failedTurn({ message: stringField(data, 'message'), fallback: 'Copilot reported an error', status, type, account });
}

/** What the session events say about one turn. */
export function copilotTurn(parsed: readonly CopilotEvent[], options: ProviderV1ReadTurnOptions): ProviderV1TurnRead {
  const turn = findCopilotTurn(parsed, options.ordinal);
  if (!turn) return { status: 'missing' };
  const { events } = turn;
  const error = events.findLast((e) => e.type === 'session.error' && !e.agentId);
  if (error) return failedOf(error);
  if (events.some((e) => e.type === 'abort' && !e.agentId))
    return { status: 'interrupted', message: 'the turn was interrupted (Escape, or a rejected permission); the worker waits for input' };
  const final = finalMessage(events);
  const end = finalIndex(events);
  if (!final || end === undefined) {
    const activity = runningTool(events);
    return { status: 'running', ...(activity ? { activity } : {}) };
  }
  const background = runningAgents(events, end);
  return {
    status: 'completed',
    answer: typeof final.data.content === 'string' ? final.data.content : '',
    tokenUsage: usageOf(events),
    numTurns: events.filter((e) => e.type === 'assistant.turn_start' && !e.agentId).length,
    ...(turn.sessionId ? { sessionId: turn.sessionId } : {}),
    ...(typeof final.data.model === 'string' ? { model: final.data.model } : {}),
    ...(background.length ? { background } : {}),
  };
}

/** The turn's messages for stream output, in Claude's stream-json shape: text, tool calls and their results (a subagent's own are not the turn's). */
export function copilotMessages(parsed: readonly CopilotEvent[], options: ProviderV1ReadTurnOptions): ProviderV1Message[] {
  const turn = findCopilotTurn(parsed, options.ordinal);
  if (!turn) return [];
  const out: ProviderV1Message[] = [];
  for (const e of turn.events.filter((event) => !event.agentId)) {
    const uuid = (typeof e.data.messageId === 'string' ? e.data.messageId : e.id) || undefined;
    if (e.type === 'assistant.message') {
      const text = typeof e.data.content === 'string' ? e.data.content : '';
      const calls = toolRequestsOf(e)
        .map(asRecord)
        .filter((c): c is Record<string, unknown> => !!c);
      const content = [...(text !== '' ? [textBlock(text)] : []), ...calls.map((c) => toolUseBlock(c.toolCallId, c.name, c.arguments ?? {}))];
      if (content.length) out.push(assistantMessage(content, uuid));
    } else if (e.type === 'tool.execution_complete') {
      const result = asRecord(e.data.result);
      const error = asRecord(e.data.error);
      const text = typeof result?.content === 'string' ? result.content : typeof error?.message === 'string' ? error.message : '';
      out.push(toolResultsMessage([toolResultBlock(e.data.toolCallId, text, e.data.success === false)]));
    }
  }
  return out;
}

/** {@link copilotTurn} and {@link copilotMessages} of `options.content`, parsed on each call. */
export const { read: readCopilotTurn, messages: readCopilotMessages } = unparsedReader({ parse: parseEvents, turn: copilotTurn, messages: copilotMessages });
