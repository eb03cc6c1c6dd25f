/** A parse that may throw, as a value: for readers that take a malformed text as none (a config, a record). Pure when `fn` is. */

/** `fn()`, or undefined when it throws (`attempt(() => parseToml(text))`). */
export function attempt<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}
