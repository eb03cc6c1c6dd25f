/**
 * Forgetting what a CLI keeps of some sessions in its own state (for `forgetScratch`): its shared
 * files edited, its per-session dirs and files removed. Best effort: these never throw.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { editSharedFile } from './shared-file.js';

/** A session id that is safe in a path: 8 or more letters, digits and `-` (anything else names no file). */
const SAFE_ID = /^[0-9A-Za-z-]{8,}$/;

/** {@link editSharedFile} of `path` (nothing without one), its failures ignored. */
export async function editQuietly(path: string | undefined, edit: (text: string) => string | undefined): Promise<void> {
  if (path) await editSharedFile(path, edit).catch(() => undefined);
}

/** Where a CLI keeps per-session state under its root: dirs holding one `<id>` dir per session, dirs holding files whose names hold the id. */
export interface SessionStateFacts {
  readonly dirs?: readonly string[];
  readonly namedFiles?: readonly string[];
}

/** Remove the state of `sessionIds` under `root` by `facts` (ids not {@link SAFE_ID} are skipped). */
export async function removeSessionState(root: string, sessionIds: readonly string[], facts: SessionStateFacts): Promise<void> {
  const ids = sessionIds.filter((id) => SAFE_ID.test(id));
  const quietly = (work: Promise<unknown>) => work.catch(() => undefined);
  for (const dir of facts.dirs ?? []) for (const id of ids) await quietly(rm(join(root, dir, id), { recursive: true, force: true }));
  for (const dir of facts.namedFiles ?? []) {
    const files = await readdir(join(root, dir)).catch(() => [] as string[]);
    for (const file of files) if (ids.some((id) => file.includes(id))) await quietly(rm(join(root, dir, file), { force: true }));
  }
}
