/** Removing one entry from a CLI's own JSON state file (a folder's record in its projects map). Pure. */
import { asRecord, parseJson } from './json.js';
import { jsonText } from './json-text.js';

/** `record` without the member at `path` (every record on the way copied, key order kept), or undefined when there is none. */
function without(record: Record<string, unknown>, [key, ...rest]: readonly string[]): Record<string, unknown> | undefined {
  if (key === undefined || !Object.hasOwn(record, key)) return undefined;
  if (rest.length === 0) return Object.fromEntries(Object.entries(record).filter(([name]) => name !== key));
  const inner = asRecord(record[key]);
  const changed = inner && without(inner, rest);
  return changed === undefined ? undefined : { ...record, [key]: changed };
}

/** A JSON object text without the member at `path` (`['projects', folder]`), as 2-space JSON; undefined when the text holds none (or is no JSON object). */
export function withoutJsonMember(text: string, path: readonly string[]): string | undefined {
  const root = asRecord(parseJson(text));
  const next = root && without(root, path);
  return next === undefined ? undefined : jsonText(next);
}
