/**
 * Codex's account failures (ACCOUNT-FACTS.md §2.2), from the rollout: `task_complete.error.codex_error_info`
 * is `usage_limit_exceeded` (a plan's usage limit, an exhausted quota) or `unauthorized` (a login
 * that cannot be refreshed), or an object whose `http_status_code` says 429 / 401 / 403. A plan
 * limit's reset is the used-up window (used_percent ≥ 100) of the turn's last
 * `token_count.rate_limits` (`primary` / `secondary`, `resets_at` in epoch seconds). Pure.
 */
import type { ProviderV1AccountError } from '@umbel/provider';
import { accountError, accountErrorOfStatus, asRecord, isoOfEpoch } from '@umbel/provider';

const NAMED: Readonly<Record<string, ProviderV1AccountError['kind']>> = {
  usage_limit_exceeded: 'rate-limited',
  unauthorized: 'auth-failed',
};

/** The HTTP status inside an object-valued codex_error_info (`{response_too_many_failed_attempts:{http_status_code}}`). */
function statusOf(info: Record<string, unknown>): number | undefined {
  for (const value of Object.values(info)) {
    const status = asRecord(value)?.http_status_code;
    if (typeof status === 'number') return status;
  }
  return undefined;
}

/** The latest reset among the used-up windows of a `rate_limits` record, as ISO. */
function usedUpReset(rateLimits: Record<string, unknown> | undefined): string | undefined {
  let latest: number | undefined;
  for (const window of [rateLimits?.primary, rateLimits?.secondary]) {
    const w = asRecord(window);
    if (typeof w?.used_percent !== 'number' || w.used_percent < 100 || typeof w.resets_at !== 'number') continue;
    latest = Math.max(latest ?? 0, w.resets_at);
  }
  return isoOfEpoch(latest);
}

/** The account error a failed turn's `codex_error_info` names, with the reset its `rate_limits` carry. */
export function codexAccountError(info: unknown, rateLimits: Record<string, unknown> | undefined): ProviderV1AccountError | undefined {
  const record = asRecord(info);
  const kind = typeof info === 'string' ? NAMED[info] : record ? accountErrorOfStatus(statusOf(record)) : undefined;
  if (kind !== 'rate-limited') return kind === undefined ? undefined : accountError(kind);
  return accountError(kind, usedUpReset(rateLimits), typeof info === 'string' ? info : undefined);
}
