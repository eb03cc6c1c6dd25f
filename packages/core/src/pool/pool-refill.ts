/**
 * refill: bring a pool back to its size. One refill per pool at a time (its lock); it removes the
 * dead, used and orphaned workers, spawns the missing ones (each marked `starting/` before its spawn
 * begins, moved to `idle/` once ready), trims a surplus, and returns. A refill that finds the pool
 * stopped (its directory renamed away) aborts its spawns, which unwind completely, so it never
 * leaves a half-started worker; one that was killed outright leaves `starting/` markers, which the
 * next refill (or `pool stop`) removes with their workers.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { EngineContext } from '../engine/context.js';
import { AbortedError, PoolMismatchError, UmbelError, UmbelErrorCode } from '../contract/errors.js';
import { killWorker } from '../operations/kill.js';
import { type Member, memberStates } from './pool-members.js';
import { differences, envDigest, poolKey } from './pool-key.js';
import {
  addMarker,
  dropHandedLock,
  handLock,
  markers,
  moveMarker,
  type PoolPaths,
  poolPaths,
  poolsDir,
  recordError,
  requireRecord,
  tryLock,
} from './pool-store.js';
import type { RefillReservation } from '../contract/umbel.js';
import { type PoolRecord, type PoolRefillResult, type SpawnOptionsParsed, SpawnOptionsSchema, type EnvMap } from '../contract/schemas.js';
import { plan, spawnWorker } from '../operations/spawn.js';
import { mapLimit } from '../engine/util.js';

/** Spawns one refill runs at once. */
const SPAWN_CONCURRENCY = 4;
/** How often a refill checks that its pool still exists. */
const WATCH_MS = 200;
/** Rounds of one refill call: a claim that raced its last look is caught by the next round. */
const ROUNDS = 3;

const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
const suffix = () => Array.from(randomBytes(6), (b) => alphabet[b % 36]).join('');

/** The spawn options of the pool's workers, with the caller's explicit env. */
export function spawnOptionsOf(record: PoolRecord, env: EnvMap | undefined): SpawnOptionsParsed {
  return SpawnOptionsSchema.parse({
    provider: record.provider,
    cwd: record.cwd,
    ...(record.model ? { model: record.model } : {}),
    ...(record.permissionMode ? { permissionMode: record.permissionMode } : {}),
    ...(record.allowedTools ? { allowedTools: record.allowedTools } : {}),
    ...(record.appendSystemPrompt !== undefined ? { appendSystemPrompt: record.appendSystemPrompt } : {}),
    unattended: record.unattended,
    // Each member its own worktree on umbel/<member>, from the pool's base as it is now.
    ...(record.worktree ? { worktree: { base: record.worktree.base } } : {}),
    ...(record.sandbox ? { sandbox: record.sandbox } : {}),
    ...(record.startupTimeout ? { startupTimeout: record.startupTimeout } : {}),
    ...(env ? { env } : {}),
  });
}

/** The env a refill would give workers must be the pool's: values are not stored, so the caller brings them. */
async function checkEnv(ctx: EngineContext, record: PoolRecord, options: SpawnOptionsParsed): Promise<void> {
  const { worktree: _member, ...rest } = options; // a member's own worktree is no part of the environment
  const p = await plan(ctx, rest);
  const digest = envDigest(await poolKey(ctx.poolKeys, poolsDir(ctx)), p.choices.env);
  const diffs = differences(record, { ...record }, digest);
  if (diffs.length) throw new PoolMismatchError(record.name, diffs);
}

const inode = (dir: string) => {
  try {
    return statSync(dir).ino;
  } catch {
    return undefined;
  }
};

/** Where the pool directory with inode `ino` is now: its name, or where `stop` moved it. */
function dirOf(ctx: EngineContext, name: string, ino: number): string | undefined {
  const here = join(poolsDir(ctx), name);
  if (inode(here) === ino) return here;
  let names: string[] = [];
  try {
    names = readdirSync(poolsDir(ctx)).filter((n) => n.startsWith(`.stopping-${name}-`));
  } catch {
    return undefined;
  }
  return names.map((n) => join(poolsDir(ctx), n)).find((dir) => inode(dir) === ino);
}

/** Remove a member that can never be claimed: its worker (if any) and its marker. */
export async function removeMember(ctx: EngineContext, member: Pick<Member, 'worker' | 'marker'>): Promise<void> {
  await killWorker(ctx, { name: member.worker, purge: true }).catch(() => undefined);
  await rm(member.marker, { force: true });
}

/** One round, under the lock: remove what is dead, then spawn or trim to the size. */
async function round(ctx: EngineContext, paths: PoolPaths, options: SpawnOptionsParsed, signal: AbortSignal, result: Work): Promise<void> {
  const record = requireRecord(paths);
  let idle = 0;
  for (const { member, state } of await memberStates(ctx, paths)) {
    // Under the lock no spawn of this pool is running: every `starting/` marker is an orphan.
    if (member.kind === 'starting' || state.state === 'dead') {
      await removeMember(ctx, member);
      result.removed.push(member.worker);
    } else if (member.kind === 'idle') idle++;
  }
  const surplus = markers(paths.idle).slice(0, Math.max(0, idle - record.size));
  for (const worker of surplus) {
    // Taken back first, so no claim gets it while it is being removed.
    if (!(await moveMarker(join(paths.idle, worker), join(paths.starting, worker)))) continue;
    await removeMember(ctx, { worker, marker: join(paths.starting, worker) });
    result.removed.push(worker);
  }
  const missing = Math.max(0, record.size - idle);
  await mapLimit(Array.from({ length: missing }), SPAWN_CONCURRENCY, async () => {
    if (signal.aborted || result.errors.length) return;
    try {
      const worker = await spawnOne(ctx, paths, options, signal);
      if (worker) result.started.push(worker);
    } catch (error) {
      result.errors.push(error);
    }
  });
}

/** Spawn one pool worker: marked `starting/` first, `idle/` once ready; undefined when the pool went away meanwhile. */
async function spawnOne(ctx: EngineContext, paths: PoolPaths, options: SpawnOptionsParsed, signal: AbortSignal): Promise<string | undefined> {
  const worker = `${paths.name}-${suffix()}`;
  if (!(await addMarker(paths.starting, worker))) return undefined;
  const marker = join(paths.starting, worker);
  try {
    await spawnWorker(ctx, { ...options, name: worker }, { signal });
  } catch (error) {
    await rm(marker, { force: true });
    throw error;
  }
  if (await moveMarker(marker, join(paths.idle, worker))) return worker;
  await killWorker(ctx, { name: worker, purge: true }).catch(() => undefined); // stopped while it started
  return undefined;
}

interface Work {
  readonly started: string[];
  readonly removed: string[];
  readonly errors: unknown[];
}

/** Whether the pool looks short (markers only: no host call). */
function short(paths: PoolPaths): boolean {
  try {
    return markers(paths.idle).length < requireRecord(paths).size;
  } catch {
    return false;
  }
}

/** `handedOver`: this process is being handed the pool's lock (`reserveRefill` in the caller, then its `handTo`). */
type RefillContext = { signal?: AbortSignal; throwErrors?: boolean; maxWorkers?: number; handedOver?: boolean };

/**
 * `pool refill`. The first error a spawn hit is thrown when `throwErrors` (pool start), else reported.
 * Whatever stops it (a spawn, another environment, a broken state file) is recorded as the pool's
 * `lastError`, so a refill nobody watches (the detached one after `umbel -p`) is never lost.
 */
export async function refillPool(ctx: EngineContext, options: { name: string; env?: EnvMap }, context: RefillContext = {}): Promise<PoolRefillResult> {
  const paths = poolPaths(ctx, options.name);
  try {
    return await refillRounds(ctx, paths, options, context);
  } catch (error) {
    const expected = UmbelError.isInstance(error) && (error.code === UmbelErrorCode.Aborted || error.code === UmbelErrorCode.PoolNotFound);
    if (!expected) await recordError(paths, messageOf(error));
    // A lock handed to this process that its refill never got to use: given up, so no claim waits for it.
    if (context.handedOver) await dropHandedLock(paths).catch(() => undefined);
    throw error;
  }
}

async function refillRounds(ctx: EngineContext, paths: PoolPaths, options: { name: string; env?: EnvMap }, context: RefillContext): Promise<PoolRefillResult> {
  const spawnOptions = { ...spawnOptionsOf(requireRecord(paths), options.env), ...(context.maxWorkers ? { maxWorkers: context.maxWorkers } : {}) };
  await checkEnv(ctx, requireRecord(paths), spawnOptions);
  const work: Work = { started: [], removed: [], errors: [] };
  let busy = false;
  for (let n = 0; n < ROUNDS; n++) {
    const release = await tryLock(paths, n === 0 && context.handedOver === true);
    if (!release) {
      busy = n === 0;
      break;
    }
    const ino = inode(paths.dir) as number;
    const controller = new AbortController();
    const stopWatch = watchPool(paths, ino, controller, context.signal);
    try {
      await round(ctx, paths, spawnOptions, controller.signal, work);
    } finally {
      stopWatch();
      // Release the lock where the pool directory is now (stop waits for it there).
      const dir = dirOf(ctx, paths.name, ino);
      if (dir === paths.dir) await release();
      else if (dir) await rm(poolPaths(ctx, paths.name, dir).lock, { recursive: true, force: true });
    }
    if (context.signal?.aborted) throw new AbortedError('refill cancelled');
    if (controller.signal.aborted) {
      work.errors.length = 0; // the pool was stopped: its spawns were cancelled on purpose
      break;
    }
    if (work.errors.length || !short(paths)) break;
  }
  const error = work.errors[0];
  await recordError(paths, error === undefined ? undefined : messageOf(error));
  if (error !== undefined && context.throwErrors) throw error;
  return { pool: paths.name, started: work.started, removed: work.removed, busy, ...(error !== undefined ? { error: messageOf(error) } : {}) };
}

/**
 * Take the pool's refill lock now for a refill another process will run (`handTo(pid)`; it calls
 * refill with `handedOver`). From here until that refill ends the pool has a refill in flight, so a
 * claim that finds no idle worker waits for it instead of starting cold. Undefined when a live refill
 * holds the lock or the pool is gone.
 */
export async function reserveRefill(ctx: EngineContext, name: string): Promise<RefillReservation | undefined> {
  const paths = poolPaths(ctx, name);
  const release = await tryLock(paths).catch((error) => {
    if (UmbelError.isInstance(error) && error.code === UmbelErrorCode.PoolNotFound) return undefined;
    throw error;
  });
  if (!release) return undefined;
  return { handTo: (pid) => handLock(paths, pid), cancel: release };
}

function messageOf(error: unknown): string {
  return UmbelError.isInstance(error) || error instanceof Error ? error.message : String(error);
}

/** Abort the refill's spawns when the caller cancels or the pool's directory is no longer there (stopped). */
function watchPool(paths: PoolPaths, ino: number, controller: AbortController, signal?: AbortSignal): () => void {
  const abort = () => controller.abort();
  signal?.addEventListener('abort', abort, { once: true });
  if (signal?.aborted) abort();
  const timer = setInterval(() => {
    if (inode(paths.dir) !== ino) abort();
  }, WATCH_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    signal?.removeEventListener('abort', abort);
  };
}
