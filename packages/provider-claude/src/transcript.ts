/** Reading Claude Code's transcript JSONL (claude-code.md §4, CLAUDE-FACTS.md "Transcript"). Pure: the engine reads the file and passes its text. */
import type { ProviderV1AccountError, ProviderV1Message, ProviderV1ReadTurnOptions, ProviderV1TurnRead } from '@umbel/provider';
import {
  ANTHROPIC_USAGE_NAMES,
  accountFailure,
  accountKindOf,
  asRecord,
  blockText,
  contentBlocks,
  definedMembers,
  groupBy,
  isoOfEpoch,
  jsonLines,
  lastOf,
  samePrompt,
  stringField,
  sumUsage,
  toolActivity,
  unparsedReader,
} from '@umbel/provider';
import { CLAUDE_ERROR_KINDS, CLAUDE_PROMPT, CLAUDE_TOOL_ARGUMENT } from './facts.js';

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

const messageOf = (entry: ClaudeTranscriptEntry) => asRecord(entry.data.message);

/** The joined text blocks of an entry's message. */
const textOf = (entry: ClaudeTranscriptEntry) => blockText(contentBlocks(messageOf(entry)?.content), ['text']);

/** An entry of the main conversation (a subagent's are `isSidechain`) of this type. */
const isMain = (entry: ClaudeTranscriptEntry, type: 'user' | 'assistant') => entry.data.type === type && entry.data.isSidechain !== true;

const promptIdOf = (entry: ClaudeTranscriptEntry) => stringField(entry.data, 'promptId');

/** A human prompt: a user entry typed/pasted by a person (origin human) or dequeued (`promptSource: queued`). */
function isPrompt(entry: ClaudeTranscriptEntry): boolean {
  if (!isMain(entry, 'user') || entry.data.isMeta === true) return false;
  if (asRecord(entry.data.origin)?.kind !== 'human' && entry.data.promptSource !== 'queued') return false;
  if (contentBlocks(messageOf(entry)?.content).some((block) => block.type === 'tool_result')) return false;
  return !textOf(entry).startsWith(INTERRUPT_PREFIX);
}

/** The prompt of a turn Claude Code started by itself (BACKGROUND-FACTS.md §2; its origin, 2.1.332). */
function isSelfStarted(entry: ClaudeTranscriptEntry): boolean {
  return isMain(entry, 'user') && (asRecord(entry.data.origin)?.kind === 'task-notification' || entry.data.turnOrigin === 'task_notification');
}

/** Human prompts in order; a repeated entry of the same promptId right after its first one is not a new prompt. */
function humanPrompts(entries: readonly ClaudeTranscriptEntry[]): ClaudeTranscriptEntry[] {
  const prompts = entries.filter(isPrompt);
  return prompts.filter((entry, i) => i === 0 || promptIdOf(entry) === undefined || promptIdOf(prompts[i - 1] as ClaudeTranscriptEntry) !== promptIdOf(entry));
}

/** The entry's text is the prompt sent (as the input box records it). */
const promptMatches = (entry: ClaudeTranscriptEntry, prompt: string) => samePrompt(textOf(entry), prompt, CLAUDE_PROMPT);

/** The entries of one turn: its prompt entry (`start`) and the entries after it (`body`) up to the next prompt (human or self-started) with another promptId. */
export interface ClaudeTurnSlice {
  readonly start: ClaudeTranscriptEntry;
  readonly body: readonly ClaudeTranscriptEntry[];
}

type FindOptions = Pick<ProviderV1ReadTurnOptions, 'turnKey' | 'prompt' | 'ordinal'>;

/** The prompt keyed `turnKey`, or a later one with the prompt's text: a queued prompt's key is the running turn's (CLAUDE-FACTS.md "Transcript"). */
function keyedPrompt(entries: readonly ClaudeTranscriptEntry[], prompts: readonly ClaudeTranscriptEntry[], options: FindOptions) {
  const { turnKey, prompt, ordinal } = options;
  const keyed = entries.find((entry) => isMain(entry, 'user') && promptIdOf(entry) === turnKey);
  const start = keyed && (prompts.find((p) => p.index >= keyed.index && promptIdOf(p) === turnKey) ?? keyed);
  if (start === undefined || prompt === undefined || promptMatches(start, prompt)) return start;
  const later = prompts.filter((p) => p.index > start.index && promptMatches(p, prompt));
  if (later.length > 0) return later.find((p) => prompts.indexOf(p) + 1 === ordinal) ?? later[0];
  return prompts.indexOf(start) + 1 === ordinal ? start : undefined;
}

/** Find a turn (§4 rules 2–3): by `turnKey` ({@link keyedPrompt}), else the `ordinal`-th human prompt; undefined until its prompt is written. */
export function findClaudeTurn(entries: readonly ClaudeTranscriptEntry[], options: FindOptions): ClaudeTurnSlice | undefined {
  const prompts = humanPrompts(entries);
  const start = options.turnKey === undefined ? prompts[options.ordinal - 1] : keyedPrompt(entries, prompts, options);
  if (start === undefined) return undefined;
  const startId = promptIdOf(start);
  const next = entries.find((e) => e.index > start.index && (isPrompt(e) || isSelfStarted(e)) && (startId === undefined || promptIdOf(e) !== startId));
  return { start, body: entries.slice(start.index + 1, next?.index ?? entries.length) };
}

/** The entries of one API message. */
type AssistantGroup = readonly ClaudeTranscriptEntry[];

/** The main conversation's assistant entries grouped by `message.id` (one API message is written as one entry per content block), in order. */
function groupAssistant(body: readonly ClaudeTranscriptEntry[]): AssistantGroup[] {
  const assistant = body.filter((e) => isMain(e, 'assistant'));
  return groupBy(assistant, (e) => stringField(messageOf(e), 'id') ?? `entry:${stringField(e.data, 'uuid') ?? e.index}`);
}

const groupText = (group: AssistantGroup) => group.map(textOf).join('');
const isApiError = (group: AssistantGroup) => group.some((entry) => entry.data.isApiErrorMessage === true);
const isSynthetic = (group: AssistantGroup) => isApiError(group) || group.every((entry) => messageOf(entry)?.model === '<synthetic>');
/** The API message's own record (its last entry carries `stop_reason`, `usage`, `model`). */
const finalOf = (group: AssistantGroup) => messageOf(group.at(-1) as ClaudeTranscriptEntry);

/** The account failure a synthetic API-error entry records (ACCOUNT-FACTS.md §1.2): a plan limit's reset only there. */
function accountOf(entry: Record<string, unknown>, status: number | undefined): ProviderV1AccountError | undefined {
  const info = asRecord(asRecord(entry.apiErrorParams)?.rate_limit_info) ?? asRecord(entry.quotaLimits);
  return accountFailure(accountKindOf(CLAUDE_ERROR_KINDS, stringField(entry, 'error'), status), isoOfEpoch(info?.resetsAt), stringField(info, 'rateLimitType'));
}

/** A turn whose last API message is Claude Code's synthetic API error: its text, `apiErrorStatus`, `apiErrorType`, stop reason, account failure. */
function failedRead(group: AssistantGroup): ProviderV1TurnRead {
  const entry = group.find((e) => e.data.isApiErrorMessage === true)?.data ?? {};
  const error = group.map((e) => stringField(e.data, 'error')).find((value) => value !== undefined);
  const status = Number.isInteger(entry.apiErrorStatus) ? (entry.apiErrorStatus as number) : undefined;
  const message = groupText(group) || (error === undefined ? 'API error' : `API error: ${error}`);
  const details = { apiErrorStatus: status, apiErrorType: stringField(entry, 'apiErrorType'), stopReason: stringField(finalOf(group), 'stop_reason') };
  return definedMembers({ status: 'failed', message, ...details, account: accountOf(entry, status) });
}

/** A completed turn: the last API message's text; the usage, count and model of the real (not synthetic) ones. */
function completedRead(turn: ClaudeTurnSlice, groups: readonly AssistantGroup[]): ProviderV1TurnRead {
  const real = groups.filter((group) => !isSynthetic(group));
  const last = groups.at(-1);
  return definedMembers({
    status: 'completed',
    answer: last === undefined ? '' : groupText(last),
    stopReason: last && stringField(finalOf(last), 'stop_reason'),
    tokenUsage: sumUsage(
      real.map((group) => finalOf(group)?.usage),
      ANTHROPIC_USAGE_NAMES,
    ),
    numTurns: real.length,
    sessionId: stringField(turn.start.data, 'sessionId'),
    model: lastOf(real, (group) => stringField(finalOf(group), 'model')),
  });
}

/** The last tool call of the turn's main conversation, as an activity line. */
function lastToolUse(body: readonly ClaudeTranscriptEntry[]): string | undefined {
  const blocks = body.filter((entry) => isMain(entry, 'assistant')).flatMap((entry) => contentBlocks(messageOf(entry)?.content));
  return lastOf(blocks, (b) => (b.type === 'tool_use' && typeof b.name === 'string' ? toolActivity(b.name, b.input, CLAUDE_TOOL_ARGUMENT) : undefined));
}

/** Read one turn (§4): `missing`, `failed`, `completed`, `interrupted` or `running` as CLAUDE-FACTS.md "Transcript" says. */
export function claudeTurn(entries: readonly ClaudeTranscriptEntry[], options: ProviderV1ReadTurnOptions): ProviderV1TurnRead {
  const turn = findClaudeTurn(entries, options);
  if (turn === undefined) return { status: 'missing' };
  const groups = groupAssistant(turn.body);
  const last = groups.at(-1);
  if (last !== undefined && isApiError(last)) return failedRead(last);
  const ended =
    turn.body.some((entry) => entry.data.type === 'system' && entry.data.subtype === 'turn_duration') ||
    (options.stopSeen &&
      options.stopMessage !== undefined &&
      last !== undefined &&
      !isSynthetic(last) &&
      stringField(finalOf(last), 'stop_reason') !== 'tool_use' &&
      groupText(last) === options.stopMessage);
  if (ended) return completedRead(turn, groups);
  const interrupt = turn.body.find((entry) => isMain(entry, 'user') && textOf(entry).startsWith(INTERRUPT_PREFIX));
  if (interrupt !== undefined) return { status: 'interrupted', message: textOf(interrupt) };
  return definedMembers({ status: 'running', activity: lastToolUse(turn.body) });
}

/** One API message from its per-block entries: their fields (the later win) and all their content blocks. */
function mergedMessage(group: AssistantGroup): Record<string, unknown> {
  const messages = group.map((entry) => messageOf(entry) ?? {});
  const content = messages.flatMap((message) => (Array.isArray(message.content) ? (message.content as unknown[]) : contentBlocks(message.content)));
  return Object.assign({}, ...messages, { content });
}

/** The messages of one turn in `claude -p --output-format stream-json`'s shape (CLAUDE-FACTS.md "Transcript"). Pure. */
export function claudeMessages(entries: readonly ClaudeTranscriptEntry[], options: ProviderV1ReadTurnOptions): ProviderV1Message[] {
  const turn = findClaudeTurn(entries, options);
  if (turn === undefined) return [];
  const groups = new Map(groupAssistant(turn.body).map((group) => [group[0], group]));
  return turn.body.flatMap((entry): ProviderV1Message[] => {
    const group = groups.get(entry);
    const uuid = stringField(entry.data, 'uuid');
    if (group !== undefined) return [definedMembers({ type: 'assistant' as const, message: mergedMessage(group), uuid })];
    if (!isMain(entry, 'user') || entry.data.isMeta === true || isPrompt(entry)) return [];
    return [definedMembers({ type: 'user' as const, message: entry.data.message, uuid })];
  });
}

/** The reader ({@link claudeTurn}, {@link claudeMessages}; parsed once per text), and its unparsed form that parses `options.content` on each call. */
export const CLAUDE_TRANSCRIPT = { parse: parseClaudeTranscript, turn: claudeTurn, messages: claudeMessages };
export const { read: readClaudeTurn, messages: readClaudeMessages } = unparsedReader(CLAUDE_TRANSCRIPT);
