/**
 * Account failures by a CLI's own error names (Claude Code's and Qwen Code's `rate_limit`,
 * `authentication_failed`): a table of names → kinds, read from a record or a hook payload. Pure.
 */
import type { ProviderV1AccountError } from '../spec.js';
import { accountError, accountErrorOfStatus } from './account.js';
import { stringField } from './json.js';

/** A CLI's error name → the account failure it means. */
export type AccountErrorNames = Readonly<Record<string, ProviderV1AccountError['kind']>>;

/** The kind `error` names; without a name, the HTTP `status`'s (an unknown name is no account failure, whatever the status). */
export function accountKindOf(names: AccountErrorNames, error: string | undefined, status?: number): ProviderV1AccountError['kind'] | undefined {
  if (error === undefined) return accountErrorOfStatus(status);
  return Object.hasOwn(names, error) ? names[error] : undefined;
}

/** The payload fact `account` of an error name in `field` (such a payload carries no reset). */
export function payloadAccountError(field: string, names: AccountErrorNames): (payload: Record<string, unknown>) => ProviderV1AccountError | undefined {
  return (payload) => {
    const kind = accountKindOf(names, stringField(payload, field));
    return kind === undefined ? undefined : accountError(kind);
  };
}
