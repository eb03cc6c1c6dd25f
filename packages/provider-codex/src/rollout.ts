/** Reading codex's rollout JSONL, turn by turn (codex-FACTS.md: "Rollout"). Pure. */
import type { ProviderV1Message, ProviderV1ReadTurnOptions, ProviderV1TurnRead, ProviderV1Usage } from '@umbel/provider';
import { addUsage, asRecord, assistantMessage, blockText, definedMembers, jsonLines, lastOf, parseJson } from '@umbel/provider';
import { textBlock, toolResultBlock, toolResultsMessage, toolUseBlock } from '@umbel/provider';
import { codexAccountError, codexQuota } from './account.js';
import { runningBackground } from './background.js';

/** One rollout line. */
export interface RolloutRecord {
  readonly timestamp?: string;
  readonly ordinal?: number;
  readonly type: string;
  readonly payload: Record<string, unknown>;
}

/** Parse the rollout text, skipping blank and malformed lines (the last one may be partial). */
export function parseRollout(content: string): RolloutRecord[] {
  return jsonLines(content)
    .filter(({ value }) => typeof value.type === 'string')
    .map(({ value }) => ({ ...value, payload: asRecord(value.payload) ?? {} }) as RolloutRecord);
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

type Building = { -readonly [K in keyof CodexTurn]: CodexTurn[K] } & { prompts: string[]; records: RolloutRecord[] };
const isEvent = (r: RolloutRecord, type: string) => r.type === 'event_msg' && r.payload.type === type;
const isItem = (r: RolloutRecord, type: string, role?: string) => r.type === 'response_item' && r.payload.type === type && (!role || r.payload.role === role);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Split the rollout into turns, in order. */
export function codexTurns(records: readonly RolloutRecord[]): CodexTurn[] {
  const byId = new Map<string, Building>();
  let current: Building | undefined;
  for (const r of records) {
    if (isEvent(r, 'task_started')) {
      const id = str(r.payload.turn_id);
      if (!id) continue;
      current = byId.get(id) ?? { turnId: id, prompts: [], shell: false, records: [] };
      byId.set(id, current);
    }
    const explicit = str(r.payload.turn_id) ?? str(asRecord(r.payload.internal_chat_message_metadata_passthrough)?.turn_id);
    const owner = (explicit ? byId.get(explicit) : undefined) ?? current;
    if (!owner) continue;
    owner.records.push(r);
    const item = asRecord(r.payload.item);
    if (isEvent(r, 'item_completed') && item?.type === 'UserMessage') owner.prompts.push(blockText(item.content, ['text']));
    if (isItem(r, 'message', 'user') && blockText(r.payload.content, ['input_text']).startsWith('<user_shell_command>')) owner.shell = true;
    if (isEvent(r, 'task_complete') || isEvent(r, 'turn_aborted')) {
      owner.end = { type: r.payload.type as 'task_complete' | 'turn_aborted', payload: r.payload };
      if (owner === current) current = undefined;
    }
  }
  return [...byId.values()];
}

/** The last assistant message (a `response_item`, else an `AgentMessage` item) and whether it is the final answer. */
function lastAnswer({ records }: CodexTurn): { text?: string; final: boolean } {
  const answer = (m: Record<string, unknown> | undefined, types: string[]) =>
    m && { text: blockText(m.content, types), final: m.phase === undefined || m.phase === 'final_answer' };
  const agent = (r: RolloutRecord) =>
    isEvent(r, 'item_completed') && asRecord(r.payload.item)?.type === 'AgentMessage' ? asRecord(r.payload.item) : undefined;
  const message = (r: RolloutRecord) => (isItem(r, 'message', 'assistant') ? r.payload : undefined);
  return lastOf(records, (r) => answer(message(r), ['output_text'])) ?? lastOf(records, (r) => answer(agent(r), ['Text', 'text'])) ?? { final: false };
}

/** What the turn's last tool call runs (`exec_command: ls`). */
const activityOf = ({ records }: CodexTurn): string | undefined =>
  lastOf(records, (r) => {
    if (!isItem(r, 'function_call')) return undefined;
    const a = asRecord(parseJson(str(r.payload.arguments) ?? '{}')) ?? {};
    const cmd = typeof a.cmd === 'string' ? a.cmd : Array.isArray(a.command) ? a.command.join(' ') : typeof a.command === 'string' ? a.command : '';
    return `${str(r.payload.name) ?? 'tool'}${cmd ? `: ${cmd}` : ''}`;
  });

/** Codex's usage names → the neutral ones (`total_tokens` has none: it is dropped; `input_tokens` counts cached input too). */
export const CODEX_USAGE_NAMES: Readonly<Record<string, keyof ProviderV1Usage>> = {
  input_tokens: 'inputTokens',
  output_tokens: 'outputTokens',
  cached_input_tokens: 'cacheReadTokens',
  cache_write_input_tokens: 'cacheCreationTokens',
  reasoning_output_tokens: 'reasoningTokens',
};

/** Options of `readCodexTurn` (the subset of ProviderV1ReadTurnOptions it uses). */
export type ReadCodexTurnOptions = Pick<ProviderV1ReadTurnOptions, 'content'> & Partial<Pick<ProviderV1ReadTurnOptions, 'turnKey' | 'ordinal' | 'stopSeen'>>;

/** Find the turn: by turn id, else the `ordinal`-th model turn (shell turns skipped), else the last. */
export function findCodexTurn(turns: readonly CodexTurn[], turnKey?: string, ordinal?: number): CodexTurn | undefined {
  if (turnKey) return turns.find((t) => t.turnId === turnKey);
  const model = turns.filter((t) => !t.shell);
  return ordinal !== undefined && ordinal >= 1 ? model[ordinal - 1] : model[model.length - 1];
}

/** What the rollout says about one turn. Pure. */
export function codexTurn({ records, turns }: CodexRollout, options: ReadCodexTurnOptions): ProviderV1TurnRead {
  const turn = findCodexTurn(turns, options.turnKey, options.ordinal);
  if (!turn) return { status: 'missing' };
  if (turn.end?.type === 'turn_aborted') return definedMembers({ status: 'interrupted', message: str(turn.end.payload.reason) || undefined });
  const rateLimits = lastOf(turn.records, (r) => (isEvent(r, 'token_count') ? asRecord(r.payload.rate_limits) : undefined));
  const quota = codexQuota(rateLimits);
  if (turn.end?.payload.error) {
    const error = asRecord(turn.end.payload.error);
    const account = codexAccountError(error?.codex_error_info, rateLimits);
    return definedMembers({ status: 'failed', message: str(error?.message) ?? 'codex reported an error', account, quota });
  }
  const last = turn.end || options.stopSeen ? lastAnswer(turn) : { final: false };
  const answer = turn.end ? (str(turn.end.payload.last_agent_message) ?? last.text ?? '') : last.final ? last.text : undefined;
  if (answer === undefined) return definedMembers({ status: 'running', activity: activityOf(turn) || undefined });
  const meta = records.find((r) => r.type === 'session_meta')?.payload;
  const model = lastOf(turn.records, (r) => (r.type === 'turn_context' ? str(r.payload.model) || undefined : undefined));
  const usage = lastOf(turn.records, (r) => (r.type === 'token_usage_record' ? (r.payload.turn_token_usage ?? r.payload.usage) || undefined : undefined));
  const background = runningBackground(turn.records);
  return definedMembers({
    status: 'completed',
    answer,
    numTurns: turn.records.filter((r) => isItem(r, 'function_call')).length + 1,
    tokenUsage: usage ? addUsage({}, usage, CODEX_USAGE_NAMES) : undefined,
    sessionId: (str(meta?.id) ?? str(meta?.session_id)) || undefined,
    model,
    quota,
    background: background.length ? background : undefined,
  });
}

/** Messages of one turn in Claude's stream-json shape (like `claude -p`, `user` lines carry tool results only: no prompt, no codex wrapper). Pure. */
export function codexMessages({ turns }: CodexRollout, options: ReadCodexTurnOptions): ProviderV1Message[] {
  const out: ProviderV1Message[] = [];
  for (const { type, payload: p } of findCodexTurn(turns, options.turnKey, options.ordinal)?.records ?? []) {
    if (type !== 'response_item') continue;
    if (p.type === 'message' && p.role === 'assistant') out.push(assistantMessage([textBlock(blockText(p.content, ['output_text']))], str(p.id)));
    else if (p.type === 'function_call')
      out.push(assistantMessage([toolUseBlock(str(p.call_id), str(p.name), parseJson(str(p.arguments) ?? '{}') ?? {})], str(p.id)));
    else if (p.type === 'function_call_output')
      out.push(toolResultsMessage([toolResultBlock(str(p.call_id), typeof p.output === 'string' ? p.output : JSON.stringify(p.output))]));
  }
  return out;
}

/** A rollout parsed once for every reader: its records and its turns. */
export type CodexRollout = { readonly records: readonly RolloutRecord[]; readonly turns: readonly CodexTurn[] };

/** Parse a rollout's text. Pure. */
export function parseCodexRollout(content: string): CodexRollout {
  const records = parseRollout(content);
  return { records, turns: codexTurns(records) };
}

/** {@link codexTurn} of `options.content`, parsed. */
export const readCodexTurn = (options: ReadCodexTurnOptions): ProviderV1TurnRead => codexTurn(parseCodexRollout(options.content), options);
/** {@link codexMessages} of `options.content`, parsed. */
export const readCodexMessages = (options: ReadCodexTurnOptions): ProviderV1Message[] => codexMessages(parseCodexRollout(options.content), options);
