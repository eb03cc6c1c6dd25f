/**
 * The worker's transcript: opencode's stored session as umbel's plugin writes it (./plugin.ts) —
 * `{info, messages: [{info, parts}], umbel?: {failures}}`, the shape of `opencode export <id>` plus
 * the turns umbel stopped. An `opencode export` document reads the same. Pure.
 *
 * A turn is one user message (found by its id, the turn key the `prompt` event carries, else as the
 * n-th user message) and the assistant messages whose `parentID` is that id — one per model step
 * (a tool step ends with `finish: "tool-calls"`, the answer's with `"stop"`). FACTS.md §b, §c:
 * - failed: an assistant message carries `info.error` (`APIError` …), or umbel stopped the turn;
 * - interrupted: the last step completed with no finish (Escape twice, an abort), or the turn ended
 *   right after a tool step (a rejected permission: the tool part's state is `error`);
 * - completed: the last step completed with a finish other than `tool-calls`; the answer is that
 *   step's text parts, byte-exact (the screen renders markdown; it is never read).
 */
import type { ProviderV1Message, ProviderV1ReadTurnOptions, ProviderV1TurnRead, ProviderV1Usage } from '@umbel/provider';
import {
  accountError,
  accountErrorOfStatus,
  asRecord,
  assistantMessage,
  parseJson,
  textBlock,
  toolResultBlock,
  toolResultsMessage,
  toolActivity,
  toolUseBlock,
} from '@umbel/provider';

/** One part of a message (text, tool, step-start, step-finish, reasoning, …). */
export interface OpencodePart {
  readonly type: string;
  readonly text?: string;
  readonly synthetic?: boolean;
  readonly ignored?: boolean;
  readonly tool?: string;
  readonly callID?: string;
  readonly state?: { readonly status?: string; readonly input?: unknown; readonly output?: string; readonly error?: string };
  readonly [key: string]: unknown;
}

/** A message's info (user or assistant). */
export interface OpencodeMessageInfo {
  readonly id: string;
  readonly role: 'user' | 'assistant' | string;
  readonly sessionID?: string;
  readonly parentID?: string;
  readonly finish?: string;
  readonly modelID?: string;
  readonly providerID?: string;
  readonly time?: { readonly created?: number; readonly completed?: number };
  readonly error?: { readonly name?: string; readonly data?: { readonly message?: string; readonly statusCode?: number } };
  readonly cost?: number;
  readonly tokens?: {
    readonly input?: number;
    readonly output?: number;
    readonly reasoning?: number;
    readonly cache?: { readonly read?: number; readonly write?: number };
  };
}

export interface OpencodeMessage {
  readonly info: OpencodeMessageInfo;
  readonly parts: readonly OpencodePart[];
}

/** A stopped turn umbel recorded (the plugin's `umbel.failures`). */
export interface UmbelFailure {
  readonly name?: string;
  readonly message?: string;
  readonly statusCode?: number;
}

/** The transcript document. */
export interface OpencodeSessionDoc {
  readonly info?: { readonly id?: string; readonly [key: string]: unknown };
  readonly messages: readonly OpencodeMessage[];
  readonly failures: Readonly<Record<string, UmbelFailure>>;
  /**
   * The turns opencode had ended when the plugin wrote this copy (`umbel.ended`); undefined for a
   * document without it (`opencode export`, an older plugin): then the stop hook alone says so.
   */
  readonly ended?: readonly string[];
}

/** One turn of the document. */
export interface OpencodeTurn {
  readonly user: OpencodeMessage;
  readonly steps: readonly OpencodeMessage[];
  readonly failure?: UmbelFailure;
}

function isMessage(value: unknown): value is OpencodeMessage {
  const m = asRecord(value);
  const info = asRecord(m?.info);
  return !!info && typeof info.id === 'string' && typeof info.role === 'string' && Array.isArray(m?.parts);
}

/** Parse the document; undefined when the text is not one (empty, half-written, another format). */
export function parseSessionDoc(content: string): OpencodeSessionDoc | undefined {
  const doc = asRecord(parseJson(content));
  if (!doc || !Array.isArray(doc.messages)) return undefined;
  const umbel = asRecord(doc.umbel);
  const failures = asRecord(umbel?.failures) ?? {};
  const ended = Array.isArray(umbel?.ended) ? umbel.ended.filter((id): id is string => typeof id === 'string') : undefined;
  return {
    ...(asRecord(doc.info) ? { info: doc.info as OpencodeSessionDoc['info'] } : {}),
    messages: doc.messages.filter(isMessage),
    failures: failures as Record<string, UmbelFailure>,
    ...(ended ? { ended } : {}),
  };
}

/** The turn with the user message `turnKey`, else the `ordinal`-th user message; undefined when not there. */
export function findOpencodeTurn(doc: OpencodeSessionDoc, turnKey: string | undefined, ordinal: number): OpencodeTurn | undefined {
  const users = doc.messages.filter((m) => m.info.role === 'user');
  const user = turnKey !== undefined ? users.find((m) => m.info.id === turnKey) : users[ordinal - 1];
  if (!user) return undefined;
  const steps = doc.messages.filter((m) => m.info.role === 'assistant' && m.info.parentID === user.info.id);
  const failure = doc.failures[user.info.id];
  return { user, steps, ...(failure ? { failure } : {}) };
}

/** A text part the model wrote (synthetic and ignored parts are not the model's). */
const isModelText = (p: OpencodePart): p is OpencodePart & { text: string } => p.type === 'text' && typeof p.text === 'string' && !p.synthetic && !p.ignored;

/** The text parts of a message, byte-exact. */
export function textOf(message: OpencodeMessage): string {
  return message.parts
    .filter(isModelText)
    .map((p) => p.text)
    .join('');
}

/** The turn's usage in umbel's neutral names, summed over its steps (as opencode counts them). */
export function usageOf(steps: readonly OpencodeMessage[]): ProviderV1Usage {
  const sum = (pick: (m: OpencodeMessageInfo) => number | undefined) => steps.reduce((n, m) => n + (pick(m.info) ?? 0), 0);
  return {
    inputTokens: sum((m) => m.tokens?.input),
    outputTokens: sum((m) => m.tokens?.output),
    reasoningTokens: sum((m) => m.tokens?.reasoning),
    cacheReadTokens: sum((m) => m.tokens?.cache?.read),
    cacheCreationTokens: sum((m) => m.tokens?.cache?.write),
    costUsd: sum((m) => m.cost),
  };
}

/** A tool call still running in the last step, as an activity line. */
function runningTool(step: OpencodeMessage | undefined): string | undefined {
  const tool = step?.parts.find((p) => p.type === 'tool' && (p.state?.status === 'running' || p.state?.status === 'pending'));
  return tool && toolActivity(tool.tool ?? 'tool', tool.state?.input, ['command', 'filePath', 'pattern', 'url'], 'colon');
}

function failedOf(turn: OpencodeTurn): ProviderV1TurnRead | undefined {
  const stepError = turn.steps.find((s) => s.info.error && s.info.error.name !== 'MessageAbortedError')?.info.error;
  const failure = turn.failure ?? (stepError ? { name: stepError.name, message: stepError.data?.message, statusCode: stepError.data?.statusCode } : undefined);
  if (!failure) return undefined;
  const status = typeof failure.statusCode === 'number' ? failure.statusCode : undefined;
  // opencode records the HTTP status only, and no reset time
  const account = accountErrorOfStatus(status);
  return {
    status: 'failed',
    message: failure.message || failure.name || 'opencode reported an error',
    ...(status !== undefined ? { apiErrorStatus: status } : {}),
    ...(failure.name ? { apiErrorType: failure.name } : {}),
    ...(account ? { account: accountError(account) } : {}),
  };
}

/** What the transcript says about one turn. */
export function opencodeTurn(doc: OpencodeSessionDoc | undefined, options: ProviderV1ReadTurnOptions): ProviderV1TurnRead {
  const turn = doc && findOpencodeTurn(doc, options.turnKey, options.ordinal);
  if (!turn) return { status: 'missing' };
  const failed = failedOf(turn);
  if (failed) return failed;
  const last = turn.steps.at(-1);
  if (last?.info.error?.name === 'MessageAbortedError') return { status: 'interrupted', message: 'the turn was interrupted; the worker waits for input' };
  if (!last?.info.time?.completed) {
    const activity = runningTool(last);
    return { status: 'running', ...(activity ? { activity } : {}) };
  }
  if (last.info.finish === 'tool-calls') {
    // the turn goes on with another step, unless opencode went idle here (a rejected permission).
    // The stop hook is delivered before the plugin writes the turn's final copy: a copy that does not
    // yet record the turn as ended is the one from after the tool step, and the answer may follow.
    if (!options.stopSeen || (doc.ended && !doc.ended.includes(turn.user.info.id))) return { status: 'running' };
    const rejected = last.parts.some((p) => p.type === 'tool' && p.state?.status === 'error');
    return {
      status: 'interrupted',
      message: rejected ? 'a tool call was rejected; the worker waits for input' : 'the turn ended after a tool call, without an answer',
    };
  }
  if (last.info.finish === undefined) return { status: 'interrupted', message: 'the turn was interrupted; the worker waits for input' };
  return {
    status: 'completed',
    answer: textOf(last),
    tokenUsage: usageOf(turn.steps),
    numTurns: turn.steps.length,
    ...(turn.user.info.sessionID ? { sessionId: turn.user.info.sessionID } : {}),
    ...(last.info.modelID ? { model: last.info.providerID ? `${last.info.providerID}/${last.info.modelID}` : last.info.modelID } : {}),
    stopReason: last.info.finish,
  };
}

/** The turn's messages for stream output, in Claude's stream-json shape: text, tool calls and their results. */
export function opencodeMessages(doc: OpencodeSessionDoc | undefined, options: ProviderV1ReadTurnOptions): ProviderV1Message[] {
  const turn = doc && findOpencodeTurn(doc, options.turnKey, options.ordinal);
  if (!turn) return [];
  const out: ProviderV1Message[] = [];
  for (const step of turn.steps) {
    for (const part of step.parts) {
      if (isModelText(part) && part.text !== '') {
        out.push(assistantMessage([textBlock(part.text)], step.info.id));
      } else if (part.type === 'tool' && (part.state?.status === 'completed' || part.state?.status === 'error')) {
        out.push(assistantMessage([toolUseBlock(part.callID, part.tool, part.state.input ?? {})], step.info.id));
        const isError = part.state.status === 'error';
        out.push(toolResultsMessage([toolResultBlock(part.callID, (isError ? part.state.error : part.state.output) ?? '', isError)]));
      }
    }
  }
  return out;
}

/** {@link opencodeTurn} of `options.content`, parsed. */
export const readOpencodeTurn = (options: ProviderV1ReadTurnOptions): ProviderV1TurnRead => opencodeTurn(parseSessionDoc(options.content), options);
/** {@link opencodeMessages} of `options.content`, parsed. */
export const readOpencodeMessages = (options: ProviderV1ReadTurnOptions): ProviderV1Message[] => opencodeMessages(parseSessionDoc(options.content), options);
