/** Optional members without the `...(x === undefined ? {} : { x })` of each one. Pure. */

/** A copy of `record` without its undefined members (`{a: 1, b: undefined}` → `{a: 1}`), the others in their order. */
export function definedMembers<T extends object>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T;
}
