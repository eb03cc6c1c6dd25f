/**
 * Reading Claude Code's transcript JSONL (claude-code.md §4). All functions are pure: the engine
 * reads the file and passes its text.
 */
import type { ProviderV1AccountError, ProviderV1Message, ProviderV1ReadTurnOptions, ProviderV1TurnRead, ProviderV1Usage } from '@umbel/provider';
import {
  addUsage,
  asRecord,
  blockText,
  contentBlocks,
  toolActivity,
  jsonLines,
  preparePrompt,
  type PromptFacts,
  stringField,
  type UsageTotal,
} from '@umbel/provider';
import { claudeAccountError } from './account.js';
import { CLAUDE_TOOL_ARGUMENT } from './payload.js';
import { isSelfStartedEntry } from './self-started.js';

/** A prompt starting with `/` is a slash command, with `!` a shell command, even pasted; one leading space defeats both (§5). */
export const CLAUDE_PROMPT: PromptFacts = { escapeLeading: ['/', '!'] };

/** One parsed transcript line, with its position. */
export interface ClaudeTranscriptEntry {
  readonly index: number;
  readonly data: Record<string, unknown>;
}

/** Parse transcript text line by line; lines that are not JSON objects (partial writes) are skipped. */
export function parseClaudeTranscript(content: string): ClaudeTranscriptEntry[] {
  return jsonLines(content).map(({ value }, index) => ({ index, data: value }));
}

const INTERRUPT_PREFIX = '[Request interrupted by user';
/** Claude's usage fields → the neutral ones. */
const USAGE_KEYS = {
  input_tokens: 'inputTokens',
  output_tokens: 'outputTokens',
  cache_creation_input_tokens: 'cacheCreationTokens',
  cache_read_input_tokens: 'cacheReadTokens',
} as const satisfies Record<string, keyof ProviderV1Usage>;

function messageOf(entry: ClaudeTranscriptEntry): Record<string, unknown> | undefined {
  return asRecord(entry.data.message);
}

/** The joined text blocks of an entry's message. */
function textOf(entry: ClaudeTranscriptEntry): string {
  return blockText(contentBlocks(messageOf(entry)?.content), ['text']);
}

/** A user entry of the main conversation (a subagent's are `isSidechain`). */
function isUser(entry: ClaudeTranscriptEntry): boolean {
  return entry.data.type === 'user' && entry.data.isSidechain !== true;
}

function isAssistant(entry: ClaudeTranscriptEntry): boolean {
  return entry.data.type === 'assistant' && entry.data.isSidechain !== true;
}

/** A human prompt: a user entry typed/pasted by a person (origin human) or dequeued (`promptSource: queued`). */
function isPrompt(entry: ClaudeTranscriptEntry): boolean {
  if (!isUser(entry) || entry.data.isMeta === true) return false;
  const origin = asRecord(entry.data.origin);
  if (origin?.kind !== 'human' && entry.data.promptSource !== 'queued') return false;
  const blocks = contentBlocks(messageOf(entry)?.content);
  if (blocks.some((block) => block.type === 'tool_result')) return false;
  return !textOf(entry).startsWith(INTERRUPT_PREFIX);
}

function promptIdOf(entry: ClaudeTranscriptEntry): string | undefined {
  return stringField(entry.data, 'promptId');
}

/** Human prompts in order; a repeated entry of the same promptId right after its first one is not a new prompt. */
function humanPrompts(entries: readonly ClaudeTranscriptEntry[]): ClaudeTranscriptEntry[] {
  const prompts: ClaudeTranscriptEntry[] = [];
  for (const entry of entries) {
    if (!isPrompt(entry)) continue;
    const previous = prompts.at(-1);
    const id = promptIdOf(entry);
    if (previous !== undefined && id !== undefined && promptIdOf(previous) === id) continue;
    prompts.push(entry);
  }
  return prompts;
}

function normalizePrompt(text: string): string {
  return text.replace(/\t/g, '    ').replace(/\r\n?/g, '\n').trim();
}

function promptMatches(entry: ClaudeTranscriptEntry, prompt: string): boolean {
  const text = normalizePrompt(textOf(entry));
  return text === normalizePrompt(prompt) || text === normalizePrompt(preparePrompt(CLAUDE_PROMPT, prompt));
}

/** The entries of one turn: its prompt entry and everything up to the next prompt (human or self-started) with another promptId. */
export interface ClaudeTurnSlice {
  readonly start: ClaudeTranscriptEntry;
  /** Entries after the prompt entry, up to (excluding) the next turn's prompt. */
  readonly body: readonly ClaudeTranscriptEntry[];
}

/**
 * Find a turn (§4 rules 2–3): the first user entry whose `promptId` is `turnKey`; without a key, the
 * `ordinal`-th human prompt. A queued prompt's UserPromptSubmit carries the *running* turn's
 * prompt_id, so when the prompt text is known and differs from the keyed entry's, a later prompt
 * with that text is taken instead; if there is none yet and the keyed entry is not the
 * `ordinal`-th prompt either, the turn counts as missing (never the running turn's answer). Undefined when the turn's prompt is not in the transcript.
 */
export function findClaudeTurn(
  entries: readonly ClaudeTranscriptEntry[],
  options: Pick<ProviderV1ReadTurnOptions, 'turnKey' | 'prompt' | 'ordinal'>,
): ClaudeTurnSlice | undefined {
  const prompts = humanPrompts(entries);
  let start: ClaudeTranscriptEntry | undefined;
  if (options.turnKey !== undefined) {
    const keyed = entries.find((entry) => isUser(entry) && promptIdOf(entry) === options.turnKey);
    start = keyed === undefined ? undefined : (prompts.find((p) => p.index >= keyed.index && promptIdOf(p) === options.turnKey) ?? keyed);
    if (start !== undefined && options.prompt !== undefined && !promptMatches(start, options.prompt)) {
      const keyedStart = start;
      const prompt = options.prompt;
      const later = prompts.filter((p) => p.index > keyedStart.index && promptMatches(p, prompt));
      if (later.length > 0) {
        start = later.find((p) => prompts.indexOf(p) + 1 === options.ordinal) ?? later[0];
      } else if (prompts.indexOf(keyedStart) + 1 !== options.ordinal) {
        // Keyed by the running turn's prompt_id (a queued prompt) whose own entry is not written yet.
        start = undefined;
      }
    }
  } else if (options.ordinal >= 1) {
    start = prompts[options.ordinal - 1];
  }
  if (start === undefined) return undefined;
  const startId = promptIdOf(start);
  // the next turn: a human prompt, or one Claude Code started by itself (a <task-notification>)
  const starts = entries.filter((entry) => isPrompt(entry) || isSelfStartedEntry(entry.data));
  const next = starts.find((p) => p.index > start.index && (startId === undefined || promptIdOf(p) !== startId));
  const end = next === undefined ? entries.length : next.index;
  return { start, body: entries.slice(start.index + 1, end) };
}

/** The entries of one API message. */
type AssistantGroup = readonly ClaudeTranscriptEntry[];

/** Assistant entries grouped by `message.id` (one API message is written as one entry per content block), in order. */
function groupAssistant(body: readonly ClaudeTranscriptEntry[]): AssistantGroup[] {
  const byId = new Map<string, ClaudeTranscriptEntry[]>();
  for (const entry of body.filter(isAssistant)) {
    const id = stringField(messageOf(entry), 'id') ?? `entry:${stringField(entry.data, 'uuid') ?? entry.index}`;
    byId.set(id, [...(byId.get(id) ?? []), entry]);
  }
  return [...byId.values()];
}

function groupText(group: AssistantGroup): string {
  return group.map(textOf).join('');
}

function isApiError(group: AssistantGroup): boolean {
  return group.some((entry) => entry.data.isApiErrorMessage === true);
}

function isSynthetic(group: AssistantGroup): boolean {
  return isApiError(group) || group.every((entry) => messageOf(entry)?.model === '<synthetic>');
}

/** The `stop_reason` of an API message (its last entry carries it). */
function stopReasonOf(group: AssistantGroup): string | undefined {
  return stringField(messageOf(group.at(-1) as ClaudeTranscriptEntry), 'stop_reason');
}

/**
 * What Claude Code's synthetic API-error message records: `apiErrorStatus`, `apiErrorType`, its
 * `stop_reason`, and whether it was the account's (its `error` name; a plan limit's reset in
 * `apiErrorParams.rate_limit_info` / `quotaLimits`).
 */
function apiErrorOf(group: AssistantGroup): { apiErrorStatus?: number; apiErrorType?: string; stopReason?: string; account?: ProviderV1AccountError } {
  const entry = group.find((e) => e.data.isApiErrorMessage === true)?.data;
  const status = entry?.apiErrorStatus;
  const type = entry === undefined ? undefined : stringField(entry, 'apiErrorType');
  const stopReason = stopReasonOf(group);
  const account = entry === undefined ? undefined : claudeAccountError(entry, typeof status === 'number' ? status : undefined);
  return {
    ...(typeof status === 'number' && Number.isInteger(status) ? { apiErrorStatus: status } : {}),
    ...(type === undefined ? {} : { apiErrorType: type }),
    ...(stopReason === undefined ? {} : { stopReason }),
    ...(account === undefined ? {} : { account }),
  };
}

function lastToolUse(body: readonly ClaudeTranscriptEntry[]): string | undefined {
  let activity: string | undefined;
  for (const entry of body) {
    if (!isAssistant(entry)) continue;
    for (const block of contentBlocks(messageOf(entry)?.content)) {
      if (block.type === 'tool_use' && typeof block.name === 'string') activity = toolActivity(block.name, block.input, CLAUDE_TOOL_ARGUMENT);
    }
  }
  return activity;
}

/** A completed turn: the last API message's text; the usage, count and model of the real (not synthetic) ones. */
function completedRead(turn: ClaudeTurnSlice, groups: readonly AssistantGroup[]): ProviderV1TurnRead {
  const usage: UsageTotal = {};
  let model: string | undefined;
  const real = groups.filter((group) => !isSynthetic(group));
  for (const group of real) {
    const message = messageOf(group.at(-1) as ClaudeTranscriptEntry);
    model = stringField(message, 'model') ?? model;
    addUsage(usage, message?.usage, USAGE_KEYS);
  }
  const last = groups.at(-1);
  const sessionId = stringField(turn.start.data, 'sessionId');
  const stopReason = last === undefined ? undefined : stopReasonOf(last);
  return {
    status: 'completed',
    answer: last === undefined ? '' : groupText(last),
    ...(stopReason === undefined ? {} : { stopReason }),
    ...(Object.keys(usage).length > 0 ? { tokenUsage: usage } : {}),
    numTurns: real.length,
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(model === undefined ? {} : { model }),
  };
}

/**
 * Read one turn (§4): `missing` until the turn's prompt entry is written; `failed` when its last API
 * message is a synthetic API error; `completed` once a `system/turn_duration` follows, or once the
 * Stop hook fired and the last assistant message is the one it reported (answer = the concatenated
 * text blocks of the last assistant message); `interrupted` on a
 * `[Request interrupted by user…]` marker; otherwise `running` with the last tool call as activity.
 */
export function claudeTurn(entries: readonly ClaudeTranscriptEntry[], options: ProviderV1ReadTurnOptions): ProviderV1TurnRead {
  const turn = findClaudeTurn(entries, options);
  if (turn === undefined) return { status: 'missing' };
  const groups = groupAssistant(turn.body);
  const last = groups.at(-1);
  if (last !== undefined && isApiError(last)) {
    const error = last.map((entry) => stringField(entry.data, 'error')).find((value) => value !== undefined);
    return { status: 'failed', message: groupText(last) || (error === undefined ? 'API error' : `API error: ${error}`), ...apiErrorOf(last) };
  }
  const ended =
    turn.body.some((entry) => entry.data.type === 'system' && entry.data.subtype === 'turn_duration') ||
    // The Stop hook fired and the transcript already holds the very message it reported: the turn is
    // over (Stop comes once per turn) and its answer is written; turn_duration lands 40–150 ms later.
    (options.stopSeen &&
      options.stopMessage !== undefined &&
      last !== undefined &&
      !isSynthetic(last) &&
      stopReasonOf(last) !== 'tool_use' &&
      groupText(last) === options.stopMessage);
  if (ended) return completedRead(turn, groups);
  const interrupt = turn.body.find((entry) => isUser(entry) && textOf(entry).startsWith(INTERRUPT_PREFIX));
  if (interrupt !== undefined) return { status: 'interrupted', message: textOf(interrupt) };
  const activity = lastToolUse(turn.body);
  return activity === undefined ? { status: 'running' } : { status: 'running', activity };
}

/**
 * The messages of one turn in Claude's stream-json shape (as `claude -p --output-format stream-json`
 * prints them): one `assistant` message per API message (its per-block entries merged) and the
 * turn's `user` entries (tool results, interrupt markers), in transcript order. The prompt itself is
 * not included. Pure.
 */
export function claudeMessages(entries: readonly ClaudeTranscriptEntry[], options: ProviderV1ReadTurnOptions): ProviderV1Message[] {
  const turn = findClaudeTurn(entries, options);
  if (turn === undefined) return [];
  const out: { type: 'assistant' | 'user'; message: unknown; uuid?: string }[] = [];
  const merged = new Map<string, { message: Record<string, unknown>; content: unknown[] }>();
  for (const entry of turn.body) {
    const uuid = stringField(entry.data, 'uuid');
    if (isAssistant(entry)) {
      const message = messageOf(entry) ?? {};
      const id = stringField(message, 'id');
      const blocks = Array.isArray(message.content) ? (message.content as unknown[]) : contentBlocks(message.content);
      const existing = id === undefined ? undefined : merged.get(id);
      if (existing !== undefined) {
        existing.content.push(...blocks);
        Object.assign(existing.message, { ...message, content: existing.content });
        continue;
      }
      const content = [...blocks];
      const copy: Record<string, unknown> = { ...message, content };
      if (id !== undefined) merged.set(id, { message: copy, content });
      out.push({ type: 'assistant', message: copy, ...(uuid === undefined ? {} : { uuid }) });
    } else if (isUser(entry) && entry.data.isMeta !== true && !isPrompt(entry)) {
      out.push({ type: 'user', message: entry.data.message, ...(uuid === undefined ? {} : { uuid }) });
    }
  }
  return out;
}

/** Where Claude Code keeps its subagents' transcripts: `<transcript without .jsonl>/subagents/` (Task tool). Pure. */
export function claudeActivityDirs(transcriptPath: string): readonly string[] {
  return [`${transcriptPath.replace(/\.jsonl$/, '')}/subagents`];
}

/** {@link claudeTurn} of `options.content`, parsed. */
export const readClaudeTurn = (options: ProviderV1ReadTurnOptions): ProviderV1TurnRead => claudeTurn(parseClaudeTranscript(options.content), options);
/** {@link claudeMessages} of `options.content`, parsed. */
export const readClaudeMessages = (options: ProviderV1ReadTurnOptions): ProviderV1Message[] => claudeMessages(parseClaudeTranscript(options.content), options);
