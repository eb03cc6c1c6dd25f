/** Grouping records that belong together (one API message written as one transcript entry per content block). Pure. */

/** `items` grouped by `keyOf`: the groups in the order of their first item, each group's items in order. */
export function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return [...groups.values()];
}
