/** Small internal helpers shared by the parsers. Not exported from the package index. */

/** A plain JSON object, or undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A string member, or undefined (empty strings count as absent). */
export function stringField(object: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = object?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Collapse whitespace runs (incl. newlines) and cut to `max` characters with an ellipsis. */
export function oneLine(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The most telling argument of a Claude Code tool call (command, file path, pattern, url, …). */
export function toolArgument(input: unknown): string | undefined {
  const record = asRecord(input);
  if (!record) return undefined;
  for (const key of ['command', 'file_path', 'notebook_path', 'path', 'pattern', 'url', 'query', 'description', 'prompt']) {
    const value = stringField(record, key);
    if (value !== undefined) return oneLine(value);
  }
  return undefined;
}

/**
 * Short description of a tool call as Claude Code draws it: `Bash(ls -la)`, `Read(/a/b.ts)`, or just
 * the tool name when no argument is telling.
 */
export function describeToolCall(name: string, input: unknown): string {
  const argument = toolArgument(input);
  return argument === undefined ? name : `${name}(${argument})`;
}
