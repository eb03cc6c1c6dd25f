/**
 * Fleet limits (`limits` of the settings, `maxWorkers` of one spawn): a spawn counts the live
 * workers and claims its name while holding the state root's fleet lock (`fleet.lock/`, a
 * directory made with mkdir, its owner's pid inside), so concurrent spawns — in one process or
 * many — never overshoot. A claimed worker holds its slot from the claim on: its directory is what
 * the next spawn counts. A lock whose owner died is broken by a rename (of two breakers one wins);
 * a starting worker whose spawner died before launching it holds no slot.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { freemem } from 'node:os';
import { join } from 'node:path';
import { asStateError, mkdirPrivate, writeFileAtomic } from '@umbel/provider';
import type { EngineContext } from '../engine/context.js';
import { FleetLimitError } from '../contract/errors.js';
import type { SpawnContext } from '../contract/umbel.js';
import { loadWorker, workerNames } from '../ledger/ledger.js';
import { pidAlive } from '../engine/process-owner.js';
import { sleep } from '../engine/util.js';
import { fleetPanes, isStarting } from './status.js';

/** How often a queued spawn looks for a free slot. */
const QUEUE_POLL_MS = 250;
/** A lock whose owner file never appeared is stale after this long (its creator died between two calls). */
const OWNERLESS_LOCK_MS = 5_000;

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

function lockIsStale(lock: string): boolean {
  try {
    const pid = Number(JSON.parse(readFileSync(join(lock, 'owner'), 'utf8')).pid);
    return !(Number.isInteger(pid) && pid > 0 && pidAlive(pid));
  } catch {
    try {
      return Date.now() - statSync(lock).mtimeMs > OWNERLESS_LOCK_MS;
    } catch {
      return true; // gone already
    }
  }
}

/** Take the fleet lock (waiting while a live spawn holds it); returns its release. */
async function takeFleetLock(ctx: EngineContext, signal?: AbortSignal): Promise<() => Promise<void>> {
  const lock = join(ctx.home, 'fleet.lock');
  await mkdirPrivate(ctx.home);
  for (let delay = 2; ; delay = Math.min(delay * 2, 50)) {
    try {
      await mkdir(lock, { mode: 0o700 });
      await writeFileAtomic(join(lock, 'owner'), `${JSON.stringify({ pid: process.pid })}\n`);
      return () => rm(lock, { recursive: true, force: true });
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw asStateError(error, lock);
    }
    if (lockIsStale(lock)) {
      const trash = `${lock}.stale-${randomBytes(4).toString('hex')}`;
      if (
        await rename(lock, trash).then(
          () => true,
          () => false,
        )
      )
        await rm(trash, { recursive: true, force: true });
      continue;
    }
    await sleep(delay, signal);
  }
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
