/**
 * A lock directory that names its owner (`owner`: pid, start time, when). It appears whole (built
 * under a temp name, renamed in: a reader never sees it without its owner), and a lock whose owner
 * is gone (killed, crashed) is broken at once by the next taker instead of blocking everyone. The
 * wait for a live owner ends on the caller's signal (AbortedError) or after `waitMs` (`busy()`).
 * A holder may hand its lock to another process (`handOwnedLock`), which takes it with
 * `adoptOwnedLock`: the lock is never free in between, and a new owner that dies is a dead owner.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { asStateError } from '@umbel/provider';
import { AbortedError } from '../contract/errors.js';
import { currentOwner, ownerAlive, ownerOf, type ProcessOwner, ProcessOwnerSchema } from './process-owner.js';
import { readStateFileSync } from './state-file.js';
import { sleep } from './util.js';

/** A lock without a readable owner file (written by an older umbel) is stale after this long. */
const OWNERLESS_STALE_MS = 120_000;

export interface HeldLock {
  release(): Promise<void>;
  /** The dead owner whose lock was broken to take this one, if one was. */
  readonly broke?: ProcessOwner;
}

function readOwner(path: string): ProcessOwner | undefined {
  try {
    const parsed = ProcessOwnerSchema.safeParse(JSON.parse(readStateFileSync(join(path, 'owner'), 4096)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The owner of the lock at `path` while that process lives (pid and start time); undefined otherwise. */
export function liveOwner(path: string): ProcessOwner | undefined {
  const owner = readOwner(path);
  return owner && ownerAlive(owner) ? owner : undefined;
}

/** Put a lock dir with our owner file at `path`; false when one is there. */
async function take(path: string): Promise<boolean> {
  const temp = join(dirname(path), `.${randomBytes(6).toString('hex')}.lock.tmp`);
  try {
    await mkdir(temp, { mode: 0o700 });
    await writeFile(join(temp, 'owner'), JSON.stringify(currentOwner()), { mode: 0o600 });
    await rename(temp, path); // fails on a lock dir that holds its owner (never empty)
    return true;
  } catch (error) {
    const code = (error as { code?: string }).code;
    await rm(temp, { recursive: true, force: true }).catch(() => undefined);
    if (code === 'ENOTEMPTY' || code === 'EEXIST') return false;
    throw asStateError(error, path);
  }
}

/** Move a dead owner's lock aside (under a name only that owner gives, so two breakers never both succeed) and remove it. */
async function breakLock(path: string, dead: ProcessOwner | undefined): Promise<void> {
  const aside = `${path}.dead-${dead ? `${dead.pid}-${dead.start ?? dead.at}` : 'ownerless'}`;
  try {
    await rename(path, aside);
  } catch {
    return; // someone else broke it (or took it) first
  }
  const moved = readOwner(aside);
  // Taken meanwhile by a live process (it was broken and re-taken between our look and our move): put it back.
  if (moved && dead && (moved.pid !== dead.pid || moved.at !== dead.at)) await rename(aside, path).catch(() => undefined);
  else await rm(aside, { recursive: true, force: true });
}

/**
 * Give the lock up: moved aside first, then removed. Removed in place, it would be an empty
 * directory for a moment, and another taker's rename succeeds onto an empty directory: its lock
 * would then be emptied under it (and the removal fail with ENOTEMPTY).
 */
async function release(path: string): Promise<void> {
  const aside = `${path}.released-${randomBytes(6).toString('hex')}`;
  await rename(path, aside).catch(() => undefined);
  await rm(aside, { recursive: true, force: true });
}

/** Take the lock at `path`, breaking a dead owner's; `busy(ms)` is thrown after `waitMs` behind a live one. */
export async function acquireOwnedLock(path: string, options: { waitMs: number; signal?: AbortSignal; busy: (waitedMs: number) => Error }): Promise<HeldLock> {
  const started = Date.now();
  let broke: ProcessOwner | undefined;
  for (;;) {
    if (options.signal?.aborted) throw new AbortedError('cancelled while waiting for a lock');
    if (await take(path)) return { release: () => release(path), ...(broke ? { broke } : {}) };
    const owner = readOwner(path);
    if (owner && !ownerAlive(owner)) {
      await breakLock(path, owner);
      broke = owner;
      continue;
    }
    if (!owner) {
      const info = await stat(path).catch(() => undefined);
      if (info && Date.now() - info.mtimeMs > OWNERLESS_STALE_MS) await breakLock(path, undefined);
    }
    if (Date.now() - started > options.waitMs) throw options.busy(Date.now() - started);
    await sleep(25, options.signal);
  }
}

/** Whether `owner` is this process (pid and start time). */
function isSelf(owner: ProcessOwner | undefined): boolean {
  const me = currentOwner();
  return owner !== undefined && owner.pid === me.pid && owner.start === me.start;
}

/**
 * Hand the lock this process holds at `path` to process `pid`: its owner file is replaced in one
 * rename (a reader sees one owner or the other, never none). False when this process does not hold it.
 */
export async function handOwnedLock(path: string, pid: number): Promise<boolean> {
  if (!isSelf(readOwner(path))) return false;
  const temp = join(path, `.owner-${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temp, JSON.stringify(ownerOf(pid)), { mode: 0o600, flag: 'wx' });
    await rename(temp, join(path, 'owner'));
    return true;
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw asStateError(error, path);
  }
}

/**
 * Take the lock at `path` that another process is handing to this one (`handOwnedLock`): held
 * once its owner is this process. While a live process other than this one owns it, waited for up
 * to `waitMs` (then `busy()`); a lock with no owner, or a dead one, is taken as acquireOwnedLock does.
 */
export async function adoptOwnedLock(path: string, options: { waitMs: number; signal?: AbortSignal; busy: (waitedMs: number) => Error }): Promise<HeldLock> {
  const started = Date.now();
  for (;;) {
    if (options.signal?.aborted) throw new AbortedError('cancelled while waiting for a lock');
    const owner = readOwner(path);
    if (isSelf(owner)) return { release: () => release(path) };
    if (!owner || !ownerAlive(owner)) return acquireOwnedLock(path, { ...options, waitMs: 0 });
    if (Date.now() - started > options.waitMs) throw options.busy(Date.now() - started);
    await sleep(10, options.signal);
  }
}
