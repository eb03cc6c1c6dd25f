/**
 * Fleet limits (`limits` of the settings, `maxWorkers` of one spawn): a spawn counts the live
 * workers and claims its name while holding the state root's fleet lock (`fleet.lock/`, an owned
 * lock: engine/owned-lock.ts), so concurrent spawns — in one process or many — never overshoot. A
 * claimed worker holds its slot from the claim on: its directory is what the next spawn counts. A
 * lock whose owner died is broken at once; a starting worker whose spawner died before launching it
 * holds no slot.
 */
import { freemem } from 'node:os';
import { join } from 'node:path';
import { mkdirPrivate } from '@umbel/provider';
import type { EngineContext } from '../engine/context.js';
import { AbortedError, FleetLimitError } from '../contract/errors.js';
import { acquireOwnedLock } from '../engine/owned-lock.js';
import type { SpawnContext } from '../contract/umbel.js';
import { loadWorker, workerNames } from '../ledger/ledger.js';
import { pidAlive } from '../engine/process-owner.js';
import { sleep } from '../engine/util.js';
import { fleetPanes, isStarting } from './status.js';

/** How often a queued spawn looks for a free slot. */
const QUEUE_POLL_MS = 250;

/** The workers that take a slot: a live pane, or a spawn still starting whose spawner lives. */
export async function liveWorkerCount(ctx: EngineContext): Promise<number> {
  const { paneOf } = await fleetPanes(ctx);
  const now = ctx.now();
  let live = 0;
  for (const name of workerNames(ctx)) {
    const view = loadWorker(ctx, name);
    if (!view) continue;
    const pane = await paneOf(view.session);
    if (pane.exists && !pane.dead) live++;
    else if (!pane.exists && isStarting(view, now) && spawnerAlive(view.meta?.spawnPid)) live++;
  }
  return live;
}

function spawnerAlive(pid: number | undefined): boolean {
  return pid === undefined || pidAlive(pid);
}

/** Take the fleet lock (waiting while a live spawn holds it; a dead one's is broken at once); returns its release. */
async function takeFleetLock(ctx: EngineContext, signal?: AbortSignal): Promise<() => Promise<void>> {
  await mkdirPrivate(ctx.home);
  const lock = await acquireOwnedLock(join(ctx.home, 'fleet.lock'), {
    waitMs: Number.POSITIVE_INFINITY,
    ...(signal ? { signal } : {}),
    busy: () => new AbortedError('the fleet lock was never free'),
  });
  return lock.release;
}

/** The refusal a new worker would meet now, if any. */
async function refusal(ctx: EngineContext, maxWorkers: number | undefined, minFreeMB: number | undefined): Promise<FleetLimitError | undefined> {
  const live = await liveWorkerCount(ctx);
  if (maxWorkers !== undefined && live >= maxWorkers) return new FleetLimitError('maxWorkers', maxWorkers, live);
  const freeMB = Math.floor(freemem() / 1024 / 1024);
  if (minFreeMB !== undefined && freeMB < minFreeMB) return new FleetLimitError('minFreeMemoryMB', minFreeMB, live, freeMB);
  return undefined;
}

/**
 * Run `claim` within the fleet limits: at once when none is set; else under the fleet lock once a
 * slot is free. Past a limit: FleetLimitError, or (a caller that may queue, `limits.queue`) wait.
 */
export async function withFleetSlot<T>(ctx: EngineContext, callMaxWorkers: number | undefined, context: SpawnContext, claim: () => Promise<T>): Promise<T> {
  const limits = ctx.settings.limits ?? {};
  const maxWorkers = callMaxWorkers ?? limits.maxWorkers;
  if (maxWorkers === undefined && limits.minFreeMemoryMB === undefined) return claim();
  const queue = limits.queue === true && context.queue === true;
  for (;;) {
    const release = await takeFleetLock(ctx, context.signal);
    try {
      const refused = await refusal(ctx, maxWorkers, limits.minFreeMemoryMB);
      if (!refused) return await claim();
      if (!queue) throw refused;
    } finally {
      await release();
    }
    await sleep(QUEUE_POLL_MS, context.signal);
  }
}
