/**
 * One directory lock for provider files shared by concurrent spawns (a read-modify-write of a
 * shared config). `mkdir` is atomic; a lock older than `staleMs` is taken over (a crashed holder).
 */
import { mkdir, rm, stat } from 'node:fs/promises';
import { SpawnFailedError } from '../errors.js';

/** Options of {@link withDirLock}. */
export interface DirLockOptions {
  /** A lock directory older than this is stale and removed. Default 30 s. */
  readonly staleMs?: number;
  /** Give up (SpawnFailedError) after this long. Default 60 s. */
  readonly timeoutMs?: number;
}

async function takeOver(lockDir: string, staleMs: number): Promise<boolean> {
  try {
    if (Date.now() - (await stat(lockDir)).mtimeMs <= staleMs) return false;
    await rm(lockDir, { recursive: true, force: true });
  } catch {
    // gone meanwhile: try again at once
  }
  return true;
}

/** Run `fn` holding the lock directory `lockDir` (created, then removed); waits with backoff while another holds it. */
export async function withDirLock<T>(lockDir: string, fn: () => Promise<T>, options: DirLockOptions = {}): Promise<T> {
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
    try {
      await mkdir(lockDir, { mode: 0o700 });
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw error;
      if (await takeOver(lockDir, staleMs)) continue;
      if (Date.now() > deadline) {
        throw new SpawnFailedError(`timed out waiting for the lock ${lockDir}`, { hint: `remove ${lockDir} if no umbel spawn is running` });
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}
