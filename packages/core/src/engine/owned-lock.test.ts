import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireOwnedLock, adoptOwnedLock, handOwnedLock, liveOwner } from './owned-lock.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'umbel-owned-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('acquireOwnedLock', () => {
  // Released in place, the lock was an empty directory for a moment; another taker's rename landed
  // on it, then the removal emptied that new lock (two holders) or failed with ENOTEMPTY.
  it('one holder at a time when many take and release it at once; a release never fails', async () => {
    const path = join(dir, 'x.lock');
    let holders = 0;
    let most = 0;
    const one = async () => {
      const lock = await acquireOwnedLock(path, { waitMs: 60_000, busy: () => new Error('busy') });
      holders++;
      most = Math.max(most, holders);
      await new Promise((r) => setImmediate(r));
      holders--;
      await lock.release();
    };
    const results = await Promise.allSettled(Array.from({ length: 40 }, one));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(most).toBe(1);
  });
});

describe('handing a lock to another process', () => {
  const busy = () => new Error('busy');
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGKILL');
    child = undefined;
  });
  const sleeper = async (): Promise<ChildProcess> => {
    const c = spawn('sleep', ['30'], { stdio: 'ignore' });
    await new Promise((resolve) => c.once('spawn', resolve));
    return c;
  };

  it('names the new owner (pid and start time) in one step: the lock is never free between; once it dies the lock is broken', async () => {
    const path = join(dir, 'x.lock');
    await acquireOwnedLock(path, { waitMs: 0, busy });
    child = await sleeper();
    expect(await handOwnedLock(path, child.pid as number)).toBe(true);
    expect(liveOwner(path)).toMatchObject({ pid: child.pid, start: expect.any(String) });
    // Handed away: this process no longer holds it, and cannot take it while the new owner lives.
    expect(await handOwnedLock(path, process.pid)).toBe(false);
    await expect(acquireOwnedLock(path, { waitMs: 0, busy })).rejects.toThrow('busy');
    await expect(adoptOwnedLock(path, { waitMs: 0, busy })).rejects.toThrow('busy');
    child.kill('SIGKILL');
    await new Promise((resolve) => child?.once('exit', resolve));
    expect(liveOwner(path)).toBeUndefined();
    expect((await acquireOwnedLock(path, { waitMs: 0, busy })).broke).toMatchObject({ pid: child.pid });
  });

  it('adopt takes a lock handed to this process, a free one, or a dead owner’s', async () => {
    const handed = join(dir, 'handed.lock');
    await acquireOwnedLock(handed, { waitMs: 0, busy });
    expect(await handOwnedLock(handed, process.pid)).toBe(true);
    const lock = await adoptOwnedLock(handed, { waitMs: 0, busy });
    await lock.release();
    expect(liveOwner(handed)).toBeUndefined();
    await (await adoptOwnedLock(join(dir, 'free.lock'), { waitMs: 0, busy })).release();
    const dead = join(dir, 'dead.lock');
    await mkdir(dead);
    await writeFile(join(dead, 'owner'), JSON.stringify({ pid: 2 ** 22 + 7, at: Date.now() }));
    expect((await adoptOwnedLock(dead, { waitMs: 0, busy })).broke).toMatchObject({ pid: 2 ** 22 + 7 });
  });
});
