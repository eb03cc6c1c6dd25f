/**
 * What `umbel -p` leaves after its answer, done off the caller's clock: the call hands its worker's
 * removal and its pool's refill to `umbel pool finish --detached` (a process in a session of its own,
 * stdout and stderr ignored) and exits. The job goes on that process's stdin: an env value is never
 * on a command line, in an environment or on disk. Nothing of it can be lost: the detached process
 * takes a pool worker's claim over (a removal that fails stays in `pool status` with its error), a
 * refill records what stopped it (`lastError`), and a worker it never removed — killed, or failing —
 * belongs to a process that is gone, which `umbel prune` removes.
 */
import { UmbelError, type Umbel, UsageError } from '@umbel/core';
import type { CliIo } from './io.js';

/** The work a `-p` call hands over. */
export interface FinishJob {
  /** Its anonymous worker, to remove. */
  readonly worker?: string;
  /** The pool it was claimed from, and the pid that claimed it (the `-p` process). */
  readonly pool?: string;
  readonly claimedBy?: number;
  /** The pool to refill, with the values of the call's own --env (its workers get the same). */
  readonly refill?: { readonly name: string; readonly env: Record<string, string> };
}

/** The detached process's argv (after the bin). */
export const FINISH_ARGV = ['pool', 'finish', '--detached'] as const;

/** Start the detached process with `job`; false when it could not be started (then the caller does the work). */
export async function handOver(io: CliIo, job: FinishJob): Promise<boolean> {
  if (!io.spawnDetached) return false;
  return io.spawnDetached(FINISH_ARGV, JSON.stringify(job)).catch(() => false);
}

/**
 * Kill and purge a worker; tried three times. A worker already gone is removed. `keep(error)` may
 * end the tries (a worktree that holds work). False when it is still there.
 */
export async function purgeWorker(engine: Umbel, worker: string, keep?: (error: unknown) => Promise<boolean>): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    try {
      await engine.kill({ name: worker, purge: true });
      return true;
    } catch (error) {
      if (UmbelError.isInstance(error) && error.code === 'UMBEL_WORKER_NOT_FOUND') return true;
      if (attempt >= 3 || (await (keep?.(error) ?? Promise.resolve(false)).catch(() => false))) return false;
    }
  }
}

/** The job on stdin, checked. */
export function parseJob(text: string | undefined): FinishJob {
  let job: unknown;
  try {
    job = JSON.parse(text ?? '');
  } catch {
    job = undefined;
  }
  const j = (job ?? {}) as Record<string, unknown>;
  const optional = (key: string, type: string) => j[key] === undefined || typeof j[key] === type;
  const refill = j.refill as Record<string, unknown> | undefined;
  const ok =
    typeof job === 'object' &&
    optional('worker', 'string') &&
    optional('pool', 'string') &&
    optional('claimedBy', 'number') &&
    (refill === undefined || (typeof refill.name === 'string' && typeof refill.env === 'object' && refill.env !== null));
  if (!ok) throw new UsageError('pool finish --detached reads {"worker"?, "pool"?, "claimedBy"?, "refill"?: {"name", "env"}} on stdin');
  return j as FinishJob;
}

/**
 * `pool finish --detached`: the refill and the removal side by side (the refill is what the next call
 * may need). Exit 1 when either failed; what failed is recorded where `pool status` shows it.
 */
export async function runFinish(engine: Umbel, job: FinishJob, signal: AbortSignal): Promise<number> {
  const refill = job.refill ? engine.pool.refill(job.refill, { signal }).then((r) => r.error === undefined) : Promise.resolve(true);
  const remove = async (): Promise<boolean> => {
    if (job.worker === undefined) return true;
    if (job.pool === undefined) return purgeWorker(engine, job.worker);
    await engine.pool.release({ pool: job.pool, worker: job.worker, ...(job.claimedBy ? { claimedBy: job.claimedBy } : {}) });
    return true;
  };
  const results = await Promise.allSettled([refill, remove()]);
  return results.every((r) => r.status === 'fulfilled' && r.value) ? 0 : 1;
}
