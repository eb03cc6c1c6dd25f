/** How a dead worker ended (pure): the launch wrapper's exit record first, then what the host recorded. */
import type { WorkerView } from './ledger-types.js';
import type { PaneState } from '../contract/substrate.js';

/** The facts of a worker's death and a one-line cause. */
export interface DeathFacts {
  readonly status?: number;
  readonly signal?: string;
  readonly byKill: boolean;
  readonly cause: string;
}

/** Derive how the worker ended from its records and the host's answer. */
export function deathFacts(view: Pick<WorkerView, 'death'>, pane: PaneState): DeathFacts {
  const exit: { status?: number; signal?: string } = view.death.exit ?? {};
  const byKill = view.death.dead?.by === 'kill';
  const signal = exit.signal ?? (exit.status === undefined ? pane.signal : undefined);
  const status = exit.status ?? (exit.signal === undefined ? pane.exitStatus : undefined);
  const cause = byKill
    ? 'killed by umbel kill'
    : signal
      ? `killed by ${signal}`
      : status !== undefined
        ? `process exited ${status}`
        : pane.exists
          ? 'process exited, no status recorded'
          : 'its session is gone';
  return { ...(status !== undefined ? { status } : {}), ...(signal ? { signal } : {}), byKill, cause };
}
