/** A Gemini turn: the chat's reading (./chat.ts), or a rate limit only the local telemetry beside it shows (GEMINI-FACTS.md: "Telemetry"). Pure. */
import type { ProviderV1ReadTurnOptions, ProviderV1SideRecord, ProviderV1TurnRead } from '@umbel/provider';
import { accountError, asRecord, definedMembers, lastOf, parseJson, rememberLast, valueAt } from '@umbel/provider';
import { chatOptions, type GeminiChat, geminiChatTurn } from './chat.js';
import { TELEMETRY_PATH, WORKER_SETTINGS_PATH } from './home.js';

/** One main-model attempt the telemetry recorded. */
export interface GeminiApiAttempt {
  /** `event.timestamp` (ms). */
  readonly at: number;
  readonly outcome: 'error' | 'response';
  readonly status?: number;
  /** The API error's own message (`error.message` of its body), else the error text. */
  readonly message?: string;
}

function attemptOf(chunk: string): GeminiApiAttempt | undefined {
  // (a chunk that is not JSON: the first record of a tail cut, or one still being written)
  const a = asRecord(asRecord(parseJson(chunk))?.attributes);
  const outcome = /^gemini_cli\.api_(error|response)$/.exec(String(a?.['event.name']))?.[1] as GeminiApiAttempt['outcome'] | undefined;
  const at = Date.parse(String(a?.['event.timestamp']));
  if (!a || !outcome || a.role !== 'main' || Number.isNaN(at)) return undefined;
  // the API error body's own message (`{"error":{"message":…}}`), else the text itself
  const body = typeof a.error === 'string' ? valueAt(parseJson(a.error), ['error', 'message']) : undefined;
  const message = typeof body === 'string' ? body : a.error;
  const status = typeof a.status_code === 'number' ? a.status_code : undefined;
  return definedMembers({ at, outcome, status, message: typeof message === 'string' ? message : undefined });
}

/** The main-model attempts (errors and responses) the telemetry text records, oldest first (the same tail comes back until the next batch). */
export const geminiApiAttempts = rememberLast((text: string): readonly GeminiApiAttempt[] => {
  const chunks = text.split(/\n(?=\{\n)/).filter((chunk) => chunk.includes('"gemini_cli.api_'));
  const attempts = chunks.flatMap((chunk) => attemptOf(chunk) ?? []);
  return Object.freeze(attempts.sort((x, y) => x.at - y.at).map((a) => Object.freeze(a)));
});

/** `general.maxAttempts` of the worker's settings text (the CLI's default 10, and at most 10). */
export function geminiMaxAttempts(settingsText: string | undefined): number {
  const n = valueAt(parseJson(settingsText ?? ''), ['general', 'maxAttempts']);
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? Math.min(n, 10) : 10;
}

/** A round of 429s: the API's message and how many attempts in a row failed so. */
export interface GeminiRateLimitRound {
  readonly message: string;
  readonly attempts: number;
}

/** Whether the CLI has spent a whole round of its retry budget on 429s since `since` (GEMINI-FACTS.md: "Telemetry"). */
export function rateLimitRound(telemetry: string, options: { readonly since: string; readonly maxAttempts: number }): GeminiRateLimitRound | undefined {
  const since = Date.parse(options.since);
  if (Number.isNaN(since) || telemetry === '') return undefined;
  const is429 = (a: GeminiApiAttempt) => a.outcome === 'error' && a.status === 429;
  const attempts = geminiApiAttempts(telemetry).filter((a) => a.at >= since);
  const run = attempts.length - 1 - attempts.findLastIndex((a) => !is429(a));
  const message = lastOf(attempts, (a) => (is429(a) ? a.message : undefined));
  return run >= options.maxAttempts ? { message: message || 'HTTP 429', attempts: run } : undefined;
}

/** What the engine reads beside the chat: the telemetry's tail and the worker's settings (its maxAttempts). */
export const GEMINI_SIDE_RECORDS: readonly ProviderV1SideRecord[] = [
  { name: 'telemetry', path: TELEMETRY_PATH, maxBytes: 4 << 20 },
  { name: 'settings', path: WORKER_SETTINGS_PATH },
];

/** Read a turn: the chat's reading, or a rate limit when the CLI keeps retrying 429s (or was cancelled doing so). */
export function geminiTurn(chat: GeminiChat, options: ProviderV1ReadTurnOptions): ProviderV1TurnRead {
  const read = geminiChatTurn(chat, chatOptions(options));
  const since = chatOptions(options).acceptedAt;
  const telemetry = options.sideRecords?.telemetry;
  if (read.status === 'completed' || read.status === 'failed' || since === undefined || !telemetry) return read;
  const round = rateLimitRound(telemetry, { since, maxAttempts: geminiMaxAttempts(options.sideRecords?.settings) });
  if (!round) return read;
  // still in flight in the chat and no AfterAgent: the CLI goes on retrying until cancelled
  const retrying = (read.status === 'running' && !options.stopSeen) || undefined;
  return definedMembers({ status: 'failed', message: round.message, apiErrorStatus: 429, account: accountError('rate-limited'), retrying });
}
