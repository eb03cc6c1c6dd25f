/**
 * A lock that is a directory (mkdir is atomic): taken by creating it, released by removing it.
 * A lock older than `staleMs` belongs to a process that died holding it and is broken.
 */
import { mkdir, rm, stat } from 'node:fs/promises';
import { asStateError } from '@umbel/provider';
import { sleep } from './util.js';

export interface DirLockOptions {
  /** How long to wait for the lock before giving up with `onTimeout`'s error. */
  readonly waitMs: number;
  /** A lock older than this is broken. */
  readonly staleMs: number;
  readonly onTimeout: (waitedMs: number) => Error;
}

/** Take the lock at `path` (its parent must exist); returns its release. */
export async function acquireDirLock(path: string, options: DirLockOptions): Promise<() => Promise<void>> {
  const started = Date.now();
  for (;;) {
    try {
      await mkdir(path, { mode: 0o700 });
      return () => rm(path, { recursive: true, force: true });
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw asStateError(error, path);
      const info = await stat(path).catch(() => undefined);
      if (info && Date.now() - info.mtimeMs > options.staleMs) await rm(path, { recursive: true, force: true });
      if (Date.now() - started > options.waitMs) throw options.onTimeout(Date.now() - started);
      await sleep(25);
    }
  }
}
