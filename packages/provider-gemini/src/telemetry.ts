/**
 * Gemini CLI's local telemetry file, the one record of each failed API attempt (ACCOUNT-FACTS.md
 * §3.2). With `telemetry: {enabled: true, target: "local", outfile, logPrompts: false}` the CLI
 * appends OpenTelemetry log records (and spans, metrics) to `outfile`, each one pretty-printed JSON
 * (a line `{` to a line `}`), in batches about 5 s apart. Every main-model attempt logs a
 * `gemini_cli.api_request`, then a `gemini_cli.api_error` (attributes `status_code`, `error` = the
 * API's JSON body) or a `gemini_cli.api_response` (`status_code` 200). The TUI retries a 429 in
 * rounds of `general.maxAttempts` attempts forever, showing nothing, and the chat records nothing
 * until it is cancelled: this file is where those attempts are. Pure.
 */
import { asRecord, parseJson } from '@umbel/provider';

/** One main-model attempt the telemetry recorded. */
export interface GeminiApiAttempt {
  /** `event.timestamp` (ms). */
  readonly at: number;
  readonly outcome: 'error' | 'response';
  readonly status?: number;
  /** The API error's own message (`error.message` of its body), else the error text. */
  readonly message?: string;
}

const OUTCOMES: Readonly<Record<string, GeminiApiAttempt['outcome']>> = {
  'gemini_cli.api_error': 'error',
  'gemini_cli.api_response': 'response',
};

/** The API error body's own message (`{"error":{"message":…}}`), else the text itself. */
function errorMessage(text: string): string {
  const message = asRecord(asRecord(parseJson(text))?.error)?.message;
  return typeof message === 'string' ? message : text;
}

function attemptOf(chunk: string): GeminiApiAttempt | undefined {
  // (a chunk that is not JSON: the first record of a tail cut, or one still being written)
  const a = asRecord(asRecord(parseJson(chunk))?.attributes);
  const outcome = a ? OUTCOMES[String(a['event.name'])] : undefined;
  if (!a || !outcome || a.role !== 'main') return undefined;
  const at = Date.parse(String(a['event.timestamp']));
  if (Number.isNaN(at)) return undefined;
  const status = typeof a.status_code === 'number' ? a.status_code : undefined;
  const error = typeof a.error === 'string' ? a.error : undefined;
  return { at, outcome, ...(status !== undefined ? { status } : {}), ...(error !== undefined ? { message: errorMessage(error) } : {}) };
}

/** The last text parsed and its attempts: every wait tick of a running turn hands over the same tail until the next batch (~5 s). */
let last: { readonly text: string; readonly attempts: readonly GeminiApiAttempt[] } | undefined;

/** The main-model attempts (errors and responses) the telemetry text records, oldest first. */
export function geminiApiAttempts(text: string): readonly GeminiApiAttempt[] {
  if (last?.text === text) return last.attempts;
  const attempts = parseAttempts(text);
  last = { text, attempts };
  return attempts;
}

function parseAttempts(text: string): readonly GeminiApiAttempt[] {
  const out: GeminiApiAttempt[] = [];
  for (const chunk of text.split(/\n(?=\{\n)/)) {
    if (!chunk.includes('"gemini_cli.api_')) continue;
    const attempt = attemptOf(chunk);
    if (attempt) out.push(attempt);
  }
  return Object.freeze(out.sort((x, y) => x.at - y.at).map((a) => Object.freeze(a)));
}

/** The CLI's default and highest `general.maxAttempts`. */
const MAX_ATTEMPTS = 10;

/** `general.maxAttempts` of the worker's settings text (the CLI's default 10, and at most 10). */
export function geminiMaxAttempts(settingsText: string | undefined): number {
  const n = asRecord(asRecord(parseJson(settingsText ?? ''))?.general)?.maxAttempts;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? Math.min(n, MAX_ATTEMPTS) : MAX_ATTEMPTS;
}

/** A round of 429s: the API's message and how many attempts in a row failed so. */
export interface GeminiRateLimitRound {
  readonly message: string;
  readonly attempts: number;
}

/**
 * Whether the CLI has spent a whole round of its retry budget on 429s in this turn: at least
 * `maxAttempts` main-model attempts since `since` (when the CLI accepted the prompt) failed with 429
 * in a row, with no answer or other error after them.
 */
export function rateLimitRound(telemetry: string, options: { readonly since: string; readonly maxAttempts: number }): GeminiRateLimitRound | undefined {
  const since = Date.parse(options.since);
  if (Number.isNaN(since) || telemetry === '') return undefined;
  let run = 0;
  let message = '';
  for (const attempt of geminiApiAttempts(telemetry)) {
    if (attempt.at < since) continue;
    if (attempt.outcome === 'error' && attempt.status === 429) {
      run += 1;
      message = attempt.message ?? message;
    } else {
      run = 0;
    }
  }
  return run >= options.maxAttempts ? { message: message || 'HTTP 429', attempts: run } : undefined;
}
