/**
 * One Gemini turn from the CLI's records: the chat (./chat.ts) says what the turn answered or how it
 * failed; for a turn the chat shows unfinished or cancelled, the telemetry beside it (./telemetry.ts)
 * says whether the CLI spent a whole round of its retry budget (`general.maxAttempts` of the worker
 * settings) on 429s — the TUI then retries forever and shows nothing (ACCOUNT-FACTS.md §3.2). Pure.
 */
import type { ProviderV1ReadTurnOptions, ProviderV1SideRecord, ProviderV1TurnRead } from '@umbel/provider';
import { accountError } from '@umbel/provider';
import { chatOptions, type GeminiChat, geminiChatTurn } from './chat.js';
import { TELEMETRY_PATH, WORKER_SETTINGS_PATH } from './home.js';
import { geminiMaxAttempts, rateLimitRound } from './telemetry.js';

/**
 * What the engine reads beside the chat: the telemetry's tail (a round of 10 attempts logs about
 * 1.5 MB with the spans and metrics) and the worker's settings (its maxAttempts).
 */
export const GEMINI_SIDE_RECORDS: readonly ProviderV1SideRecord[] = [
  { name: 'telemetry', path: TELEMETRY_PATH, maxBytes: 4 << 20 },
  { name: 'settings', path: WORKER_SETTINGS_PATH },
];

/** Read a turn: the chat's reading, or a rate limit when the CLI keeps retrying 429s (or was cancelled doing so). */
export function geminiTurn(chat: GeminiChat, options: ProviderV1ReadTurnOptions): ProviderV1TurnRead {
  const read = geminiChatTurn(chat, chatOptions(options));
  if (read.status === 'completed' || read.status === 'failed') return read;
  const since = chatOptions(options).acceptedAt;
  const telemetry = options.sideRecords?.telemetry;
  if (since === undefined || !telemetry) return read;
  const round = rateLimitRound(telemetry, { since, maxAttempts: geminiMaxAttempts(options.sideRecords?.settings) });
  if (!round) return read;
  return {
    status: 'failed',
    message: round.message,
    apiErrorStatus: 429,
    account: accountError('rate-limited'),
    // still in flight in the chat and no AfterAgent: the CLI goes on retrying until cancelled
    ...(read.status === 'running' && !options.stopSeen ? { retrying: true } : {}),
  };
}
