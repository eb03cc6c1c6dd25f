/**
 * Editing a file the CLI itself may write at the same moment (its state file, its history): the
 * edit is made on the text read, written atomically with the file's own mode, and made again on
 * the newer text when the file changed in between. For cleaning up after a worker, never for config.
 */
import { readFile, stat } from 'node:fs/promises';
import { writeIfChanged } from './files.js';
import { asRecord, parseJson } from './json.js';

/**
 * Rewrite `path` with `edit(text)` (undefined: nothing to change); a missing file is left missing.
 * Up to `attempts` tries when another writer changes the file under us. True when written.
 */
export async function editSharedFile(path: string, edit: (text: string) => string | undefined, attempts = 3): Promise<boolean> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text === undefined) return false;
    const next = edit(text);
    if (next === undefined) return false;
    const { mode } = await stat(path);
    if ((await readFile(path, 'utf8').catch(() => undefined)) !== text) continue;
    return writeIfChanged(path, next, mode & 0o777);
  }
  return false;
}

/** A JSONL text without the object lines `drop` picks (every other line kept as it is), or undefined when none is dropped. */
export function withoutJsonLines(text: string, drop: (value: Record<string, unknown>) => boolean): string | undefined {
  const lines = text.split('\n');
  const kept = lines.filter((line) => {
    const value = asRecord(parseJson(line));
    return !value || !drop(value);
  });
  return kept.length === lines.length ? undefined : kept.join('\n');
}
