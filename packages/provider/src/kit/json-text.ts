/** The text of a JSON file a provider writes for its CLI. Pure. */

/** `value` as 2-space JSON with a final newline (the way the CLIs write their own JSON files). */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
