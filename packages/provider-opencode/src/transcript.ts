/** The worker's transcript as umbel's plugin writes it (./plugin.ts). Pure. opencode-FACTS.md: "Reading a turn" (its shape, and what a turn is). */
import type { ProviderV1Message, ProviderV1ReadTurnOptions, ProviderV1TurnRead } from '@umbel/provider';
import {
  asRecord,
  failedTurn,
  assistantMessage,
  parseJson,
  sumUsage,
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
}

/** A message: its info and its parts. */
export type OpencodeMessage = { readonly info: OpencodeMessageInfo; readonly parts: readonly OpencodePart[] };

/** A stopped turn umbel recorded (the plugin's `umbel.failures`). */
export type UmbelFailure = { readonly name?: string; readonly message?: string; readonly statusCode?: number };

/** The transcript document. */
export interface OpencodeSessionDoc {
  readonly messages: readonly OpencodeMessage[];
  readonly failures: Readonly<Record<string, UmbelFailure>>;
  /** The turns ended when the plugin wrote this copy (`umbel.ended`); undefined without it (opencode-FACTS.md: "Reading a turn"). */
  readonly ended?: readonly string[];
  /** The turns whose end the plugin was delivering when it wrote this copy, their final one (`umbel.ending`). */
  readonly ending?: readonly string[];
}

/** One turn of the document. */
export type OpencodeTurn = { readonly user: OpencodeMessage; readonly steps: readonly OpencodeMessage[]; readonly failure?: UmbelFailure };

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
  const ids = (list: unknown) => (Array.isArray(list) ? list.filter((id): id is string => typeof id === 'string') : undefined);
  const ended = ids(umbel?.ended);
  const ending = ids(umbel?.ending);
  return {
    messages: doc.messages.filter(isMessage),
    failures: (asRecord(umbel?.failures) ?? {}) as Record<string, UmbelFailure>,
    ...(ended ? { ended } : {}),
    ...(ending?.length ? { ending } : {}),
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

/** opencode's usage fields (in each step's info) → the neutral names: the turn's usage sums them over its steps. */
const USAGE_NAMES = {
  'tokens.input': 'inputTokens',
  'tokens.output': 'outputTokens',
  'tokens.reasoning': 'reasoningTokens',
  'tokens.cache.read': 'cacheReadTokens',
  'tokens.cache.write': 'cacheCreationTokens',
  cost: 'costUsd',
} as const;

/** A tool call still running in the last step, as an activity line. */
function runningTool(step: OpencodeMessage | undefined): string | undefined {
  const tool = step?.parts.find((p) => p.type === 'tool' && (p.state?.status === 'running' || p.state?.status === 'pending'));
  return tool && toolActivity(tool.tool ?? 'tool', tool.state?.input, ['command', 'filePath', 'pattern', 'url'], 'colon');
}

function failedOf(turn: OpencodeTurn): ProviderV1TurnRead | undefined {
  const stepError = turn.steps.find((s) => s.info.error && s.info.error.name !== 'MessageAbortedError')?.info.error;
  const failure = turn.failure ?? (stepError ? { name: stepError.name, message: stepError.data?.message, statusCode: stepError.data?.statusCode } : undefined);
  // opencode records the HTTP status only, and no reset time
  return (
    failure && failedTurn({ message: failure.message || failure.name, fallback: 'opencode reported an error', status: failure.statusCode, type: failure.name })
  );
}

/** What the transcript says about one turn. */
export function opencodeTurn(doc: OpencodeSessionDoc | undefined, options: ProviderV1ReadTurnOptions): ProviderV1TurnRead {
  const turn = doc && findOpencodeTurn(doc, options.turnKey, options.ordinal);
  if (!turn) return { status: 'missing' };
  const failed = failedOf(turn);
  if (failed) return failed;
  // its final copy, written before its stop: the turn ends with the hook, never from the file alone (opencode-FACTS.md: "Reading a turn")
  const id = turn.user.info.id;
  if (doc.ending?.includes(id) && !options.stopSeen) return { status: 'running' };
  const last = turn.steps.at(-1);
  const completed = last?.info.time?.completed;
  // aborted, or completed with no finish: Escape twice, an abort (opencode-FACTS.md: "Reading a turn")
  if (last?.info.error?.name === 'MessageAbortedError' || (completed && last?.info.finish === undefined))
    return { status: 'interrupted', message: 'the turn was interrupted; the worker waits for input' };
  if (!last || !completed) {
    const activity = runningTool(last);
    return { status: 'running', ...(activity ? { activity } : {}) };
  }
  if (last.info.finish === 'tool-calls') {
    // opencode-FACTS.md: "Reading a turn" (a turn that ends on a tool step, and which copy says so)
    if (!options.stopSeen || (doc.ended && !doc.ended.includes(id) && !doc.ending?.includes(id))) return { status: 'running' };
    const rejected = last.parts.some((p) => p.type === 'tool' && p.state?.status === 'error');
    const message = rejected ? 'a tool call was rejected; the worker waits for input' : 'the turn ended after a tool call, without an answer';
    return { status: 'interrupted', message };
  }
  const infos = turn.steps.map((s) => s.info);
  return {
    status: 'completed',
    answer: last.parts.filter(isModelText).reduce((text, p) => text + p.text, ''),
    tokenUsage: sumUsage(infos, USAGE_NAMES, { every: true }),
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
