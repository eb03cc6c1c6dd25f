/**
 * File helpers a provider's `doBuildLaunch` needs: read a file that may be missing, read a JSON(C)
 * settings object, write only what changed (atomic and private), link a file once.
 */
import { lstat, readFile, stat, symlink } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { writeFileAtomic } from '../fs-atomic.js';
import { asRecord, stripJsonComments } from './json.js';

/** The text of `path`, or undefined when it does not exist (other errors are thrown). */
export async function readTextIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The JSON object in `path` (JSONC: comments and trailing commas allowed); `{}` when the file is
 * missing or empty. A file that is not a JSON object is a UsageError naming it (`what`: "Gemini
 * settings"): the CLI would refuse it too, and umbel never rewrites a user's file.
 */
export async function readJsonObject(path: string, what: string): Promise<Record<string, unknown>> {
  const text = (await readTextIfExists(path)) ?? '';
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(stripJsonComments(text));
  } catch (error) {
    throw new UsageError(`cannot read ${what} ${path}: ${(error as Error).message}`, {
      hint: 'fix the file (the CLI itself refuses to start with it), then spawn again',
      cause: error,
    });
  }
  const object = asRecord(value);
  if (!object) throw new UsageError(`cannot read ${what} ${path}: not a JSON object`);
  return object;
}

/** Write `content` (atomically, mode 0600 by default) unless the file already holds exactly that. True when written. */
export async function writeIfChanged(path: string, content: string, mode?: number): Promise<boolean> {
  if ((await readTextIfExists(path)) === content) return false;
  await writeFileAtomic(path, content, mode);
  return true;
}

/**
 * Make `path` a symlink to `target` when nothing is at `path` yet (a file the CLI wrote there
 * itself is kept) and `target` exists. True when a link was made; a racing link is fine.
 */
export async function symlinkIfAbsent(target: string, path: string): Promise<boolean> {
  try {
    await lstat(path);
    return false;
  } catch {}
  try {
    await stat(target);
  } catch {
    return false;
  }
  try {
    await symlink(target, path);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === 'EEXIST') return false;
    throw error;
  }
}
