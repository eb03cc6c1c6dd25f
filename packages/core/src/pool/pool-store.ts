/**
 * A pool's files. Membership is a marker file per worker in the directory of its state, and every
 * transition is one rename, so it is atomic and two processes never both win it:
 *
 *   pools/<name>/pool.json               the record (PoolRecordSchema), atomic temp+rename
 *   pools/<name>/starting/<worker>       a refill is spawning it (written before the spawn starts)
 *   pools/<name>/idle/<worker>           ready and never used: the only markers a claim takes
 *   pools/<name>/claimed/<worker>@<pid>  taken by process <pid> (rename from idle/: one winner)
 *   pools/<name>/refill.lock/owner       the one refill at work (../engine/owned-lock.ts: pid and start time); a dead owner's lock is broken.
 *                                        `umbel -p` takes it before it exits and hands it to its detached refill (a refill in flight from then on)
 *   pools/<name>/last-error              why the last refill could not start a worker
 *
 * Markers are created with O_EXCL in an existing directory, never with `mkdir -p`: a pool that
 * `stop` renamed away cannot be re-created by a refill or a claim still running.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { readStateFile, readStateFileSync } from '../engine/state-file.js';
import { pidAlive } from '../engine/process-owner.js';
import { acquireOwnedLock, adoptOwnedLock, handOwnedLock, liveOwner } from '../engine/owned-lock.js';
import { join } from 'node:path';
import type { EngineContext } from '../engine/context.js';
import { PoolCorruptError, PoolNotFoundError } from '../contract/errors.js';
import { asStateError, writeFileAtomic } from '@umbel/provider';
import { type PoolRecord, PoolRecordSchema } from '../contract/schemas.js';

export { pidAlive };

/** The files of one pool. */
export interface PoolPaths {
  readonly name: string;
  readonly dir: string;
  readonly record: string;
  readonly starting: string;
  readonly idle: string;
  readonly claimed: string;
  readonly lock: string;
  readonly lastError: string;
}

/** `pools/` under the state root. */
export function poolsDir(ctx: EngineContext): string {
  return join(ctx.home, 'pools');
}

/** The paths of pool `name` (or of a pool directory `dir` that stop moved away). */
export function poolPaths(ctx: EngineContext, name: string, dir = join(poolsDir(ctx), name)): PoolPaths {
  return {
    name,
    dir,
    record: join(dir, 'pool.json'),
    starting: join(dir, 'starting'),
    idle: join(dir, 'idle'),
    claimed: join(dir, 'claimed'),
    lock: join(dir, 'refill.lock'),
    lastError: join(dir, 'last-error'),
  };
}

/** Names of every pool (directories being created or stopped excluded), sorted. */
export function poolNames(ctx: EngineContext): string[] {
  try {
    return readdirSync(poolsDir(ctx))
      .filter((n) => !n.startsWith('.'))
      .sort();
  } catch {
    return [];
  }
}

/** The pool's record; undefined when the pool does not exist; PoolCorruptError when it cannot be used. */
export function readRecord(paths: PoolPaths): PoolRecord | undefined {
  let text: string;
  try {
    text = readStateFileSync(paths.record);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw new PoolCorruptError(paths.record, (error as Error).message);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new PoolCorruptError(paths.record, 'not JSON');
  }
  const parsed = PoolRecordSchema.safeParse(json);
  if (!parsed.success) throw new PoolCorruptError(paths.record, parsed.error.issues[0]?.message ?? 'does not match its schema');
  if (parsed.data.name !== paths.name) throw new PoolCorruptError(paths.record, `it names pool '${parsed.data.name}'`);
  return parsed.data;
}

/** The record of a pool that must exist. */
export function requireRecord(paths: PoolPaths): PoolRecord {
  const record = readRecord(paths);
  if (!record) throw new PoolNotFoundError(paths.name);
  return record;
}

/** Create the pool with its record in one rename; false when a pool of that name appeared first. */
export async function createPool(ctx: EngineContext, record: PoolRecord): Promise<boolean> {
  const root = poolsDir(ctx);
  const temp = join(root, `.new-${record.name}-${randomBytes(4).toString('hex')}`);
  const paths = poolPaths(ctx, record.name, temp);
  try {
    for (const dir of [paths.starting, paths.idle, paths.claimed]) await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(paths.record, `${JSON.stringify(record, null, 2)}\n`);
    await rename(temp, join(root, record.name));
    return true;
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    const code = (error as { code?: string }).code;
    if (code === 'EEXIST' || code === 'ENOTEMPTY') return false;
    throw asStateError(error, join(root, record.name));
  }
}

/**
 * Write a file of an existing pool atomically (temp + rename), never creating a directory: a pool
 * that stop moved away stays gone. False when the directory is not there.
 */
async function writeInPool(path: string, content: string): Promise<boolean> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, content, { mode: 0o600, flag: 'wx' });
    await rename(tmp, path);
    return true;
  } catch (error) {
    await rm(tmp, { force: true });
    if ((error as { code?: string }).code === 'ENOENT') return false;
    throw asStateError(error, path);
  }
}

/** Rewrite the record of an existing pool (a new size). */
export async function writeRecord(paths: PoolPaths, record: PoolRecord): Promise<void> {
  if (!(await writeInPool(paths.record, `${JSON.stringify(record, null, 2)}\n`))) throw new PoolNotFoundError(paths.name);
}

/** The markers of one state directory (none when it is gone). */
export function markers(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => !n.startsWith('.'));
  } catch {
    return [];
  }
}

/** Create a marker; false when its directory is gone (the pool was stopped). */
export async function addMarker(dir: string, name: string): Promise<boolean> {
  try {
    await writeFile(join(dir, name), '', { flag: 'wx', mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return false;
    throw asStateError(error, join(dir, name));
  }
}

/** Move a marker; false when it was not there any more (another process moved it first). */
export async function moveMarker(from: string, to: string): Promise<boolean> {
  try {
    await rename(from, to);
    return true;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT') return false;
    throw asStateError(error, from);
  }
}

/** The marker name of a claim: the worker and the claiming process. */
export function claimMarker(worker: string, pid: number): string {
  return `${worker}@${pid}`;
}

/** The worker and pid of a claim marker. */
export function parseClaim(marker: string): { worker: string; pid: number } | undefined {
  const at = marker.lastIndexOf('@');
  const pid = Number(marker.slice(at + 1));
  return at > 0 && Number.isInteger(pid) && pid > 0 ? { worker: marker.slice(0, at), pid } : undefined;
}

/** The pid that holds the pool's refill lock, when a live process does (pid and start time: a reused pid is not it). */
export function lockOwner(paths: PoolPaths): number | undefined {
  return liveOwner(paths.lock)?.pid;
}

/** What a refill lock held by a live process throws (never seen outside tryLock). */
class RefillBusy extends Error {}

/** How long a refill handed over (`umbel -p`'s detached process) waits for the caller to name it the lock's owner. */
const HANDOVER_WAIT_MS = 10_000;

/**
 * Take the pool's refill lock (the shared owned lock: a dead owner's is broken at once), or
 * undefined when a live refill holds it. `handed`: the lock is being handed to this process
 * (handLock), so it is taken once it names this process. PoolNotFoundError when the pool is gone.
 */
export async function tryLock(paths: PoolPaths, handed = false): Promise<(() => Promise<void>) | undefined> {
  try {
    const options = { busy: () => new RefillBusy() };
    const lock = handed
      ? await adoptOwnedLock(paths.lock, { ...options, waitMs: HANDOVER_WAIT_MS })
      : await acquireOwnedLock(paths.lock, { ...options, waitMs: 0 });
    return lock.release;
  } catch (error) {
    if (error instanceof RefillBusy) return undefined;
    if (!existsSync(paths.dir)) throw new PoolNotFoundError(paths.name);
    throw error;
  }
}

/** Hand the refill lock this process holds to process `pid` (it takes it with `tryLock(paths, true)`). */
export async function handLock(paths: PoolPaths, pid: number): Promise<boolean> {
  return handOwnedLock(paths.lock, pid);
}

/** Give up the refill lock handed to this process (see handLock), if this process holds it. */
export async function dropHandedLock(paths: PoolPaths): Promise<void> {
  if (liveOwner(paths.lock)?.pid !== process.pid) return;
  await (await adoptOwnedLock(paths.lock, { waitMs: 0, busy: () => new RefillBusy() })).release();
}

/** Record (or clear) why the last refill could not start a worker. Best effort: the pool may be gone. */
export async function recordError(paths: PoolPaths, message: string | undefined): Promise<void> {
  if (message === undefined) await rm(paths.lastError, { force: true });
  else await writeInPool(paths.lastError, `${message}\n`).catch(() => undefined);
}

/** Why the last refill could not start a worker, if it could not. */
export async function lastError(paths: PoolPaths): Promise<string | undefined> {
  const text = await readStateFile(paths.lastError).catch(() => undefined);
  return text?.trim() || undefined;
}
