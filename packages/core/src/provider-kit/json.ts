/** Small, tolerant readers for the JSON the CLIs write (hook payloads, transcripts, settings). Pure. */

/** A plain JSON object, or undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A non-empty string member (dotted keys reach into nested objects: `details.command`), or undefined. */
export function stringField(object: Readonly<Record<string, unknown>> | undefined, key: string): string | undefined {
  let value: unknown = object;
  for (const part of key.split('.')) value = asRecord(value)?.[part];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `JSON.parse`, or undefined when the text is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** One object line of a JSONL text, with its 0-based line number in the text. */
export interface JsonLine {
  readonly line: number;
  readonly value: Record<string, unknown>;
}

/**
 * The object lines of a JSONL text, in order. Blank lines, lines that are not JSON (the last one
 * may be mid-write) and lines that are not objects are skipped.
 */
export function jsonLines(content: string): JsonLine[] {
  const out: JsonLine[] = [];
  const lines = content.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const text = lines[i]?.trim();
    if (!text) continue;
    const value = asRecord(parseJson(text));
    if (value) out.push({ line: i, value });
  }
  return out;
}

/** Remove `//` and `/* *\/` comments (outside strings) and trailing commas: the JSONC of settings files. */
export function stripJsonComments(text: string): string {
  let out = '';
  let i = 0;
  let inString = false;
  while (i < text.length) {
    const c = text[i] as string;
    const next = text[i + 1];
    if (inString) {
      out += c === '\\' ? c + (next ?? '') : c;
      if (c === '"') inString = false;
      i += c === '\\' ? 2 : 1;
    } else if (c === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') i += 1;
    } else if (c === '/' && next === '*') {
      i += 2;
      while (i < text.length && !(text[i] === '*' && text[i + 1] === '/')) i += 1;
      i += 2;
    } else {
      if (c === '"') inString = true;
      out += c;
      i += 1;
    }
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}
