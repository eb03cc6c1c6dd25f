/**
 * What `umbel -p` leaves after its answer, done off the caller's clock: before it prints the answer,
 * the call hands its worker's removal and its pool's refill to `umbel pool finish --detached` (a
 * process in a session of its own, stdout and stderr ignored, that starts once the call has exited:
 * ./detached.ts), then prints and exits. The job goes on that process's stdin: an env value is never
 * on a command line, in an environment or on disk. Nothing of it can be lost: the detached process
 * takes a pool worker's claim over (a removal that fails stays in `pool status` with its error), a
 * refill records what stopped it (`lastError`), and a worker it never removed — killed, or failing —
 * belongs to a process that is gone, which `umbel prune` removes. The same process fills a
 * `--worktree` spawn's repository reserve (a spare it leaves half-made is removed by the next one or `prune`).
 */
import { type PoolFinishJob, PoolFinishJobSchema, reserveSpare, UmbelError, type Umbel, UsageError, usageFromZod } from '@umbel/core';
import { FINISH_ARGV } from './finish-argv.js';
import type { CliIo } from './io.js';

/** The work a `-p` call hands over (core's `PoolFinishJobSchema`). */
export type FinishJob = PoolFinishJob;

/** The detached process's argv (after the bin). */
export { FINISH_ARGV };

/** Start the detached process with `job`: its pid, or undefined when it could not be started (then the caller does the work). */
export async function handOver(io: CliIo, job: FinishJob): Promise<number | undefined> {
  if (!io.spawnDetached) return undefined;
  return io.spawnDetached(FINISH_ARGV, JSON.stringify(job)).catch(() => undefined);
}

/**
 * Hand `job` over with its pool's refill lock: taken here before the detached process starts and
 * made that process's once its pid is known, so from before this call exits the pool has a refill
 * in flight (a claim that finds no idle worker waits for it instead of starting cold). The lock
 * busy (another refill at work), the refill goes as before. False when nothing was handed over.
 */
export async function handOverWithLock(io: CliIo, engine: Umbel, job: FinishJob): Promise<boolean> {
  const reservation = job.refill ? await engine.pool.reserveRefill({ name: job.refill.name }).catch(() => undefined) : undefined;
  const refill = job.refill && reservation ? { ...job.refill, handedOver: true } : job.refill;
  const pid = await handOver(io, { ...job, ...(refill ? { refill } : {}) });
  if (pid === undefined || (reservation && !(await reservation.handTo(pid).catch(() => false)))) {
    // Not handed: given up (a dead owner's would be broken anyway; this is at once).
    await reservation?.cancel().catch(() => undefined);
  }
  return pid !== undefined;
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
  let json: unknown;
  try {
    json = JSON.parse(text ?? '');
  } catch {
    throw new UsageError('pool finish --detached reads its job as JSON on stdin');
  }
  const parsed = PoolFinishJobSchema.safeParse(json);
  if (!parsed.success) throw usageFromZod(parsed.error, 'pool finish --detached job');
  return parsed.data;
}

/**
 * `pool finish --detached`: the refill and the removal side by side (the refill is what the next call
 * may need). Exit 1 when either failed; what failed is recorded where `pool status` shows it.
 */
export async function runFinish(engine: Umbel, job: FinishJob, signal: AbortSignal): Promise<number> {
  const { handedOver, ...refillOptions } = job.refill ?? { name: '' };
  const refill = job.refill
    ? engine.pool.refill(refillOptions, { signal, ...(handedOver ? { handedOver } : {}) }).then((r) => r.error === undefined)
    : Promise.resolve(true);
  const remove = async (): Promise<boolean> => {
    if (job.worker === undefined) return true;
    if (job.pool === undefined) return purgeWorker(engine, job.worker);
    await engine.pool.release({ pool: job.pool, worker: job.worker, ...(job.claimedBy ? { claimedBy: job.claimedBy } : {}) });
    return true;
  };
  // A --worktree spawn's repository reserve (git/spare.ts): one spare made, unless one is ready or being made.
  const spare = job.spare ? reserveSpare(engine.home, job.spare.repo, job.spare.commit, process.env).then(() => true) : Promise.resolve(true);
  const results = await Promise.allSettled([refill, remove(), spare]);
  return results.every((r) => r.status === 'fulfilled' && r.value) ? 0 : 1;
}
