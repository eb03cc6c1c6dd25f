/**
 * Reading codex's rollout JSONL (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<thread>.jsonl`,
 * reference codex.md §7). Pure: the engine does the I/O and hands the text in.
 *
 * A turn is the span from its `event_msg/task_started` to its `task_complete` / `turn_aborted`,
 * keyed by `turn_id` (the `turn_id` of the UserPromptSubmit and Stop hook payloads). Facts this
 * relies on:
 * - `task_complete.last_agent_message` is authoritative; `error` on it means the API failed (no
 *   hook fires for that — this record is the only signal);
 * - inside the Stop hook the assistant `response_item` is already written but `task_complete` is
 *   not, so once Stop has fired the final message counts;
 * - the hidden title turn writes nothing here, `!cmd` turns have no user prompt and a null answer.
 */
import type { ProviderV1Message, ProviderV1TurnRead, ProviderV1Usage } from '@umbel/provider';
import {
  addUsage,
  assistantMessage,
  jsonLines,
  parseJson,
  textBlock,
  toolResultBlock,
  toolResultsMessage,
  toolUseBlock,
  type UsageTotal,
} from '@umbel/provider';
import { codexAccountError } from './account.js';
import { codexQuota } from './quota.js';

/** One rollout line. */
export interface RolloutRecord {
  readonly timestamp?: string;
  readonly ordinal?: number;
  readonly type: string;
  readonly payload: Record<string, unknown>;
}

/** Parse the rollout text, skipping blank and malformed lines (the last one may be partial). */
export function parseRollout(content: string): RolloutRecord[] {
  const out: RolloutRecord[] = [];
  for (const { value } of jsonLines(content)) {
    if (typeof value.type !== 'string') continue;
    const payload = value.payload && typeof value.payload === 'object' ? (value.payload as Record<string, unknown>) : {};
    out.push({ ...value, type: value.type, payload } as RolloutRecord);
  }
  return out;
}

/** One turn of the rollout. */
export interface CodexTurn {
  readonly turnId: string;
  /** The user's prompt(s) of this turn (a steer adds a second one). */
  readonly prompts: readonly string[];
  /** True for a `!cmd` turn (local shell command, no model call). */
  readonly shell: boolean;
  readonly records: readonly RolloutRecord[];
  readonly end?: { readonly type: 'task_complete' | 'turn_aborted'; readonly payload: Record<string, unknown> };
}

const isEvent = (r: RolloutRecord, type: string) => r.type === 'event_msg' && r.payload.type === type;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function textOf(content: unknown, types: readonly string[]): string {
  if (!Array.isArray(content)) return '';
  return content
    .filter(
      (c): c is { type: string; text: string } =>
        !!c && typeof c === 'object' && types.includes((c as { type?: string }).type ?? '') && typeof (c as { text?: unknown }).text === 'string',
    )
    .map((c) => c.text)
    .join('');
}

/** Split the rollout into turns, in order. */
export function codexTurns(records: readonly RolloutRecord[]): CodexTurn[] {
  const turns: { turnId: string; prompts: string[]; shell: boolean; records: RolloutRecord[]; end?: CodexTurn['end'] }[] = [];
  const byId = new Map<string, (typeof turns)[number]>();
  let current: (typeof turns)[number] | undefined;
  for (const r of records) {
    if (isEvent(r, 'task_started')) {
      const id = str(r.payload.turn_id);
      if (!id) continue;
      current = byId.get(id);
      if (!current) {
        current = { turnId: id, prompts: [], shell: false, records: [] };
        turns.push(current);
        byId.set(id, current);
      }
    }
    const explicit = str(r.payload.turn_id) ?? str((r.payload.internal_chat_message_metadata_passthrough as { turn_id?: unknown } | undefined)?.turn_id);
    const owner = (explicit ? byId.get(explicit) : undefined) ?? current;
    if (!owner) continue;
    owner.records.push(r);
    if (isEvent(r, 'item_completed')) {
      const item = r.payload.item as { type?: string; content?: unknown } | undefined;
      if (item?.type === 'UserMessage') owner.prompts.push(textOf(item.content, ['text']));
    }
    if (
      r.type === 'response_item' &&
      r.payload.type === 'message' &&
      r.payload.role === 'user' &&
      textOf(r.payload.content, ['input_text']).startsWith('<user_shell_command>')
    ) {
      owner.shell = true;
    }
    if (isEvent(r, 'task_complete') || isEvent(r, 'turn_aborted')) {
      owner.end = { type: r.payload.type as 'task_complete' | 'turn_aborted', payload: r.payload };
      if (owner === current) current = undefined;
    }
  }
  return turns;
}

/** The turn's last `token_count.rate_limits` (what the rate-limit headers said). */
function lastRateLimits(turn: CodexTurn): Record<string, unknown> | undefined {
  let last: Record<string, unknown> | undefined;
  for (const r of turn.records) {
    const limits = isEvent(r, 'token_count') ? r.payload.rate_limits : undefined;
    if (limits && typeof limits === 'object') last = limits as Record<string, unknown>;
  }
  return last;
}

function lastAssistantText(turn: CodexTurn): { text?: string; final: boolean } {
  let text: string | undefined;
  let final = false;
  for (const r of turn.records) {
    if (r.type === 'response_item' && r.payload.type === 'message' && r.payload.role === 'assistant') {
      text = textOf(r.payload.content, ['output_text']);
      final = r.payload.phase === undefined || r.payload.phase === 'final_answer';
    }
  }
  if (text === undefined) {
    for (const r of turn.records) {
      const item = r.payload.item as { type?: string; content?: unknown; phase?: unknown } | undefined;
      if (isEvent(r, 'item_completed') && item?.type === 'AgentMessage') {
        text = textOf(item.content, ['Text', 'text']);
        final = item.phase === undefined || item.phase === 'final_answer';
      }
    }
  }
  return { text, final };
}

function activityOf(turn: CodexTurn): string | undefined {
  for (let i = turn.records.length - 1; i >= 0; i--) {
    const r = turn.records[i] as RolloutRecord;
    if (r.type === 'response_item' && r.payload.type === 'function_call') {
      const a = (parseJson(str(r.payload.arguments) ?? '{}') ?? {}) as { cmd?: unknown; command?: unknown };
      const cmd = typeof a.cmd === 'string' ? a.cmd : Array.isArray(a.command) ? a.command.join(' ') : typeof a.command === 'string' ? a.command : '';
      return `${str(r.payload.name) ?? 'tool'}${cmd ? `: ${cmd}` : ''}`;
    }
  }
  return undefined;
}

/** Codex's usage names → the neutral ones (`total_tokens` has none: it is dropped; `input_tokens` counts cached input too). */
export const CODEX_USAGE_NAMES: Readonly<Record<string, keyof ProviderV1Usage>> = {
  input_tokens: 'inputTokens',
  output_tokens: 'outputTokens',
  cached_input_tokens: 'cacheReadTokens',
  cache_write_input_tokens: 'cacheCreationTokens',
  reasoning_output_tokens: 'reasoningTokens',
};

/** The turn's last usage record. */
function usageOf(turn: CodexTurn): ProviderV1Usage | undefined {
  let usage: UsageTotal | undefined;
  for (const r of turn.records) {
    const u = r.type === 'token_usage_record' ? (r.payload.turn_token_usage ?? r.payload.usage) : undefined;
    if (u) usage = addUsage({}, u, CODEX_USAGE_NAMES);
  }
  return usage;
}

/** Options of `readCodexTurn` (the subset of ProviderV1ReadTurnOptions it uses). */
export interface ReadCodexTurnOptions {
  readonly content: string;
  readonly turnKey?: string;
  readonly ordinal?: number;
  readonly stopSeen?: boolean;
}

/** Find the turn: by turn id, else the `ordinal`-th model turn (shell turns skipped). */
export function findCodexTurn(turns: readonly CodexTurn[], turnKey?: string, ordinal?: number): CodexTurn | undefined {
  if (turnKey) return turns.find((t) => t.turnId === turnKey);
  const model = turns.filter((t) => !t.shell);
  if (ordinal !== undefined && ordinal >= 1) return model[ordinal - 1];
  return model[model.length - 1];
}

/** What the rollout says about one turn. Pure. */
export function codexTurn({ records, turns }: CodexRollout, options: ReadCodexTurnOptions): ProviderV1TurnRead {
  const turn = findCodexTurn(turns, options.turnKey, options.ordinal);
  if (!turn) return { status: 'missing' };
  const meta = records.find((r) => r.type === 'session_meta')?.payload;
  const sessionId = str(meta?.id) ?? str(meta?.session_id);
  const model = turn.records
    .map((r) => (r.type === 'turn_context' ? str(r.payload.model) : undefined))
    .filter(Boolean)
    .pop();
  const extras = { ...(sessionId ? { sessionId } : {}), ...(model ? { model } : {}) };
  const calls = turn.records.filter((r) => r.type === 'response_item' && r.payload.type === 'function_call').length;
  const usage = usageOf(turn);
  const rateLimits = lastRateLimits(turn);
  const quota = codexQuota(rateLimits);
  const withQuota = quota ? { quota } : {};
  if (turn.end?.type === 'turn_aborted') {
    const reason = str(turn.end.payload.reason);
    return { status: 'interrupted', ...(reason ? { message: reason } : {}) };
  }
  if (turn.end) {
    const error = turn.end.payload.error as { message?: unknown; codex_error_info?: unknown } | undefined;
    if (error) {
      const account = codexAccountError(error.codex_error_info, rateLimits);
      return { status: 'failed', message: str(error.message) ?? 'codex reported an error', ...(account ? { account } : {}), ...withQuota };
    }
    const answer = str(turn.end.payload.last_agent_message) ?? lastAssistantText(turn).text ?? '';
    return { status: 'completed', answer, numTurns: calls + 1, ...(usage ? { tokenUsage: usage } : {}), ...extras, ...withQuota };
  }
  if (options.stopSeen) {
    const last = lastAssistantText(turn);
    if (last.text !== undefined && last.final)
      return { status: 'completed', answer: last.text, numTurns: calls + 1, ...(usage ? { tokenUsage: usage } : {}), ...extras, ...withQuota };
  }
  const activity = activityOf(turn);
  return { status: 'running', ...(activity ? { activity } : {}) };
}

/**
 * Messages of one turn in Claude's stream-json shape, for stream output. Pure. Like `claude -p`,
 * `user` lines carry tool results only: the prompt (and codex's own wrapper messages) are not
 * echoed.
 */
export function codexMessages({ turns }: CodexRollout, options: ReadCodexTurnOptions): ProviderV1Message[] {
  const turn = findCodexTurn(turns, options.turnKey, options.ordinal);
  if (!turn) return [];
  const out: ProviderV1Message[] = [];
  for (const r of turn.records) {
    const p = r.payload;
    if (r.type !== 'response_item') continue;
    if (p.type === 'message' && p.role === 'assistant') out.push(assistantMessage([textBlock(textOf(p.content, ['output_text']))], str(p.id)));
    else if (p.type === 'function_call')
      out.push(assistantMessage([toolUseBlock(str(p.call_id), str(p.name), parseJson(str(p.arguments) ?? '{}') ?? {})], str(p.id)));
    else if (p.type === 'function_call_output')
      out.push(toolResultsMessage([toolResultBlock(str(p.call_id), typeof p.output === 'string' ? p.output : JSON.stringify(p.output))]));
  }
  return out;
}

/** A rollout parsed once for every reader: its records and its turns. */
export interface CodexRollout {
  readonly records: readonly RolloutRecord[];
  readonly turns: readonly CodexTurn[];
}

/** Parse a rollout's text. Pure. */
export function parseCodexRollout(content: string): CodexRollout {
  const records = parseRollout(content);
  return { records, turns: codexTurns(records) };
}

/** {@link codexTurn} of `options.content`, parsed. */
export const readCodexTurn = (options: ReadCodexTurnOptions): ProviderV1TurnRead => codexTurn(parseCodexRollout(options.content), options);
/** {@link codexMessages} of `options.content`, parsed. */
export const readCodexMessages = (options: ReadCodexTurnOptions): ProviderV1Message[] => codexMessages(parseCodexRollout(options.content), options);
