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

/**
 * What each exit code means, for a person (the CLI's help lists them from here): every code of the
 * tables above and of {@link errorExitCode}, in order.
 */
export const EXIT_CODE_MEANINGS: Readonly<Record<number, string>> = {
  0: "success (wait: the turn completed, or --until's file appeared / pattern matched)",
  1: 'error (worker not found, spawn failed, send not submitted, tmux failure; -p: model error; doctor: a provider failed a check)',
  2: 'usage error (bad flag, name, duration, provider, cwd, unresolved --env NAME, unknown --host; revive: the provider cannot resume its conversation)',
  3: '--billing subscription refused a worker that would bill the API (UMBEL_BILLING_REFUSED)',
  116: 'spawn --sandbox: the OS sandbox cannot be had here (UMBEL_SANDBOX_UNAVAILABLE)',
  117: 'spawn, revive, -p, pool start, run: a fleet limit (limits.maxWorkers, --max-workers, limits.minFreeMemoryMB) is reached',
  118: "wait, -p: rate-limited (HTTP 429, a plan's usage limit; resetsAt when recorded)",
  119: 'wait, -p: auth-failed (401/403: the login was refused; sign in again)',
  120: "the worker's host is unreachable (wait: host-unreachable — the worker may still run there; wait again)",
  121: 'wait: unknown (the turn ended, but no answer anywhere)',
  122: 'wait: provider-error',
  123: 'wait: idle',
  124: 'wait: timeout',
  125: 'wait: dead',
  126: 'wait: needs-input (also: spawn found a sign-in screen; API keys are never inherited)',
  127: 'wait: guardrail-halted',
  129: 'SIGHUP (terminal closed)',
  130: 'aborted (SIGINT)',
  141: 'stdout/stderr closed by its reader',
  143: 'SIGTERM',
};
