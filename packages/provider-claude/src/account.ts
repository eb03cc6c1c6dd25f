/**
 * Claude Code's account failures (ACCOUNT-FACTS.md §1.2): its error names `rate_limit` (every 429,
 * a plan's usage limit included) and `authentication_failed` (401, 403, an expired or revoked
 * login), in the StopFailure payload's `error` and the synthetic transcript entry's `error`. A plan
 * limit's reset is only in that entry: `apiErrorParams.rate_limit_info` or `quotaLimits`
 * (`resetsAt` in epoch seconds, `rateLimitType` five_hour | seven_day). Pure.
 */
import type { ProviderV1AccountError } from '@umbel/provider';
import { accountError, accountErrorOfStatus, asRecord, isoOfEpoch, stringField } from '@umbel/provider';

const ERROR_KINDS: Readonly<Record<string, ProviderV1AccountError['kind']>> = {
  rate_limit: 'rate-limited',
  authentication_failed: 'auth-failed',
};

/** The kind an `error` name (or, without a known name, an HTTP status) means. */
function kindOf(error: string | undefined, status: number | undefined): ProviderV1AccountError['kind'] | undefined {
  if (error !== undefined && error in ERROR_KINDS) return ERROR_KINDS[error];
  return error === undefined ? accountErrorOfStatus(status) : undefined;
}

/** From a StopFailure payload: its `error` name alone (the payload carries no reset). */
export function claudeHookAccountError(payload: Record<string, unknown>): ProviderV1AccountError | undefined {
  const kind = kindOf(stringField(payload, 'error'), undefined);
  return kind === undefined ? undefined : accountError(kind);
}

/** From the synthetic API-error transcript entry: the kind, and a plan limit's reset and window. */
export function claudeAccountError(entry: Record<string, unknown>, status: number | undefined): ProviderV1AccountError | undefined {
  const kind = kindOf(stringField(entry, 'error'), status);
  if (kind !== 'rate-limited') return kind === undefined ? undefined : accountError(kind);
  const info = asRecord(asRecord(entry.apiErrorParams)?.rate_limit_info) ?? asRecord(entry.quotaLimits);
  return accountError(kind, isoOfEpoch(info?.resetsAt), info === undefined ? undefined : stringField(info, 'rateLimitType'));
}
