/**
 * Reading a state file without ever blocking on it: opened non-blocking, checked with fstat to be a
 * regular file (a named pipe in its place — an agent can `mkfifo` in its own events dir — would
 * otherwise hang the reader until someone writes to it), and bounded in size. A refusal is a
 * StateInvalidError naming the file; fs errors (ENOENT…) are rethrown as they are.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { open, readlink, stat } from 'node:fs/promises';
import { StateInvalidError } from '../contract/errors.js';

/** The default bound of a state file (meta, events, records, config): far above any umbel writes. */
export const STATE_FILE_MAX_BYTES = 16 * 1024 * 1024;

/** A transcript may be large, never beyond what one string can hold. */
export const TRANSCRIPT_MAX_BYTES = 512 * 1024 * 1024;

const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0);

function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a named pipe';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  if (info.isDirectory()) return 'a directory';
  return 'not a regular file';
}

/** Refuse what is not a regular file of at most `max` bytes. */
function check(path: string, info: Stats, max: number): void {
  if (!info.isFile()) throw new StateInvalidError(path, `is ${kindOf(info)}, not a regular file`);
  if (info.size > max) throw new StateInvalidError(path, `is too large (${info.size} bytes; the limit is ${max})`);
}

/** Read a regular file of at most `max` bytes, synchronously (small state files: no thread-pool round trips). */
export function readStateFileSync(path: string, max: number = STATE_FILE_MAX_BYTES): string {
  const fd = openStateFileSync(path, max);
  try {
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** Open a regular file of at most `max` bytes for reading, never blocking; the caller closes the fd. */
export function openStateFileSync(path: string, max: number = STATE_FILE_MAX_BYTES): number {
  const fd = openSync(path, FLAGS);
  try {
    check(path, fstatSync(fd), max);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/** The promise form of readStateFileSync. */
export async function readStateFile(path: string, max: number = STATE_FILE_MAX_BYTES): Promise<string> {
  const handle = await open(path, FLAGS);
  try {
    check(path, await handle.stat(), max);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * The state root must be a directory, or not exist yet (it is created on first write): a dangling
 * symlink, a symlink loop or a regular file there is a StateInvalidError naming it, before any verb
 * runs. Other errors (EACCES…) are left to the writes, which name them (StateUnwritableError).
 */
export async function checkStateRoot(home: string): Promise<void> {
  let info: Stats;
  try {
    info = await stat(home);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ELOOP') throw new StateInvalidError(home, 'the state root is a symbolic link loop', error);
    if (code === 'ENOTDIR') throw new StateInvalidError(home, 'the state root is inside something that is not a directory', error);
    if (code !== 'ENOENT') return;
    const target = await readlink(home).catch(() => undefined);
    if (target !== undefined) throw new StateInvalidError(home, `the state root is a dangling symbolic link (to ${target})`, error);
    return;
  }
  if (!info.isDirectory()) throw new StateInvalidError(home, 'the state root is not a directory');
}
