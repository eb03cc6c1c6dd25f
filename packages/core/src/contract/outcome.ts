/**
 * The one outcome constructor: every outcome (a wait's, a guardrail's, a condition's, a remote
 * wait's that ended here, `umbel -p`'s) is made here, its exit code taken from its reason.
 */
import { OUTCOME_EXIT_CODES } from './exit-codes.js';
import type { Outcome, OutcomeReason } from './schemas.js';

/** What an outcome is made of: its fields, or another outcome (whose reason and exit code are replaced). */
export type OutcomeParts = Omit<Outcome, 'reason' | 'exitCode' | 'result'> & {
  readonly result?: string;
  readonly reason?: OutcomeReason;
  readonly exitCode?: number;
};

/** The outcome of `reason` with `parts`, its exit code from `OUTCOME_EXIT_CODES`. */
export function outcomeOf(reason: OutcomeReason, parts: OutcomeParts): Outcome {
  return { ...parts, reason, exitCode: OUTCOME_EXIT_CODES[reason] } as Outcome;
}
