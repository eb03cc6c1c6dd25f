/**
 * A directory a CLI writes that must outlive one worker (its chats, its history): the worker's
 * entry links to the user's own when there is one (so the user's CLI sees what the worker did),
 * else to a directory every worker of one state root shares.
 */
import { mkdir, stat } from 'node:fs/promises';
import { symlinkIfAbsent } from './files.js';

/** Link `path` to `target` when that exists, else to `shared` (created 0700); an existing `path` is kept. True when a link was made. */
export async function linkUserOrShared(target: string, shared: string, path: string): Promise<boolean> {
  const exists = await stat(target).then(
    () => true,
    () => false,
  );
  if (exists) return symlinkIfAbsent(target, path);
  await mkdir(shared, { recursive: true, mode: 0o700 });
  return symlinkIfAbsent(shared, path);
}
