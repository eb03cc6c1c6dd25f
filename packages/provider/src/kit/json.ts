/** Small, tolerant readers for the JSON the CLIs write (hook payloads, transcripts, settings). Pure. */
import { attempt } from './attempt.js';

/** A plain JSON object, or undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** Whether `value` is a plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return asRecord(value) !== undefined;
}

/** `b` merged into a copy of `a`: objects through and through, while arrays and scalars of `b` replace. Neither input changes. */
export function deepMerge(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out = structuredClone(a) as Record<string, unknown>;
  for (const [key, value] of Object.entries(b)) {
    const current = out[key];
    out[key] = isRecord(current) && isRecord(value) ? deepMerge(current, value) : structuredClone(value);
  }
  return out;
}

/** A non-empty string member (dotted keys reach into nested objects: `details.command`), or undefined. */
export function stringField(object: Readonly<Record<string, unknown>> | undefined, key: string): string | undefined {
  let value: unknown = object;
  for (const part of key.split('.')) value = asRecord(value)?.[part];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `JSON.parse`, or undefined when the text is not JSON. */
export function parseJson(text: string): unknown {
  return attempt(() => JSON.parse(text));
}

/** One object line of a JSONL text, with its 0-based line number in the text. */
export interface JsonLine {
  readonly line: number;
  readonly value: Record<string, unknown>;
}

/** The complete lines of a text already parsed: the text up to its last newline, its lines and their count. */
interface ParsedPrefix {
  readonly text: string;
  readonly lines: readonly JsonLine[];
  readonly count: number;
}

/** The prefixes of the texts parsed last, newest first (a wait reads the same growing transcripts again and again). */
const recent: ParsedPrefix[] = [];
const RECENT = 8;
/** Texts shorter than this are parsed outright. */
const WORTH_KEEPING = 4096;

/** Freeze a parsed JSON value through and through (it is shared between readers). */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const member of Object.values(value)) deepFreeze(member);
  return Object.freeze(value);
}

function parseLines(content: string, from: number, firstLine: number, out: JsonLine[]): JsonLine[] {
  const lines = content.slice(from).split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const text = lines[i]?.trim();
    if (!text) continue;
    const value = asRecord(parseJson(text));
    if (value) out.push({ line: firstLine + i, value: deepFreeze(value) });
  }
  return out;
}

/**
 * The object lines of a JSONL text, in order. Blank lines, lines that are not JSON (the last one
 * may be mid-write) and lines that are not objects are skipped. A text that continues one parsed
 * recently (a transcript that grew) has only its new lines parsed; the values are shared between
 * calls, so they are frozen (a reader that changes one throws).
 */
export function jsonLines(content: string): JsonLine[] {
  if (content.length < WORTH_KEEPING) return parseLines(content, 0, 0, []);
  const at = recent.findIndex((p) => content.length >= p.text.length && content.startsWith(p.text));
  const known = at === -1 ? undefined : recent[at];
  if (at !== -1) recent.splice(at, 1);
  const out = parseLines(content, known?.text.length ?? 0, known?.count ?? 0, known ? [...known.lines] : []);
  const cut = content.lastIndexOf('\n') + 1;
  let count = known?.count ?? 0;
  for (let i = known?.text.length ?? 0; i < cut; i += 1) if (content.charCodeAt(i) === 10) count += 1;
  // (only the last line can be incomplete: it is parsed again next time)
  const complete = out.length > 0 && (out[out.length - 1] as JsonLine).line >= count ? out.slice(0, -1) : out;
  recent.unshift({ text: content.slice(0, cut), lines: complete === out ? [...out] : complete, count });
  if (recent.length > RECENT) recent.pop();
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
