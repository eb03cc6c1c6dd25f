/** A failed turn's account error from its kind, with a plan limit's reset and name kept only for a rate limit. Pure. */
import type { ProviderV1AccountError } from '../spec.js';
import { accountError } from './account.js';

/** The account error of `kind` (undefined without one); `resetsAt` and `limit` count only when it is `rate-limited`. */
export function accountFailure(kind: ProviderV1AccountError['kind'] | undefined, resetsAt?: string, limit?: string): ProviderV1AccountError | undefined {
  if (kind === undefined) return undefined;
  return kind === 'rate-limited' ? accountError(kind, resetsAt, limit) : accountError(kind);
}
