/**
 * A pure reading of a text, remembered for the last text: a running turn's wait hands a reader the
 * same transcript or side record again and again until the CLI writes more. Pure.
 */

/** `read`, skipped (its last result returned) when called again with the same text. */
export function rememberLast<T>(read: (text: string) => T): (text: string) => T {
  let last: { readonly text: string; readonly result: T } | undefined;
  return (text) => {
    if (last?.text !== text) last = { text, result: read(text) };
    return last.result;
  };
}
