/**
 * Gemini CLI's account failures (ACCOUNT-FACTS.md §3.2), from the chat's `error` record: `[API Error:
 * <the API's JSON body>]` whose `code` is 429 / 401 / 403 (or whose ErrorInfo says `API_KEY_INVALID`,
 * a bad key's 400), or the daily-quota text (`You have exhausted your daily quota…`). Gemini records
 * no reset time anywhere, and a retryable 429 never reaches the chat (the TUI keeps retrying). Pure.
 */
import type { ProviderV1AccountError } from '@umbel/provider';
import { accountError, accountErrorOfStatus } from '@umbel/provider';

const QUOTA_TEXT = /exhausted your daily quota|exceeded your current quota|Usage limit reached|RESOURCE_EXHAUSTED/i;

/** The account error a failed turn's error text shows, if any. */
export function geminiAccountError(message: string): ProviderV1AccountError | undefined {
  const body = /\[API Error: ([\s\S]*)\]/.exec(message)?.[1] ?? '';
  const code = /"code"\s*:\s*(\d{3})\b/.exec(body)?.[1];
  const kind = accountErrorOfStatus(code === undefined ? undefined : Number(code));
  if (kind !== undefined) return accountError(kind);
  if (/"reason"\s*:\s*"API_KEY_INVALID"/.test(body)) return accountError('auth-failed');
  return QUOTA_TEXT.test(message) ? accountError('rate-limited') : undefined;
}
