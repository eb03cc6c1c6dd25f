/** Progress events of a workflow run, and a one-line renderer for a terminal. */

/** What a step is doing. */
export const StepState = {
  /** Blocked on upstream steps (or an earlier step on its worker). */
  Waiting: 'waiting',
  /** Its worker is being spawned. */
  Spawning: 'spawning',
  /** Prompt sent; waiting for the turn (attempt n of the guardrail). */
  Running: 'running',
  /** Accepted. */
  Done: 'done',
  /** Not accepted: the outcome or error ends the run. */
  Failed: 'failed',
  /** Stopped because another step failed (or never started). */
  Cancelled: 'cancelled',
  /** Accepted in an earlier run of a resumed workflow; not run again. */
  Reused: 'reused',
} as const;
export type StepState = (typeof StepState)[keyof typeof StepState];

/** A change of one step. */
export interface StepEvent {
  readonly kind: 'step';
  readonly runId: string;
  readonly step: string;
  /** Worker key (from `workers:`). */
  readonly worker: string;
  /** The engine's worker name (`<run-id>-<worker>`). */
  readonly workerName: string;
  readonly state: StepState;
  /** Guardrail attempt (1-based) while running, and the number of attempts when done/failed. */
  readonly attempt?: number;
  /** Turn number on the worker, once sent. */
  readonly turn?: number;
  /** Since the step started running; for `waiting`, since the run started. */
  readonly elapsedMs: number;
  /** Steps this one is waiting for. */
  readonly waitingFor?: readonly string[];
  /** Outcome reason (or error code) of a failed step. */
  readonly reason?: string;
  readonly exitCode?: number;
  readonly message?: string;
}

/** Start and end of a run. */
export interface RunEvent {
  readonly kind: 'run';
  readonly runId: string;
  readonly state: 'started' | 'completed' | 'failed';
  readonly elapsedMs: number;
  readonly resumed?: boolean;
  readonly runDir?: string;
  readonly failedStep?: string;
  readonly exitCode?: number;
}

/** Everything `onEvent` receives. */
export type WorkflowEvent = StepEvent | RunEvent;

function seconds(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const m = Math.floor(ms / 60_000);
  return `${m}m${Math.round((ms % 60_000) / 1000)}s`;
}

/**
 * One human line for an event, for stderr on a TTY, e.g.
 * `[wf-abc123] review on reviewer: running (attempt 2) 12.3s`.
 */
export function renderProgressLine(event: WorkflowEvent): string {
  if (event.kind === 'run') {
    if (event.state === 'started') return `[${event.runId}] ${event.resumed ? 'resumed' : 'started'}${event.runDir ? ` (${event.runDir})` : ''}`;
    if (event.state === 'completed') return `[${event.runId}] completed in ${seconds(event.elapsedMs)}`;
    return `[${event.runId}] failed at step '${event.failedStep ?? '?'}' after ${seconds(event.elapsedMs)} (exit ${event.exitCode ?? 1})`;
  }
  const head = `[${event.runId}] ${event.step} on ${event.worker}:`;
  switch (event.state) {
    case 'waiting':
      return `${head} waiting for ${(event.waitingFor ?? []).join(', ') || 'its worker'}`;
    case 'spawning':
      return `${head} spawning ${event.workerName}`;
    case 'running':
      return `${head} running${event.attempt && event.attempt > 1 ? ` (attempt ${event.attempt})` : ''}${event.turn ? `, turn ${event.turn}` : ''} ${seconds(event.elapsedMs)}`;
    case 'done':
      return `${head} done in ${seconds(event.elapsedMs)}${event.attempt && event.attempt > 1 ? ` (accepted on attempt ${event.attempt})` : ''}`;
    case 'failed':
      return `${head} failed: ${event.reason ?? 'error'}${event.message ? ` — ${event.message}` : ''} after ${seconds(event.elapsedMs)}`;
    case 'cancelled':
      return `${head} cancelled`;
    case 'reused':
      return `${head} accepted earlier (reused)`;
  }
}
