/**
 * A failed turn's read from what the CLI recorded of the error: its message, the HTTP status and
 * error type when recorded, and an account failure (429, 401/403, or the kind the CLI's own error
 * names). Pure.
 */
import type { ProviderV1AccountError, ProviderV1TurnRead } from '../spec.js';
import { accountError, accountErrorOfStatus } from './account.js';

/** What the CLI recorded of a failed turn's error. */
export interface FailedTurnFacts {
  /** The error's message; when empty or missing, `fallback`. */
  readonly message?: string;
  readonly fallback: string;
  /** The HTTP status (only a number counts). */
  readonly status?: unknown;
  /** The error's type or name (`apiErrorType`). */
  readonly type?: string;
  /** The account failure the CLI's own error names; else the one of the status. */
  readonly account?: ProviderV1AccountError['kind'];
}

/** The `failed` turn read of these facts: `apiErrorStatus`, `apiErrorType` and `account` only when known. */
export function failedTurn(facts: FailedTurnFacts): ProviderV1TurnRead {
  const status = typeof facts.status === 'number' ? facts.status : undefined;
  const kind = facts.account ?? accountErrorOfStatus(status);
  return {
    status: 'failed',
    message: facts.message || facts.fallback,
    ...(status !== undefined ? { apiErrorStatus: status } : {}),
    ...(facts.type ? { apiErrorType: facts.type } : {}),
    ...(kind ? { account: accountError(kind) } : {}),
  };
}
