/**
 * Minimal, line-based TOML editing for codex's config.toml. umbel never re-serialises the user's
 * file: it only replaces or inserts the few keys it manages, so comments, order and codex's own
 * writes (`[tui]`, `[projects.*]` from the trust dialog) survive. Known limits: a managed key whose
 * existing value spans several lines is replaced together with its continuation lines only for
 * arrays and triple-quoted strings; tables defined through inline tables are not merged into.
 */
import { parse as parseToml } from 'smol-toml';

/** Quote one key segment for TOML (bare when possible). */
export function tomlKeySegment(segment: string): string {
  return /^[A-Za-z0-9_-]+$/.test(segment) ? segment : tomlString(segment);
}

/** A TOML basic string literal (JSON escaping is a subset TOML accepts). */
export function tomlString(value: string): string {
  return JSON.stringify(value);
}

/** A dotted key path as TOML text. */
export function tomlPath(path: readonly string[]): string {
  return path.map(tomlKeySegment).join('.');
}

/** Parse a dotted key (`a."b.c".d`) into segments; undefined when it is not a key. */
export function parseTomlKey(text: string): string[] | undefined {
  const out: string[] = [];
  let i = 0;
  const s = text.trim();
  while (i < s.length) {
    while (s[i] === ' ' || s[i] === '\t') i++;
    if (s[i] === '"') {
      let j = i + 1;
      let raw = '"';
      while (j < s.length && s[j] !== '"') {
        if (s[j] === '\\') raw += s[j++];
        raw += s[j++];
      }
      if (j >= s.length) return undefined;
      try {
        out.push(JSON.parse(`${raw}"`) as string);
      } catch {
        return undefined;
      }
      i = j + 1;
    } else if (s[i] === "'") {
      const j = s.indexOf("'", i + 1);
      if (j < 0) return undefined;
      out.push(s.slice(i + 1, j));
      i = j + 1;
    } else {
      const m = /^[A-Za-z0-9_-]+/.exec(s.slice(i));
      if (!m) return undefined;
      out.push(m[0]);
      i += m[0].length;
    }
    while (s[i] === ' ' || s[i] === '\t') i++;
    if (i < s.length) {
      if (s[i] !== '.') return undefined;
      i++;
    }
  }
  return out.length > 0 ? out : undefined;
}

interface Line {
  text: string;
  /** Header path for `[table]` lines; `aot` for `[[array]]`. */
  header?: { path: string[]; aot: boolean };
  /** Key path for `key = value` lines at the start of a statement. */
  key?: string[];
  /** Number of following lines that continue this statement's value. */
  continuation: number;
}

const HEADER = /^\s*(\[\[?)\s*(.+?)\s*(\]\]?)\s*(#.*)?$/;

function scanLines(text: string): Line[] {
  const raw = text.split('\n');
  const lines: Line[] = [];
  for (let i = 0; i < raw.length; i++) {
    const t = raw[i] ?? '';
    const line: Line = { text: t, continuation: 0 };
    lines.push(line);
    const h = HEADER.exec(t);
    if (h && !/=/.test(t.replace(/"[^"]*"|'[^']*'/g, ''))) {
      const path = parseTomlKey(h[2] ?? '');
      if (path) line.header = { path, aot: h[1] === '[[' };
      continue;
    }
    const eq = findEquals(t);
    if (eq < 0) continue;
    const key = parseTomlKey(t.slice(0, eq));
    if (!key) continue;
    line.key = key;
    // continuation of multi-line values (arrays, triple-quoted strings)
    const value = t.slice(eq + 1);
    let j = i;
    if (/^\s*("""|''')/.test(value)) {
      const q = /("""|''')/.exec(value)?.[1] ?? '"""';
      const rest = value.slice(value.indexOf(q) + 3);
      if (!rest.includes(q)) {
        while (j + 1 < raw.length && !(raw[j + 1] ?? '').includes(q)) j++;
        j++;
      }
    } else if (/^\s*\[/.test(value)) {
      let depth = bracketDepth(value);
      while (depth > 0 && j + 1 < raw.length) {
        j++;
        depth += bracketDepth(raw[j] ?? '');
      }
    }
    line.continuation = Math.min(j, raw.length - 1) - i;
    for (let k = i + 1; k <= i + line.continuation; k++) lines.push({ text: raw[k] ?? '', continuation: 0 });
    i += line.continuation;
  }
  return lines;
}

function findEquals(line: string): number {
  let inQ: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (inQ) {
      if (c === '\\' && inQ === '"') i++;
      else if (c === inQ) inQ = undefined;
    } else if (c === '"' || c === "'") inQ = c;
    else if (c === '#') return -1;
    else if (c === '=') return i;
  }
  return -1;
}

function bracketDepth(s: string): number {
  let d = 0;
  let inQ: string | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inQ) {
      if (c === '\\' && inQ === '"') i++;
      else if (c === inQ) inQ = undefined;
    } else if (c === '"' || c === "'") inQ = c;
    else if (c === '#') break;
    else if (c === '[') d++;
    else if (c === ']') d--;
  }
  return d;
}

const samePath = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const startsWith = (a: readonly string[], prefix: readonly string[]) => a.length > prefix.length && prefix.every((x, i) => x === a[i]);

/**
 * Set `key = <literal>` in `[table]` (root when `table` is empty), replacing an existing value.
 * When the table is missing it is appended at the end — or, if the root defines it through dotted
 * keys (`features.x = 1`), the key is set the same way so no duplicate table is created.
 */
export function upsertTomlKey(text: string, table: readonly string[], key: string, literal: string): string {
  const lines = scanLines(text);
  const keyPath = [key];
  // sections: [start, end) line ranges per header
  let sectionPath: string[] = [];
  let sectionAot = false;
  let firstHeader = lines.length;
  let tableStart = -1;
  let tableEnd = lines.length;
  let rootDotted = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as Line;
    if (l.header) {
      if (firstHeader === lines.length) firstHeader = i;
      if (tableStart >= 0 && tableEnd === lines.length) tableEnd = i;
      sectionPath = l.header.path;
      sectionAot = l.header.aot;
      if (!sectionAot && table.length > 0 && samePath(sectionPath, table)) tableStart = i;
      continue;
    }
    if (!l.key) continue;
    const full = [...sectionPath, ...l.key];
    if (table.length > 0 && sectionPath.length === 0 && startsWith(full, table)) rootDotted = true;
    if (!sectionAot && samePath(full, [...table, key])) {
      // replace in place (keep the original key spelling, e.g. dotted in root)
      const eq = findEquals(l.text);
      const newLine = `${l.text.slice(0, eq).trimEnd()} = ${literal}`;
      lines.splice(i, 1 + l.continuation, { text: newLine, continuation: 0 });
      return lines.map((x) => x.text).join('\n');
    }
  }
  const out = lines.map((x) => x.text);
  if (table.length === 0) {
    out.splice(firstHeader === lines.length ? out.length : firstHeader, 0, `${tomlPath(keyPath)} = ${literal}`);
    return fixRootInsert(out, firstHeader);
  }
  if (tableStart >= 0) {
    // insert after the last non-blank line of the table
    let at = tableEnd;
    while (at - 1 > tableStart && (out[at - 1] ?? '').trim() === '') at--;
    out.splice(at, 0, `${tomlPath(keyPath)} = ${literal}`);
    return out.join('\n');
  }
  if (rootDotted) {
    out.splice(firstHeader === lines.length ? out.length : firstHeader, 0, `${tomlPath([...table, key])} = ${literal}`);
    return fixRootInsert(out, firstHeader);
  }
  let body = out.join('\n');
  if (body !== '' && !body.endsWith('\n')) body += '\n';
  if (body !== '' && !body.endsWith('\n\n')) body += '\n';
  return `${body}[${tomlPath(table)}]\n${tomlPath(keyPath)} = ${literal}\n`;
}

function fixRootInsert(out: string[], firstHeader: number): string {
  // keep a blank line between root keys and the first table
  if (firstHeader < out.length - 1 && (out[firstHeader] ?? '').trim() !== '' && HEADER.test(out[firstHeader + 1] ?? '')) {
    out.splice(firstHeader + 1, 0, '');
  }
  return out.join('\n');
}

/**
 * Read a scalar at `table.key` (string, boolean, number or date) as text; undefined when absent, not
 * a scalar, or the text is not TOML. Reads use a TOML parser (smol-toml); only edits are by line.
 */
export function readTomlScalar(text: string, table: readonly string[], key: string): string | undefined {
  let value: unknown;
  try {
    value = parseToml(text);
  } catch {
    return undefined;
  }
  for (const segment of [...table, key])
    value = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[segment] : undefined;
  return value === undefined || value === null || (typeof value === 'object' && !(value instanceof Date)) ? undefined : String(value);
}
