import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireOwnedLock } from './owned-lock.js';

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
