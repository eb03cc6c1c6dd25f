/**
 * Reading what a CLI wrote, by key path and by recency: a value deep in a parsed config (whose keys
 * may hold dots: a path is a list of keys), a table made on the way for an edit, the latest of many
 * transcript records, and a stable JSON text to hash. Pure (`recordAt` edits the object it is given).
 */
import { asRecord } from './json.js';

/** The value at `path` in `root` (each step an object's member), or undefined. */
export function valueAt(root: unknown, path: readonly string[]): unknown {
  let value = root;
  for (const key of path) value = asRecord(value)?.[key];
  return value;
}

/** The object at `path` in `root`, made (or replacing what is no object) on the way: for editing a parsed config. */
export function recordAt(root: Record<string, unknown>, path: readonly string[]): Record<string, unknown> {
  let table = root;
  for (const key of path) table = asRecord(table[key]) ?? (table[key] = {});
  return table;
}

/** The last `pick(item)` of `items` that is not undefined (the latest record that says something). */
export function lastOf<T, R>(items: readonly T[], pick: (item: T) => R | undefined): R | undefined {
  for (let i = items.length - 1; i >= 0; i -= 1) {
    const value = pick(items[i] as T);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** JSON with every object's keys sorted, through and through: the same text for the same value (to hash). */
export function canonicalJson(value: unknown): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
          )
        : v;
  return JSON.stringify(sorted(value));
}
