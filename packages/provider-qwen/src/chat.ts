/**
 * Qwen Code's chat recording (QWEN-FACTS §6): `~/.qwen/projects/<cwd>/chats/<session>.jsonl`, the
 * `transcript_path` of every hook payload. One record a line: `user` (the prompt), `assistant`
 * (text or `functionCall` parts, `usageMetadata`), `tool_result`, and `system` records, among them
 * `ui_telemetry` with the outcome of every API call (`qwen-code.api_error`: `status_code`,
 * `error_type`, `error_message`). A turn runs from its `user` record to the next one; a `user`
 * record of `subtype: "notification"` (the CLI's own `<task-notification>` turn) ends a turn but is none. Pure.
 */
import type { ProviderV1Message, ProviderV1ReadTurnOptions, ProviderV1TurnRead, ProviderV1Usage } from '@umbel/provider';
import { activityDirsOf, asRecord, functionCallBlocks, jsonLines, type JsonLine, partsMessage, partsText, stringField } from '@umbel/provider';

type Rec = Readonly<Record<string, unknown>>;

/** The `error_type` of a call aborted by Esc. */
const ABORTED = 'APIUserAbortError';

/** The main agent's prompt ids (`<session>########<n>`); side agents (auto-memory, subagents) have others. */
const MAIN_PROMPT_ID = /#{8}\d+$/;

/** The parts of a record's message. */
function partsOf(record: Rec): unknown[] {
  const parts = asRecord(record.message)?.parts;
  return Array.isArray(parts) ? parts : [];
}

/** The text parts of a record, joined (thoughts left out). */
export const textOf = (record: Rec): string => partsText(partsOf(record));

/** The names of a record's function calls. */
function callsOf(record: Rec): string[] {
  return functionCallBlocks(partsOf(record)).flatMap((call) => (typeof call.name === 'string' && call.name !== '' ? [call.name] : []));
}

/** A main-agent API error record's event, or undefined. */
function apiErrorOf(record: Rec): Rec | undefined {
  if (record.type !== 'system' || record.subtype !== 'ui_telemetry') return undefined;
  const event = asRecord(asRecord(record.systemPayload)?.uiEvent);
  if (!event || event['event.name'] !== 'qwen-code.api_error') return undefined;
  return MAIN_PROMPT_ID.test(stringField(event, 'prompt_id') ?? '') ? event : undefined;
}

/** Indices of the records that start a turn (`user`), the CLI's own `<task-notification>` prompts among them. */
function startIndices(lines: readonly JsonLine[]): number[] {
  return lines.flatMap((l, i) => (l.value.type === 'user' ? [i] : []));
}

/**
 * Whether a `user` record is the prompt Qwen Code submits by itself when a background agent ends
 * (`subtype: "notification"`, a `<task-notification>`; BACKGROUND-FACTS.md §4): no turn of umbel's.
 */
const isNotification = (record: Rec): boolean => record.subtype === 'notification';

/**
 * The records of one turn: the ordinal-th prompt when its text is the prompt sent (or none was
 * given), else the last prompt record with that text.
 */
export function turnRecords(content: string, ordinal: number, prompt?: string): Rec[] | undefined {
  const lines = jsonLines(content);
  const starts = startIndices(lines);
  const prompts = starts.filter((i) => !isNotification((lines[i] as JsonLine).value));
  const text = (i: number) => textOf((lines[i] as JsonLine).value);
  let at = prompts[ordinal - 1];
  if (prompt !== undefined && (at === undefined || text(at) !== prompt)) at = prompts.findLast((i) => text(i) === prompt);
  if (at === undefined) return undefined;
  const end = starts.find((i) => i > (at as number)) ?? lines.length;
  return lines.slice(at, end).map((l) => l.value);
}

/** Token usage of an assistant record. */
function usageOf(record: Rec): ProviderV1Usage | undefined {
  const u = asRecord(record.usageMetadata);
  if (!u) return undefined;
  const num = (k: string) => (typeof u[k] === 'number' ? (u[k] as number) : undefined);
  const entries = Object.entries({
    inputTokens: num('promptTokenCount'),
    outputTokens: num('candidatesTokenCount'),
    cacheReadTokens: num('cachedContentTokenCount'),
    reasoningTokens: num('thoughtsTokenCount'),
  }).filter(([, v]) => v !== undefined);
  return entries.length ? (Object.fromEntries(entries) as ProviderV1Usage) : undefined;
}

/** A failed call's read: 429 and 5xx are retried by the CLI for minutes (QWEN-FACTS §7). */
function failedRead(event: Rec): ProviderV1TurnRead {
  const status = typeof event.status_code === 'number' ? event.status_code : undefined;
  const type = stringField(event, 'error_type');
  const message = stringField(event, 'error_message') ?? `API error${status ? ` ${status}` : ''}`;
  const account = status === 429 ? { kind: 'rate-limited' as const } : status === 401 ? { kind: 'auth-failed' as const } : undefined;
  const retrying = status === 429 || (status !== undefined && status >= 500);
  return {
    status: 'failed',
    message,
    ...(status !== undefined ? { apiErrorStatus: status } : {}),
    ...(type ? { apiErrorType: type } : {}),
    ...(account ? { account } : {}),
    ...(retrying ? { retrying: true } : {}),
  };
}

/** Read one turn of a Qwen Code chat recording. */
export function readQwenTurn(options: ProviderV1ReadTurnOptions): ProviderV1TurnRead {
  const records = turnRecords(options.content, options.ordinal, options.prompt);
  if (!records) return { status: 'missing' };
  let last: Rec | undefined;
  for (const record of records.slice(1)) if (record.type === 'assistant' || apiErrorOf(record)) last = record;
  if (!last) return { status: 'running' };
  const error = apiErrorOf(last);
  // Esc while a call runs or waits to be retried aborts it (QWEN-FACTS §7)
  if (error && stringField(error, 'error_type') === ABORTED) return { status: 'interrupted', message: 'the request was cancelled; the worker waits for input' };
  if (error) return failedRead(error);
  const calls = callsOf(last);
  if (calls.length) return { status: 'running', activity: calls.join(', ') };
  const usage = usageOf(last);
  const model = stringField(last, 'model');
  const sessionId = stringField(last, 'sessionId');
  return {
    status: 'completed',
    answer: textOf(last),
    ...(usage ? { tokenUsage: usage } : {}),
    ...(model ? { model } : {}),
    ...(sessionId ? { sessionId } : {}),
  };
}

/** One record as Claude's stream-json message (`{type, message}`): an assistant's text and tool calls, or a `tool_result`'s results. */
function messageOf(record: Rec): ProviderV1Message | undefined {
  const role = record.type === 'assistant' ? 'model' : record.type === 'tool_result' ? 'user' : undefined;
  return role && partsMessage(role, partsOf(record), { uuid: stringField(record, 'uuid'), model: stringField(record, 'model') });
}

/** The messages of one turn (after its prompt) in Claude's stream-json shape. */
export function readQwenMessages(options: ProviderV1ReadTurnOptions): ProviderV1Message[] {
  const records = turnRecords(options.content, options.ordinal, options.prompt) ?? [];
  return records.slice(1).flatMap((r) => messageOf(r) ?? []);
}

/**
 * Where the background agents of a chat keep their records (BACKGROUND-FACTS.md §4), from its path
 * `<project dir>/chats/<session>.jsonl`: `<project dir>/subagents/<session>/agent-<agentId>.jsonl` beside `.meta.json`. Pure.
 */
export const qwenActivityDirs = activityDirsOf({ transcript: /^(.*)\/chats\/([^/]+)\.jsonl$/, dirs: ['$1/subagents/$2'] });
