/**
 * An account failure a CLI shows only in an error text (the API's error body it recorded, a quota
 * notice), as data: the HTTP status the text carries, else the first pattern that matches. Pure.
 */
import type { ProviderV1AccountError } from '../spec.js';
import { accountError, accountErrorOfStatus } from './account.js';

/** How an error text shows an account failure. */
export interface AccountTextFacts {
  /** Captures (group 1) the HTTP status the text carries: 429 is rate-limited, 401 and 403 auth-failed. */
  readonly status?: RegExp;
  /** Else the first pattern the text matches names the kind. */
  readonly patterns?: readonly { readonly match: RegExp; readonly kind: ProviderV1AccountError['kind'] }[];
}

/** The account error `text` shows by `facts`, or undefined (a plain error). */
export function accountErrorOfText(text: string, facts: AccountTextFacts): ProviderV1AccountError | undefined {
  const status = facts.status?.exec(text)?.[1];
  const kind = accountErrorOfStatus(status === undefined ? undefined : Number(status)) ?? facts.patterns?.find((p) => p.match.test(text))?.kind;
  return kind === undefined ? undefined : accountError(kind);
}
