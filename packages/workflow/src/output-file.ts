/**
 * Read a `file:` output from inside a worker's cwd, and only from there. The path was checked
 * when the file was validated (relative, no `..` out of the cwd); at run time the agent may have
 * left a symlink, so the real path is resolved and must be inside the cwd's real path, the file
 * is opened without following a final symlink, and the opened file must be a regular file
 * (a FIFO would block the run forever) whose path, as the kernel reports it, is still inside.
 */
import { constants } from 'node:fs';
import { open, readlink, realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { UmbelError, UmbelErrorCode } from '@umbel/core';

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !rel.startsWith(sep);
}

/**
 * The text of `file:<path>` for output `key` of step `step`, read from inside `cwd`.
 * @throws UmbelError (WorkflowFailed) when it is missing, not a regular file, or outside the cwd.
 */
export async function readOutputFile(cwd: string, path: string, at: { readonly step: string; readonly key: string }): Promise<string> {
  const what = `step '${at.step}': output '${at.key}' (file:${path})`;
  const fail = (why: string): UmbelError => new UmbelError({ code: UmbelErrorCode.WorkflowFailed, message: `${what} ${why}` });
  let root: string;
  let real: string;
  try {
    root = await realpath(cwd);
    real = await realpath(join(root, path));
  } catch (error) {
    throw fail(`cannot be read: ${(error as Error).message}`);
  }
  if (!isInside(root, real)) throw fail(`resolves to ${real}, outside the worker's cwd ${root}`);
  const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((error: unknown) => {
    throw fail(`cannot be read: ${(error as Error).message}`);
  });
  try {
    if (!(await handle.stat()).isFile()) throw fail('is not a regular file');
    // Where the opened file really is (Linux): a directory swapped for a symlink after the check shows here.
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => real);
    if (!isInside(root, opened)) throw fail(`resolves to ${opened}, outside the worker's cwd ${root}`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
