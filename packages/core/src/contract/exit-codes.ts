/**
 * Every exit-code table of umbel, in one module: an outcome's (`wait`, workflows, fleet events), a
 * typed error's (every face), `umbel -p`'s (claude -p's 1 for a model error) and an interrupt's
 * (128 + the signal's number). The faces read these; none keeps a table of its own.
 */
import { UmbelError, UmbelErrorCode } from './errors.js';
import type { OutcomeReason } from './schemas.js';

/**
 * Exit code of each outcome (upstream-compatible where upstream had one). The account outcomes sit
 * below the wait range (121..127): `rate-limited` 118 (retry after `resetsAt`), `auth-failed` 119
 * (sign in again). `file` and `pattern` are
 * 0 like `completed`, as upstream's were: the condition the caller waited for was met (the reason
 * tells which). `host-unreachable` (120): the worker's host stopped answering during the wait; the
 * worker may still be alive there, and waiting again once the host is back gives its answer.
 */
export const OUTCOME_EXIT_CODES: Readonly<Record<OutcomeReason, number>> = {
  completed: 0,
  file: 0,
  pattern: 0,
  'host-unreachable': 120,
  'rate-limited': 118,
  'auth-failed': 119,
  unknown: 121,
  'provider-error': 122,
  idle: 123,
  timeout: 124,
  dead: 125,
  'needs-input': 126,
  'guardrail-halted': 127,
  aborted: 130,
};

/** `umbel -p`'s exit code of an outcome: claude's 1 for a model error, umbel's codes otherwise. */
export const PRINT_EXIT_CODES: Readonly<Record<OutcomeReason, number>> = { ...OUTCOME_EXIT_CODES, 'provider-error': 1 };

/** What interrupts a command: a signal (SIGHUP: its terminal closed), or `SIGPIPE` when its output can no longer be written. */
export type Interrupt = 'SIGINT' | 'SIGTERM' | 'SIGHUP' | 'SIGPIPE';

/** Exit code of a command ended by an interrupt (128 + the signal's number, as a shell reports it). */
export const INTERRUPT_EXIT_CODES: Readonly<Record<Interrupt, number>> = { SIGHUP: 129, SIGINT: 130, SIGPIPE: 141, SIGTERM: 143 };

/** The exit code for an aborted signal's reason (130 when the reason is not an interrupt). */
export function interruptExitCode(signal: AbortSignal): number {
  return INTERRUPT_EXIT_CODES[signal.reason as Interrupt] ?? 130;
}

/** Exit code of a typed error (one table for every face). Non-umbel errors are 1. */
export function errorExitCode(error: unknown): number {
  if (!UmbelError.isInstance(error)) return 1;
  switch (error.code) {
    case UmbelErrorCode.Usage:
    case UmbelErrorCode.InvalidName:
    case UmbelErrorCode.InvalidDuration:
    case UmbelErrorCode.EnvUnresolved:
    case UmbelErrorCode.ProviderUnknown:
    case UmbelErrorCode.ProviderInvalid:
    case UmbelErrorCode.OptionUnsupported:
    case UmbelErrorCode.CwdMissing:
    case UmbelErrorCode.HomeMismatch:
    case UmbelErrorCode.TurnNotFound:
    case UmbelErrorCode.WorkflowInvalid:
    case UmbelErrorCode.CheckInvalid:
    case UmbelErrorCode.HostUnknown:
    case UmbelErrorCode.PoolMismatch:
    case UmbelErrorCode.WorktreeInvalid:
    case UmbelErrorCode.ResumeUnsupported:
      return 2;
    case UmbelErrorCode.FleetLimit:
      return 117;
    case UmbelErrorCode.SandboxUnavailable:
      return 116;
    case UmbelErrorCode.HostUnreachable:
      return 120;
    case UmbelErrorCode.NotSignedIn:
    case UmbelErrorCode.AccountDialog:
      return 126;
    case UmbelErrorCode.BillingRefused:
      return 3;
    case UmbelErrorCode.WorkerDead:
      return 125;
    case UmbelErrorCode.Aborted:
      return 130;
    default:
      return 1;
  }
}
