/** Reader for Gemini CLI's chat recording (GEMINI-FACTS.md: "Chat recording", "Account errors"). Pure. */
import type { ProviderV1AccountError, ProviderV1Message, ProviderV1ReadTurnOptions, ProviderV1TurnRead, ProviderV1Usage, UsageTotal } from '@umbel/provider';
import {
  accountError,
  accountErrorOfStatus,
  addUsage,
  assistantMessage,
  functionCallBlocks,
  functionResponseBlocks,
  isRecord,
  jsonLines,
  partsText,
  textBlock,
  toolActivity,
  toolResultsMessage,
  toolUseBlock,
} from '@umbel/provider';

/** One Gemini content part (only the fields umbel reads). */
export interface GeminiPart {
  readonly text?: string;
  readonly thought?: boolean;
  readonly functionCall?: { readonly id?: string; readonly name?: string; readonly args?: unknown };
  readonly functionResponse?: { readonly id?: string; readonly name?: string; readonly response?: unknown };
}

/** One message of the chat, as recorded. */
export interface GeminiChatMessage {
  readonly id: string;
  readonly timestamp?: string;
  readonly type: string;
  readonly content?: string | readonly GeminiPart[];
  readonly displayContent?: string | readonly GeminiPart[];
  readonly tokens?: Readonly<Record<string, number>> | null;
  readonly model?: string;
  readonly toolCalls?: readonly {
    readonly id?: string;
    readonly name?: string;
    readonly args?: unknown;
    readonly status?: string;
    readonly result?: unknown;
  }[];
}

/** A prompt as the CLI first recorded it (its own record, not a copy written by a rewrite). */
export interface GeminiChatPrompt {
  /** Line of the record in the file (0-based). */
  readonly line: number;
  readonly message: GeminiChatMessage;
  /** Still in the chat: not dropped by a later rewrite (cancel, rejection) or rewind. */
  readonly alive: boolean;
  /** For a live prompt: its index among the real prompts of `messages`. */
  readonly index?: number;
  /** Line of the next recorded prompt (dropped ones included), or Infinity. */
  readonly nextLine: number;
  /** `error` messages recorded after this prompt and before the next one (an API error drops the prompt first, then appends these). */
  readonly errors: readonly string[];
}

/** The replayed chat. */
export interface GeminiChat {
  readonly sessionId?: string;
  /** The current message list, after every rewrite. */
  readonly messages: readonly GeminiChatMessage[];
  /** Every prompt the CLI recorded, in order, with whether it survived. */
  readonly prompts: readonly GeminiChatPrompt[];
  /** Line of the last standalone record of each message id. */
  readonly lineOf: ReadonlyMap<string, number>;
}

function asMessage(value: unknown): GeminiChatMessage | undefined {
  if (!isRecord(value) || typeof value.id !== 'string' || typeof value.type !== 'string') return undefined;
  return value as unknown as GeminiChatMessage;
}

/** Positions of the real prompts in `messages`. */
function realPromptPositions(messages: readonly GeminiChatMessage[]): number[] {
  return messages.flatMap((m, i) => (isRealPrompt(m) ? [i] : []));
}

const CANCELLED_RE = /^Request cancelled\.?$/;

/** Replay a chat file like the CLI's own loader, tracking each prompt by its own record (GEMINI-FACTS.md: "Chat recording"). */
export function replayGeminiChat(content: string): GeminiChat {
  const order: string[] = [];
  const byId = new Map<string, GeminiChatMessage>();
  const recorded: { line: number; message: GeminiChatMessage; alive: boolean; errors: string[] }[] = [];
  const lineOf = new Map<string, number>();
  let live: number[] = [];
  const keep = (n: number) => {
    for (const k of live.slice(n)) (recorded[k] as { alive: boolean }).alive = false;
    live = live.slice(0, n);
  };
  let inRewrite = false;
  // after a header (the CLI opening the file: its start, or a `--resume` of it) the `$set.messages`
  // are its loader rebuilding the list, not a rewrite: the list as it stands at the next message counts
  let reloading = false;
  let sessionId: string | undefined;
  const current = () => order.map((id) => byId.get(id)).filter((m): m is GeminiChatMessage => m !== undefined);
  for (const { line: i, value: record } of jsonLines(content)) {
    if ('$rewindTo' in record) {
      const target = record.$rewindTo;
      const at = typeof target === 'string' ? order.indexOf(target) : -1;
      const removed = at === -1 ? order.splice(0) : order.splice(at);
      for (const id of removed) byId.delete(id);
      keep(realPromptPositions(current()).length);
      continue;
    }
    if ('$set' in record) {
      const set = record.$set;
      if (isRecord(set) && Array.isArray(set.messages)) {
        order.length = 0;
        byId.clear();
        for (const raw of set.messages) {
          const m = asMessage(raw);
          if (!m) continue;
          if (!byId.has(m.id)) order.push(m.id);
          byId.set(m.id, m);
        }
        if (!reloading) keep(realPromptPositions(current()).length);
        inRewrite = false;
      }
      if (isRecord(set) && typeof set.sessionId === 'string') sessionId = set.sessionId;
      continue;
    }
    const message = asMessage(record);
    if (message && reloading) {
      reloading = false;
      keep(realPromptPositions(current()).length);
    }
    if (message) {
      const isNew = !byId.has(message.id);
      if (isNew) order.push(message.id);
      byId.set(message.id, message);
      lineOf.set(message.id, i);
      if (message.type === 'error') recorded[recorded.length - 1]?.errors.push(contentText(message.content) || 'error');
      if (message.type === 'info' && CANCELLED_RE.test(contentText(message.content).trim())) inRewrite = true;
      else if (isNew && !inRewrite && isRealPrompt(message)) {
        live.push(recorded.length);
        recorded.push({ line: i, message, alive: true, errors: [] });
      }
      continue;
    }
    if (typeof record.sessionId === 'string') sessionId = record.sessionId;
    if (typeof record.startTime === 'string') reloading = true;
  }
  if (reloading) keep(realPromptPositions(current()).length);
  const messages = current();
  const prompts: GeminiChatPrompt[] = [];
  for (const [k, r] of recorded.entries()) {
    const index = live.indexOf(k);
    const common = { line: r.line, message: r.message, nextLine: recorded[k + 1]?.line ?? Number.POSITIVE_INFINITY, errors: r.errors };
    prompts.push(index === -1 ? { ...common, alive: false } : { ...common, alive: true, index });
  }
  return { ...(sessionId ? { sessionId } : {}), messages, prompts, lineOf };
}

/** Plain text of a content (string, or the non-thought text parts joined). */
export const contentText = (content: GeminiChatMessage['content']): string => partsText(content);

/** The text a user typed, without the CLI's wrappers and @file expansion (GEMINI-FACTS.md: "Chat recording"). */
export function userText(message: GeminiChatMessage): string {
  const content = message.displayContent ?? message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const out: string[] = [];
  for (const p of content) {
    if (typeof p?.text !== 'string' || p.thought) continue;
    const head = p.text.trimStart();
    if (head.startsWith('<session_context>') || head.startsWith('<hook_context>')) continue;
    if (p.text.startsWith('\n--- Content from referenced files ---')) break;
    out.push(p.text);
  }
  return out.join('');
}

/** Whether a message is a real user prompt: a `user` message with typed text. */
export function isRealPrompt(message: GeminiChatMessage): boolean {
  if (message.type !== 'user') return false;
  return userText(message).trim() !== '';
}

/** Normalise a prompt the way the CLI does on submit (it trims). */
export function normalizePrompt(text: string): string {
  return text.trim();
}

/** Options of {@link readGeminiTurn}. */
export interface ReadGeminiTurnOptions {
  /** The prompt as umbel sent it. When absent, the last prompt of the chat is read. */
  readonly prompt?: string;
  /** When the CLI accepted the prompt: the ISO `timestamp` of the BeforeAgent hook payload. */
  readonly acceptedAt?: string;
  /** Whether AfterAgent (umbel's `stop`) fired for this turn. */
  readonly stopSeen: boolean;
}

interface TurnSlice {
  readonly prompt: GeminiChatMessage;
  readonly after: readonly GeminiChatMessage[];
  readonly sessionId?: string;
}

const DROPPED = 'the prompt is no longer in the transcript (the turn was cancelled or its tool call was rejected)';

/** The messages after the prompt at `index`, up to the next prompt; `error`/`info` only when recorded within the turn. */
function sliceAfter(chat: GeminiChat, index: number, own: GeminiChatPrompt): GeminiChatMessage[] {
  const { messages } = chat;
  const after: GeminiChatMessage[] = [];
  for (let i = index + 1; i < messages.length; i++) {
    const m = messages[i] as GeminiChatMessage;
    if (isRealPrompt(m)) break;
    if (m.type === 'error' || m.type === 'info') {
      const line = chat.lineOf.get(m.id);
      if (line === undefined || line < own.line || line >= own.nextLine) continue;
    }
    after.push(m);
  }
  return after;
}

/** Locate the turn; a string is the reason it is not (or not yet) there. */
function locate(chat: GeminiChat, options: ReadGeminiTurnOptions): TurnSlice | GeminiChatPrompt | 'missing' {
  const { messages, prompts } = chat;
  const want = options.prompt === undefined ? undefined : normalizePrompt(options.prompt);
  const base = chat.sessionId ? { sessionId: chat.sessionId } : {};
  const matches = (p: GeminiChatPrompt) => want === undefined || normalizePrompt(userText(p.message)) === want;
  let own: GeminiChatPrompt | undefined;
  if (options.acceptedAt !== undefined) {
    // This turn's record is the first one of this text written after the CLI accepted the prompt.
    const since = Date.parse(options.acceptedAt);
    own = prompts.find((p) => matches(p) && (Number.isNaN(since) || p.message.timestamp === undefined || Date.parse(p.message.timestamp) >= since));
  } else {
    own = [...prompts].reverse().find(matches);
  }
  if (!own) return 'missing';
  if (!own.alive || own.index === undefined) return own;
  const position = realPromptPositions(messages)[own.index];
  if (position === undefined) return own;
  return { ...base, prompt: messages[position] as GeminiChatMessage, after: sliceAfter(chat, position, own) };
}

/** Gemini's token counts → the neutral ones (GEMINI-FACTS.md: "Chat recording"). */
const TOKEN_NAMES: Readonly<Record<string, keyof ProviderV1Usage>> = {
  input: 'inputTokens',
  output: 'outputTokens',
  cached: 'cacheReadTokens',
  thoughts: 'reasoningTokens',
};

const QUOTA_TEXT = /exhausted your daily quota|exceeded your current quota|Usage limit reached|RESOURCE_EXHAUSTED/i;

/** The account error a failed turn's error text shows, if any (GEMINI-FACTS.md: "Account errors"). */
export function geminiAccountError(message: string): ProviderV1AccountError | undefined {
  const body = /\[API Error: ([\s\S]*)\]/.exec(message)?.[1] ?? '';
  const code = /"code"\s*:\s*(\d{3})\b/.exec(body)?.[1];
  const kind = accountErrorOfStatus(code === undefined ? undefined : Number(code));
  if (kind !== undefined) return accountError(kind);
  if (/"reason"\s*:\s*"API_KEY_INVALID"/.test(body)) return accountError('auth-failed');
  return QUOTA_TEXT.test(message) ? accountError('rate-limited') : undefined;
}

/** A failed turn, with the account error its text shows. */
function failed(message: string): ProviderV1TurnRead {
  const account = geminiAccountError(message);
  return { status: 'failed', message, ...(account ? { account } : {}) };
}

/** Read one turn: the `gemini` messages' text after its prompt, or how it failed (GEMINI-FACTS.md: "Chat recording"). */
export function geminiChatTurn(chat: GeminiChat, options: ReadGeminiTurnOptions): ProviderV1TurnRead {
  const found = locate(chat, options);
  if (found === 'missing') {
    return options.stopSeen ? { status: 'interrupted', message: 'the prompt was never recorded in the transcript' } : { status: 'missing' };
  }
  if ('alive' in found) {
    // dropped by a rewrite: an API error (its error follows), or a cancel / rejected tool call
    if (found.errors.length > 0) return options.stopSeen ? failed(found.errors.join('\n')) : { status: 'running' };
    return { status: 'interrupted', message: DROPPED };
  }
  const texts: string[] = [];
  const usage: UsageTotal = {};
  let model: string | undefined;
  let steps = 0;
  let error: string | undefined;
  let cancelled = false;
  let activity: string | undefined;
  for (const m of found.after) {
    if (m.type === 'gemini') {
      steps += 1;
      const t = contentText(m.content);
      if (t !== '') texts.push(t);
      addUsage(usage, m.tokens, TOKEN_NAMES);
      if (m.model) model = m.model;
      const call = m.toolCalls?.[m.toolCalls.length - 1];
      if (call?.name) activity = toolActivity(call.name, call.args, ['command', 'file_path', 'path', 'pattern', 'url']);
    } else if (m.type === 'error') {
      error = contentText(m.content) || 'error';
    } else if (m.type === 'info' && CANCELLED_RE.test(contentText(m.content).trim())) {
      cancelled = true;
    }
  }
  if (!options.stopSeen) return activity ? { status: 'running', activity } : { status: 'running' };
  if (error !== undefined) return failed(error);
  if (cancelled && texts.length === 0) return { status: 'interrupted', message: 'Request cancelled.' };
  return {
    status: 'completed',
    answer: texts.join('\n'),
    ...(Object.keys(usage).length > 0 ? { tokenUsage: usage } : {}),
    numTurns: steps,
    ...(found.sessionId ? { sessionId: found.sessionId } : {}),
    ...(model ? { model } : {}),
  };
}

/**
 * The messages of one turn in Claude's stream-json shape (`{type, message}`): the assistant's
 * text and tool calls, and tool results as user messages.
 */
export function geminiMessages(chat: GeminiChat, options: ReadGeminiTurnOptions): ProviderV1Message[] {
  const found = locate(chat, { ...options, stopSeen: true });
  if (typeof found === 'string' || 'alive' in found) return [];
  const out: ProviderV1Message[] = [];
  for (const m of found.after) {
    if (m.type === 'gemini') {
      const t = contentText(m.content);
      const ids = (m.toolCalls ?? []).map((c) => c.id);
      const calls = (m.toolCalls ?? []).map((call) => toolUseBlock(call.id, call.name, call.args ?? {}));
      const blocks = [...(t !== '' ? [textBlock(t)] : []), ...calls, ...functionCallBlocks(m.content).filter((b) => !ids.includes(b.id as string))];
      if (blocks.length > 0) out.push(assistantMessage(blocks, m.id, m.model ? { model: m.model } : {}));
    } else if (m.type === 'user' && Array.isArray(m.content)) {
      const results = functionResponseBlocks(m.content);
      if (results.length > 0) out.push(toolResultsMessage(results, m.id));
    }
  }
  return out;
}

function isIsoTime(text: string | undefined): text is string {
  return typeof text === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(text) && !Number.isNaN(Date.parse(text));
}

/** The engine's read options as the chat reader takes them: the BeforeAgent timestamp (the turn key) is when the prompt was accepted. */
export function chatOptions(options: ProviderV1ReadTurnOptions): ReadGeminiTurnOptions {
  return {
    ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
    ...(isIsoTime(options.turnKey) ? { acceptedAt: options.turnKey } : {}),
    stopSeen: options.stopSeen,
  };
}

/** {@link geminiChatTurn} of a chat's text. */
export const readGeminiTurn = (content: string, options: ReadGeminiTurnOptions): ProviderV1TurnRead => geminiChatTurn(replayGeminiChat(content), options);
/** {@link geminiMessages} of a chat's text. */
export const readGeminiMessages = (content: string, options: ReadGeminiTurnOptions): ProviderV1Message[] => geminiMessages(replayGeminiChat(content), options);
