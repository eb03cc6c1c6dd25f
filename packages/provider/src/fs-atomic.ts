/**
 * Atomic, private file writes (temp file in the same directory + rename; files 0600 and new
 * directories 0700 unless asked otherwise) and tolerant reads. A full disk or a read-only state
 * root becomes a StateUnwritableError naming the path, never a raw errno with a stack trace.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { StateUnwritableError } from './errors.js';

/** Modes of umbel's own state. */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

const UNWRITABLE = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM']);

/** Rethrow an fs error of a state write as StateUnwritableError when the state root cannot take writes. */
export function asStateError(error: unknown, path: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNWRITABLE.has(code) ? new StateUnwritableError(path, code, error) : error;
}

/** `mkdir -p` with private modes for the directories it creates. */
export async function mkdirPrivate(path: string): Promise<void> {
  try {
    await mkdir(path, { recursive: true, mode: PRIVATE_DIR_MODE });
  } catch (error) {
    throw asStateError(error, path);
  }
}

/** Write `content` to `path` so a reader sees the old file or the new one, never a part (default mode 0600). */
export async function writeFileAtomic(path: string, content: string, mode: number = PRIVATE_FILE_MODE): Promise<void> {
  const dir = dirname(path);
  await mkdirPrivate(dir);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, content, { mode });
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw asStateError(error, path);
  }
}

/** Read and parse a JSON file; undefined when it does not exist or does not parse. */
export async function readJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** True when an fs error is "no such file". */
export function isNotFound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === 'ENOENT';
}
