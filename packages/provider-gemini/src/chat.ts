/** Reader for Gemini CLI's chat recording (GEMINI-FACTS.md: "Chat recording", "Account errors"). Pure. */
import type { ProviderV1Message, ProviderV1ReadTurnOptions, ProviderV1TurnRead } from '@umbel/provider';
import { accountErrorOfText, asRecord, definedMembers, jsonLines, partsMessage, partsText, sumUsage, toolActivity, toolUseBlock } from '@umbel/provider';

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
  readonly toolCalls?: readonly { readonly id?: string; readonly name?: string; readonly args?: unknown }[];
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

/** A message record: an object with a string `id` and `type`. */
const asMessage = (value: unknown) =>
  typeof asRecord(value)?.id === 'string' && typeof asRecord(value)?.type === 'string' ? (value as GeminiChatMessage) : undefined;

/** The CLI's notice of a cancelled request (a rewrite follows it). */
const isCancelNotice = (m: GeminiChatMessage) => m.type === 'info' && /^Request cancelled\.?$/.test(contentText(m.content).trim());

/** A prompt recorded while the chat is replayed. */
type Recorded = { line: number; message: GeminiChatMessage; alive: boolean; errors: string[] };

/** Replay a chat file like the CLI's own loader, tracking each prompt by its own record (GEMINI-FACTS.md: "Chat recording"). */
export function replayGeminiChat(content: string): GeminiChat {
  const list = new Map<string, GeminiChatMessage>(); // by id, in order: a record of a known id keeps its place
  const lineOf = new Map<string, number>();
  const recorded: Recorded[] = [];
  // after a rewrite the first N live prompts survive, N being the prompts of the list
  const keep = () => {
    for (const r of recorded.filter((p) => p.alive).slice([...list.values()].filter(isRealPrompt).length)) r.alive = false;
  };
  let inRewrite = false;
  // after a header (the CLI opening the file, or a `--resume` of it) the `$set.messages` are its loader's, not a rewrite
  let reloading = false;
  let sessionId: string | undefined;
  for (const { line, value: record } of jsonLines(content)) {
    const message = asMessage(record);
    if ('$rewindTo' in record) {
      const ids = [...list.keys()];
      const at = typeof record.$rewindTo === 'string' ? ids.indexOf(record.$rewindTo) : -1;
      for (const id of ids.slice(Math.max(at, 0))) list.delete(id);
      keep();
    } else if ('$set' in record) {
      const set = asRecord(record.$set);
      if (Array.isArray(set?.messages)) {
        list.clear();
        for (const m of set.messages.map(asMessage)) if (m) list.set(m.id, m);
        if (!reloading) keep();
        inRewrite = false;
      }
      if (typeof set?.sessionId === 'string') sessionId = set.sessionId;
    } else if (message) {
      if (reloading) keep();
      reloading = false;
      const isNew = !list.has(message.id);
      list.set(message.id, message);
      lineOf.set(message.id, line);
      if (message.type === 'error') recorded.at(-1)?.errors.push(contentText(message.content) || 'error');
      if (isCancelNotice(message)) inRewrite = true;
      else if (isNew && !inRewrite && isRealPrompt(message)) recorded.push({ line, message, alive: true, errors: [] });
    } else {
      if (typeof record.sessionId === 'string') sessionId = record.sessionId;
      if (typeof record.startTime === 'string') reloading = true;
    }
  }
  if (reloading) keep();
  const live = recorded.filter((r) => r.alive);
  const nextLine = (k: number) => recorded[k + 1]?.line ?? Number.POSITIVE_INFINITY;
  const prompts = recorded.map((r, k) => definedMembers({ ...r, nextLine: nextLine(k), index: r.alive ? live.indexOf(r) : undefined }));
  return definedMembers({ sessionId: sessionId || undefined, messages: [...list.values()], prompts, lineOf });
}

/** Plain text of a content (string, or the non-thought text parts joined). */
export const contentText = (content: GeminiChatMessage['content']): string => partsText(content);

/** The CLI's wrappers around a prompt's parts, and where its @file expansion starts (GEMINI-FACTS.md: "Chat recording"). */
const WRAPPERS = ['<session_context>', '<hook_context>'];
const EXPANSION = '\n--- Content from referenced files ---';

/** The text a user typed, without the CLI's wrappers and @file expansion (GEMINI-FACTS.md: "Chat recording"). */
export function userText(message: GeminiChatMessage): string {
  const content = message.displayContent ?? message.content;
  if (!Array.isArray(content)) return typeof content === 'string' ? content : '';
  const texts = content.flatMap((p: GeminiPart) => (typeof p?.text === 'string' && !p.thought ? [p.text] : []));
  const end = texts.findIndex((t) => t.startsWith(EXPANSION));
  const typed = texts.slice(0, end === -1 ? undefined : end);
  return typed.filter((t) => !WRAPPERS.some((w) => t.trimStart().startsWith(w))).join('');
}

/** Whether a message is a real user prompt: a `user` message with typed text. */
export const isRealPrompt = (message: GeminiChatMessage): boolean => message.type === 'user' && userText(message).trim() !== '';

/** Normalise a prompt the way the CLI does on submit (it trims). */
export const normalizePrompt = (text: string): string => text.trim();

/** Options of {@link readGeminiTurn}. */
export interface ReadGeminiTurnOptions {
  /** The prompt as umbel sent it. When absent, the last prompt of the chat is read. */
  readonly prompt?: string;
  /** When the CLI accepted the prompt: the ISO `timestamp` of the BeforeAgent hook payload. */
  readonly acceptedAt?: string;
  /** Whether AfterAgent (umbel's `stop`) fired for this turn. */
  readonly stopSeen: boolean;
}

/** The turn's own prompt record and, while it is in the chat, the messages after it up to the next prompt (GEMINI-FACTS.md: "Chat recording"). */
function locate(chat: GeminiChat, options: ReadGeminiTurnOptions): { own: GeminiChatPrompt; after?: GeminiChatMessage[] } | undefined {
  const want = options.prompt === undefined ? undefined : normalizePrompt(options.prompt);
  const matches = (p: GeminiChatPrompt) => want === undefined || normalizePrompt(userText(p.message)) === want;
  const since = Date.parse(options.acceptedAt ?? ''); // (NaN: any time)
  const fresh = (p: GeminiChatPrompt) => Number.isNaN(since) || p.message.timestamp === undefined || Date.parse(p.message.timestamp) >= since;
  const own = options.acceptedAt === undefined ? chat.prompts.findLast(matches) : chat.prompts.find((p) => matches(p) && fresh(p));
  const start = own?.index === undefined ? undefined : chat.messages.filter(isRealPrompt)[own.index];
  if (!own || !start) return own && { own };
  const rest = chat.messages.slice(chat.messages.indexOf(start) + 1);
  const end = rest.findIndex(isRealPrompt);
  const within = (line = -1) => line >= own.line && line < own.nextLine; // an error or info is the turn's only when recorded within it
  return { own, after: rest.slice(0, end === -1 ? undefined : end).filter((m) => !['error', 'info'].includes(m.type) || within(chat.lineOf.get(m.id))) };
}

/** Gemini's token counts → the neutral ones (GEMINI-FACTS.md: "Chat recording"). */
const TOKEN_NAMES = { input: 'inputTokens', output: 'outputTokens', cached: 'cacheReadTokens', thoughts: 'reasoningTokens' } as const;

/** A failed turn's account error: the `code` in its `[API Error: <JSON body>]`, a bad key's reason, quota words (GEMINI-FACTS.md: "Account errors"). */
const ACCOUNT_TEXT = {
  status: /\[API Error: [\s\S]*?"code"\s*:\s*(\d{3})\b[\s\S]*\]/,
  patterns: [
    { match: /\[API Error: [\s\S]*"reason"\s*:\s*"API_KEY_INVALID"[\s\S]*\]/, kind: 'auth-failed' },
    { match: /exhausted your daily quota|exceeded your current quota|Usage limit reached|RESOURCE_EXHAUSTED/i, kind: 'rate-limited' },
  ],
} as const;

/** The account error a failed turn's error text shows, if any. */
export const geminiAccountError = (message: string) => accountErrorOfText(message, ACCOUNT_TEXT);

/** A failed turn, with the account error its text shows. */
const failed = (message: string): ProviderV1TurnRead => definedMembers({ status: 'failed', message, account: geminiAccountError(message) });

/** The arguments a running tool call is shown by. */
const ACTIVITY_ARGS = ['command', 'file_path', 'path', 'pattern', 'url'];

/** Read one turn: the `gemini` messages' text after its prompt, or how it failed (GEMINI-FACTS.md: "Chat recording"). */
export function geminiChatTurn(chat: GeminiChat, options: ReadGeminiTurnOptions): ProviderV1TurnRead {
  const found = locate(chat, options);
  if (!found) return options.stopSeen ? { status: 'interrupted', message: 'the prompt was never recorded in the transcript' } : { status: 'missing' };
  const { own, after } = found;
  // dropped by a rewrite: an API error (its error follows), or a cancel / rejected tool call
  if (!after && own.errors.length > 0) return options.stopSeen ? failed(own.errors.join('\n')) : { status: 'running' };
  if (!after) return { status: 'interrupted', message: 'the prompt is no longer in the transcript (the turn was cancelled or its tool call was rejected)' };
  const steps = after.filter((m) => m.type === 'gemini');
  const texts = steps.map((m) => contentText(m.content)).filter((t) => t !== '');
  const call = steps.flatMap((m) => m.toolCalls?.slice(-1) ?? []).findLast((c) => c.name);
  if (!options.stopSeen) return definedMembers({ status: 'running', activity: call?.name && toolActivity(call.name, call.args, ACTIVITY_ARGS) });
  const error = after.findLast((m) => m.type === 'error');
  if (error) return failed(contentText(error.content) || 'error');
  if (texts.length === 0 && after.some(isCancelNotice)) return { status: 'interrupted', message: 'Request cancelled.' };
  const tokens = steps.map((m) => m.tokens);
  const tokenUsage = sumUsage(tokens, TOKEN_NAMES);
  const model = steps.findLast((m) => m.model)?.model;
  return definedMembers({ status: 'completed', answer: texts.join('\n'), tokenUsage, numTurns: steps.length, sessionId: chat.sessionId, model });
}

/** One message of a turn in Claude's stream-json shape: the assistant's text and tool calls, or tool results. */
function streamMessage(m: GeminiChatMessage): ProviderV1Message | undefined {
  if (m.type === 'user') return partsMessage('user', m.content, { uuid: m.id });
  const calls = (m.toolCalls ?? []).map((call) => toolUseBlock(call.id, call.name, call.args ?? {}));
  return m.type === 'gemini' ? partsMessage('model', m.content, definedMembers({ uuid: m.id, model: m.model || undefined, calls })) : undefined;
}

/** The messages of one turn (after its prompt) in Claude's stream-json shape. */
export function geminiMessages(chat: GeminiChat, options: ReadGeminiTurnOptions): ProviderV1Message[] {
  return (locate(chat, options)?.after ?? []).flatMap((m) => streamMessage(m) ?? []);
}

/** The engine's read options as the chat reader takes them: the BeforeAgent timestamp (the turn key) is when the prompt was accepted. */
export function chatOptions({ prompt, turnKey, stopSeen }: ProviderV1ReadTurnOptions): ReadGeminiTurnOptions {
  const accepted = typeof turnKey === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(turnKey) && !Number.isNaN(Date.parse(turnKey));
  return definedMembers({ prompt, acceptedAt: accepted ? turnKey : undefined, stopSeen });
}

/** {@link geminiChatTurn} of a chat's text. */
export const readGeminiTurn = (content: string, options: ReadGeminiTurnOptions): ProviderV1TurnRead => geminiChatTurn(replayGeminiChat(content), options);
/** {@link geminiMessages} of a chat's text. */
export const readGeminiMessages = (content: string, options: ReadGeminiTurnOptions): ProviderV1Message[] => geminiMessages(replayGeminiChat(content), options);
