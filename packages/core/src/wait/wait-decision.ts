/**
 * What a wait does next (pure): from the worker's ledger view, the transcript's reading of the
 * turn, what the liveness monitor found and the clock, decide an outcome, or to hold (a stop seen,
 * its answer not yet in the transcript; a permission hook seen, its prompt not yet drawn), or to
 * sleep until something changes. The I/O shell around it is ./wait.ts.
 */
import type { TurnView, UsableView } from '../ledger/ledger-types.js';
import type { ProviderV1AccountError, ProviderV1AccountScreen, ProviderV1Quota, ProviderV1TurnRead } from '@umbel/provider';
import type { Outcome, OutcomeReason } from '../contract/schemas.js';
import type { PaneState } from '../contract/substrate.js';
import { formatMs } from '../engine/util.js';
import { guarded } from '../engine/provider-guard.js';

/** How long `wait` looks for a provider's permission prompt on screen after its hook fired. */
export const INPUT_PROMPT_SETTLE_MS = 3000;
/** Longest sleep between two looks (a change wakes the wait sooner). */
export const WAIT_TICK_MS = 500;
/** How often a hold looks again. */
const HOLD_MS = 50;
/**
 * How long the transcript must stay still before a failure or an interrupt it shows alone (no hook
 * ended the turn) is taken as the turn's end: a CLI may write the end in steps (Gemini drops the
 * prompt, then appends the error, then fires its hook), and a busy machine stretches the gaps.
 */
export const TRANSCRIPT_END_SETTLE_MS = 1500;

/** What the liveness monitor found about the worker's host, beside the loop. */
export type MonitorFinding =
  | { readonly dead: PaneState }
  | { readonly signIn: string; readonly screen: string }
  | { readonly account: ProviderV1AccountScreen; readonly screen: string };

/** Everything a decision looks at. */
export interface WaitInput {
  readonly view: UsableView;
  readonly turn: TurnView;
  readonly read: ProviderV1TurnRead;
  readonly now: number;
  readonly deadline: number;
  readonly timeoutMs: number;
  readonly idleTimeoutMs?: number;
  readonly lastChangeAt: number;
  /** As of when the screen was last seen (the monitor's `screenSeenAt`): the idle timeout counts stillness up to it, not to `now`. */
  readonly screenSeenAt?: number;
  /** When the events or the transcript last changed (ms). */
  readonly lastStateChangeAt: number;
  /** When the loop first saw the turn's stop (or its pending permission) while holding for more. */
  readonly stopSeenAt?: number;
  readonly inputSeenAt?: number;
  readonly stopSettleMs: number;
  readonly finding?: MonitorFinding;
  /** The screen, when the decision asked for it (`need-screen`). */
  readonly screen?: string;
}

type Completed = Extract<ProviderV1TurnRead, { status: 'completed' }>;

/** The next step of a wait. */
export type WaitDecision =
  | { readonly kind: 'completed'; readonly read: Completed; readonly message?: string }
  | {
      readonly kind: 'outcome';
      readonly reason: Exclude<OutcomeReason, 'completed' | 'dead'>;
      readonly fields: Partial<Outcome>;
      /** Attach the screen as evidence. */
      readonly withScreen?: boolean;
      /** Record the turn's end (it ended in the transcript alone: no hook fired). */
      readonly recordEnded?: string;
      /** Plan usage the failed turn's transcript recorded (to be kept in the ledger). */
      readonly quota?: ProviderV1Quota;
      /** The CLI is still retrying the failed turn: cancel it (the provider's cancel keys) before reporting, then record it ended. */
      readonly cancel?: boolean;
    }
  | { readonly kind: 'completed-from-stop'; readonly answer: string; readonly message: string }
  | { readonly kind: 'dead'; readonly pane: PaneState }
  /** The turn's process died and the worker was revived since (its `ended` record says `dead`): it stays dead. */
  | { readonly kind: 'died'; readonly message: string }
  | { readonly kind: 'need-screen' }
  | { readonly kind: 'hold'; readonly ms: number; readonly mark: 'stop' | 'input' | 'transcript' }
  | { readonly kind: 'sleep'; readonly ms: number };

type Failed = Extract<ProviderV1TurnRead, { status: 'failed' }>;
type FailureReason = 'provider-error' | ProviderV1AccountError['kind'];

/** The one mapping of a provider's account classification into the outcome: its reason and fields. */
function accountFields(account: ProviderV1AccountError | undefined): { reason: FailureReason; fields: Partial<Outcome> } {
  if (!account) return { reason: 'provider-error', fields: {} };
  return {
    reason: account.kind,
    fields: {
      ...(account.kind === 'rate-limited' && account.resetsAt !== undefined ? { resetsAt: account.resetsAt } : {}),
      ...(account.kind === 'rate-limited' && account.limit !== undefined ? { limit: account.limit } : {}),
    },
  };
}

/** The outcome of a turn the transcript shows failed: its reason, the message and what it says of the API error. */
function failedOutcome(read: Failed, recordEnded?: string): Extract<WaitDecision, { kind: 'outcome' }> {
  const { reason, fields } = accountFields(read.account);
  return {
    kind: 'outcome',
    reason,
    fields: {
      message: read.message,
      ...(read.apiErrorStatus !== undefined ? { apiErrorStatus: read.apiErrorStatus } : {}),
      ...(read.apiErrorType !== undefined ? { apiErrorType: read.apiErrorType } : {}),
      ...(read.stopReason !== undefined ? { stopReason: read.stopReason } : {}),
      ...fields,
    },
    ...(recordEnded !== undefined ? { recordEnded } : {}),
    ...(read.quota ? { quota: read.quota } : {}),
  };
}

function fromHookEnd(input: WaitInput): WaitDecision | undefined {
  const { turn, read } = input;
  const end = turn.end;
  if (!end || end.own) return undefined;
  if (end.kind === 'stop-failure') {
    if (read.status === 'failed') return failedOutcome(read);
    // The transcript lags the hook: hold (as for a stop) for the error message it records with the
    // API's status and type, then fall back to what the hook payload says.
    if (input.now - (input.stopSeenAt ?? input.now) < input.stopSettleMs) return { kind: 'hold', ms: HOLD_MS, mark: 'stop' };
    const { reason, fields } = accountFields(end.info.account);
    return { kind: 'outcome', reason, fields: { message: end.info.error ?? end.info.lastMessage ?? 'the provider reported an error', ...fields } };
  }
  if (end.kind === 'interrupt') return { kind: 'outcome', reason: 'idle', fields: { message: 'the turn was interrupted; the worker waits for input' } };
  // stop: completed once the transcript shows it (Claude fires Stop before the final message lands)
  if (read.status === 'completed') return { kind: 'completed', read };
  if (read.status === 'failed') return failedOutcome(read);
  if (read.status === 'interrupted')
    return { kind: 'outcome', reason: 'idle', fields: { message: read.message ?? 'the turn was interrupted; the worker waits for input' } };
  const since = input.stopSeenAt ?? input.now;
  if (input.now - since < input.stopSettleMs) return { kind: 'hold', ms: HOLD_MS, mark: 'stop' };
  const within = formatMs(input.stopSettleMs);
  if (turn.stopMessage !== undefined) {
    return {
      kind: 'completed-from-stop',
      answer: turn.stopMessage,
      message: `the worker stopped, but its final message was not in the transcript within ${within}; the answer comes from the stop hook`,
    };
  }
  return {
    kind: 'outcome',
    reason: 'unknown',
    withScreen: true,
    fields: {
      message: `turn ${turn.turn} stopped, but no final message reached the transcript within ${within} and the stop hook carried none (transcript: ${input.view.transcript.path ?? 'unknown'}; read: ${read.status})`,
    },
  };
}

function fromTranscript(input: WaitInput): WaitDecision | undefined {
  const { read } = input;
  // CLIs whose errors and interrupts fire no hook: the transcript alone ends the turn
  if (read.status === 'completed') return { kind: 'completed', read };
  // a failure the CLI keeps retrying: nothing else will end the turn
  if (read.status === 'failed' && read.retrying) {
    return { ...failedOutcome(read), cancel: true };
  }
  if ((read.status === 'failed' || read.status === 'interrupted') && input.now - input.lastStateChangeAt < TRANSCRIPT_END_SETTLE_MS) {
    return { kind: 'hold', ms: HOLD_MS * 4, mark: 'transcript' };
  }
  if (read.status === 'failed') return failedOutcome(read, 'failed');
  if (read.status === 'interrupted') {
    return {
      kind: 'outcome',
      reason: 'idle',
      fields: { message: read.message ?? 'the turn was interrupted; the worker waits for input' },
      recordEnded: 'interrupted',
    };
  }
  return undefined;
}

/** Whether the provider sees the permission prompt on `screen` (yes when it cannot tell). */
function promptDrawn(provider: UsableView['provider'], screen: string): boolean {
  if (!provider.doDetectInputPrompt) return true;
  return Boolean(guarded(provider, 'doDetectInputPrompt', () => provider.doDetectInputPrompt?.(screen)));
}

function fromPendingInput(input: WaitInput): WaitDecision | undefined {
  const need = input.turn.pendingInput?.info.needsInput;
  if (!need) return undefined;
  if (input.screen === undefined) return { kind: 'need-screen' };
  const provider = input.view.provider;
  // The hook can fire before the prompt is drawn: keys sent then would be lost.
  if (need.kind === 'permission' && !promptDrawn(provider, input.screen)) {
    const since = input.inputSeenAt ?? input.now;
    if (input.now < Math.min(since + INPUT_PROMPT_SETTLE_MS, input.deadline)) return { kind: 'hold', ms: HOLD_MS, mark: 'input' };
  }
  return {
    kind: 'outcome',
    reason: 'needs-input',
    withScreen: true,
    fields: { inputKind: need.kind, message: need.message ?? `${provider.displayName} is waiting for ${need.kind}`, ...(need.tool ? { tool: need.tool } : {}) },
  };
}

function fromHost(input: WaitInput): WaitDecision | undefined {
  const { view, finding, now } = input;
  // the launch wrapper's exit record (the pane stays for evidence: remain-on-exit), or the monitor's finding
  if (view.death.exit) return { kind: 'dead', pane: { exists: true, dead: true } };
  if (finding && 'dead' in finding) return { kind: 'dead', pane: finding.dead };
  if (finding && 'signIn' in finding) {
    return {
      kind: 'outcome',
      reason: 'needs-input',
      withScreen: true,
      fields: { inputKind: 'sign-in', message: `${view.provider.displayName} shows its sign-in screen: ${finding.signIn.trim()}` },
    };
  }
  if (finding && 'account' in finding) {
    return {
      kind: 'outcome',
      reason: finding.account.kind,
      withScreen: true,
      fields: {
        message: `${view.provider.displayName} shows a blocking dialog: ${finding.account.message} (answer it with umbel keys, or kill the worker)`,
      },
    };
  }
  const seenUntil = Math.min(now, input.screenSeenAt ?? now);
  if (input.idleTimeoutMs !== undefined && seenUntil - input.lastChangeAt >= input.idleTimeoutMs) {
    const seen = now - seenUntil >= 1000 ? `; the screen last captured ${formatMs(now - seenUntil)} ago` : '';
    return {
      kind: 'outcome',
      reason: 'idle',
      withScreen: true,
      fields: { message: `no activity for ${formatMs(now - input.lastChangeAt)} (events, transcript and screen all still${seen})` },
    };
  }
  if (now >= input.deadline) {
    return {
      kind: 'outcome',
      reason: 'timeout',
      withScreen: true,
      fields: { message: `turn ${input.turn.turn} did not end within ${formatMs(input.timeoutMs)}` },
    };
  }
  return undefined;
}

/** Decide the next step of a wait for `input.turn`. */
export function decideWait(input: WaitInput): WaitDecision {
  const own = input.turn.end?.own;
  if (own?.kind === 'ended' && own.data.reason === 'dead') {
    return { kind: 'died', message: own.data.message ?? `worker '${input.view.name}' died before completing turn ${input.turn.turn}` };
  }
  if (input.turn.end && !input.turn.end.own) return fromHookEnd(input) as WaitDecision;
  return (
    fromTranscript(input) ??
    fromPendingInput(input) ??
    fromHost(input) ?? { kind: 'sleep', ms: Math.min(WAIT_TICK_MS, Math.max(1, input.deadline - input.now)) }
  );
}
