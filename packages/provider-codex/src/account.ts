/** Codex's plan usage (`token_count.rate_limits`) and account errors (`codex_error_info`) in the rollout (ACCOUNT-FACTS.md §2.2). Pure. */
import type { ProviderV1AccountError, ProviderV1Quota } from '@umbel/provider';
import { accountErrorOfStatus, accountFailure, asRecord, quotaWindow, usedUpReset } from '@umbel/provider';

/** Windows by their length, never their slot (that would misreport a plan whose windows differ); other lengths are left out. */
const WINDOW_NAMES: Readonly<Record<number, keyof ProviderV1Quota>> = { 300: 'fiveHour', 10080: 'sevenDay' };
const NAMED: Readonly<Record<string, ProviderV1AccountError['kind']>> = { usage_limit_exceeded: 'rate-limited', unauthorized: 'auth-failed' };
const slots = (rateLimits: unknown) => [asRecord(rateLimits)?.primary, asRecord(rateLimits)?.secondary];

/** The plan usage one `rate_limits` record reports; undefined (never `{}`) when it names no known window. */
export function codexQuota(rateLimits: unknown): ProviderV1Quota | undefined {
  const named = slots(rateLimits).flatMap((slot) => {
    const minutes = asRecord(slot)?.window_minutes;
    const name = typeof minutes === 'number' ? WINDOW_NAMES[minutes] : undefined;
    const window = name && quotaWindow(slot);
    return window ? [[name, window] as const] : [];
  });
  return named.length ? Object.fromEntries(named) : undefined;
}

/** The account error a failed turn's `codex_error_info` names; a plan limit's reset is the latest used-up window's. */
export function codexAccountError(info: unknown, rateLimits: Record<string, unknown> | undefined): ProviderV1AccountError | undefined {
  const status = Object.values(asRecord(info) ?? {}).find((v) => typeof asRecord(v)?.http_status_code === 'number');
  const kind =
    typeof info === 'string' ? NAMED[info] : asRecord(info) ? accountErrorOfStatus(asRecord(status)?.http_status_code as number | undefined) : undefined;
  return accountFailure(kind, usedUpReset(slots(rateLimits).map((w) => quotaWindow(w))), typeof info === 'string' ? info : undefined);
}
