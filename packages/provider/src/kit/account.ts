/**
 * Account failures from what a CLI records: an HTTP status or the CLI's own error name becomes a
 * {@link ProviderV1AccountError}; epoch times become ISO. Pure. Each provider says which of its
 * fields carry these; the engine maps the result once into the outcome.
 */
import type { ProviderV1AccountError } from '../spec.js';

/** `rate-limited` for 429, `auth-failed` for 401 and 403, else undefined (a plain provider error). */
export function accountErrorOfStatus(status: number | undefined): ProviderV1AccountError['kind'] | undefined {
  if (status === 429) return 'rate-limited';
  if (status === 401 || status === 403) return 'auth-failed';
  return undefined;
}

/** An epoch time in seconds (or milliseconds, when it is that large) as ISO, or undefined when it is no time. */
export function isoOfEpoch(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return undefined;
  const ms = value < 1e11 ? value * 1000 : value;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The account error, with `resetsAt` and `limit` only when given. */
export function accountError(kind: ProviderV1AccountError['kind'], resetsAt?: string, limit?: string): ProviderV1AccountError {
  return { kind, ...(resetsAt !== undefined ? { resetsAt } : {}), ...(limit !== undefined ? { limit } : {}) };
}

/** The account error of `kind` (undefined without one); `resetsAt` and `limit` count only when it is `rate-limited` (a failed turn's). */
export function accountFailure(kind: ProviderV1AccountError['kind'] | undefined, resetsAt?: string, limit?: string): ProviderV1AccountError | undefined {
  if (kind === undefined) return undefined;
  return kind === 'rate-limited' ? accountError(kind, resetsAt, limit) : accountError(kind);
}
