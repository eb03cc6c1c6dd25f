// A small TOML reader for the fake codex: tables, arrays of tables, dotted and quoted keys,
// basic/literal (multi-line) strings, numbers, booleans, arrays and inline tables. Like the real
// codex it refuses duplicate keys and tables (`duplicate key`), so a config that would kill the
// real CLI kills the fake too.

/** A parse error carrying line:column. */
export class TomlError extends Error {}

/** Parse TOML text into a plain object. Throws TomlError. */
export function parseToml(text) {
  const root = {};
  const defined = new Set(); // tables defined by a [header]
  let i = 0;
  let line = 1;
  let lineStart = 0;
  let current = root;

  const fail = (msg) => {
    throw new TomlError(`${line}:${i - lineStart + 1}: ${msg}`);
  };
  const peek = (n = 0) => text[i + n];
  const skipWs = () => {
    while (peek() === ' ' || peek() === '\t') i++;
  };
  const skipComment = () => {
    if (peek() === '#') while (i < text.length && peek() !== '\n') i++;
  };
  const newline = () => {
    if (peek() === '\r' && peek(1) === '\n') i++;
    if (peek() === '\n') {
      i++;
      line++;
      lineStart = i;
      return true;
    }
    return false;
  };
  const skipAll = () => {
    for (;;) {
      skipWs();
      skipComment();
      if (!newline()) break;
    }
  };

  function parseKeyPart() {
    skipWs();
    if (peek() === '"' || peek() === "'") return parseString();
    const m = /^[A-Za-z0-9_-]+/.exec(text.slice(i, i + 256));
    if (!m) fail('expected a key');
    i += m[0].length;
    return m[0];
  }
  function parseKey() {
    const parts = [parseKeyPart()];
    skipWs();
    while (peek() === '.') {
      i++;
      parts.push(parseKeyPart());
      skipWs();
    }
    return parts;
  }
  function parseString() {
    const q = peek();
    const triple = text.startsWith(q.repeat(3), i);
    if (triple) {
      i += 3;
      if (peek() === '\n') newline();
      else if (peek() === '\r' && peek(1) === '\n') newline();
      let out = '';
      while (!text.startsWith(q.repeat(3), i)) {
        if (i >= text.length) fail('unterminated string');
        if (q === '"' && peek() === '\\') out += readEscape();
        else if (peek() === '\n') {
          out += '\n';
          newline();
        } else out += text[i++];
      }
      i += 3;
      while (peek() === q) out += text[i++];
      return out;
    }
    i++;
    let out = '';
    while (peek() !== q) {
      if (i >= text.length || peek() === '\n') fail('unterminated string');
      if (q === '"' && peek() === '\\') out += readEscape();
      else out += text[i++];
    }
    i++;
    return out;
  }
  function readEscape() {
    i++;
    const c = text[i++];
    const map = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\', e: '\x1b' };
    if (c in map) return map[c];
    if (c === 'u' || c === 'U') {
      const n = c === 'u' ? 4 : 8;
      const hex = text.slice(i, i + n);
      i += n;
      return String.fromCodePoint(Number.parseInt(hex, 16));
    }
    if (c === '\n' || c === ' ' || c === '\t' || c === '\r') {
      i--;
      while (/[ \t\r\n]/.test(peek() ?? '')) if (!newline()) i++;
      return '';
    }
    fail(`bad escape \\${c}`);
  }
  function parseValue() {
    skipWs();
    const c = peek();
    if (c === '"' || c === "'") return parseString();
    if (c === '[') {
      i++;
      const arr = [];
      for (;;) {
        skipAll();
        if (peek() === ']') {
          i++;
          return arr;
        }
        arr.push(parseValue());
        skipAll();
        if (peek() === ',') i++;
        else if (peek() !== ']') fail('expected , or ] in array');
      }
    }
    if (c === '{') {
      i++;
      const obj = {};
      skipWs();
      if (peek() === '}') {
        i++;
        return obj;
      }
      for (;;) {
        const key = parseKey();
        if (peek() !== '=') fail('expected =');
        i++;
        assign(obj, key, parseValue(), true);
        skipWs();
        if (peek() === ',') {
          i++;
          continue;
        }
        if (peek() === '}') {
          i++;
          return obj;
        }
        fail('expected , or } in inline table');
      }
    }
    const m = /^[^\s,\]}#]+/.exec(text.slice(i, i + 256));
    if (!m) fail('expected a value');
    i += m[0].length;
    const raw = m[0];
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    if (/^[+-]?(inf|nan)$/.test(raw)) return raw.includes('nan') ? Number.NaN : raw.startsWith('-') ? -Infinity : Infinity;
    const num = raw.replaceAll('_', '');
    if (/^[+-]?(0x[0-9a-f]+|0o[0-7]+|0b[01]+)$/i.test(num)) return Number(num);
    if (/^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(num)) return Number(num);
    if (/^\d{4}-\d{2}-\d{2}/.test(raw) || /^\d{2}:\d{2}/.test(raw)) {
      // dates: keep as a string (with an optional time part after a space)
      const t = /^ \d{2}:\d{2}[^\s,\]}#]*/.exec(text.slice(i, i + 64));
      if (t) i += t[0].length;
      return raw + (t ? t[0] : '');
    }
    fail(`invalid value '${raw}'`);
  }
  function assign(obj, key, value, inline = false) {
    let o = obj;
    for (const k of key.slice(0, -1)) {
      if (o[k] === undefined) o[k] = {};
      else if (typeof o[k] !== 'object' || Array.isArray(o[k]) || (inline === false && Object.isFrozen(o[k]))) fail('duplicate key');
      o = o[k];
    }
    const last = key[key.length - 1];
    if (Object.hasOwn(o, last)) fail('duplicate key');
    o[last] = value;
    if (value && typeof value === 'object' && !Array.isArray(value)) Object.freeze(value);
  }
  function tableAt(path, arrayOfTables) {
    let o = root;
    for (let k = 0; k < path.length; k++) {
      const name = path[k];
      const last = k === path.length - 1;
      if (last && arrayOfTables) {
        if (o[name] === undefined) o[name] = [];
        if (!Array.isArray(o[name])) fail('duplicate key');
        const t = {};
        o[name].push(t);
        return t;
      }
      if (o[name] === undefined) o[name] = {};
      let next = o[name];
      if (Array.isArray(next)) next = next[next.length - 1];
      if (typeof next !== 'object' || next === null || Object.isFrozen(next)) fail('duplicate key');
      o = next;
    }
    return o;
  }

  skipAll();
  while (i < text.length) {
    if (peek() === '[') {
      const aot = peek(1) === '[';
      i += aot ? 2 : 1;
      const path = parseKey();
      if (aot ? !text.startsWith(']]', i) : peek() !== ']') fail('expected ]');
      i += aot ? 2 : 1;
      const id = JSON.stringify(path);
      if (!aot) {
        if (defined.has(id)) fail('duplicate key');
        defined.add(id);
      }
      current = tableAt(path, aot);
    } else {
      const key = parseKey();
      if (peek() !== '=') fail('expected =');
      i++;
      assign(current, key, parseValue());
    }
    skipWs();
    skipComment();
    if (i < text.length && !newline()) fail('expected end of line');
    skipAll();
  }
  return thaw(root);
}

function thaw(v) {
  if (Array.isArray(v)) return v.map(thaw);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, thaw(x)]));
  return v;
}

/** Parse a `-c key=value` override value the way codex does: TOML if it parses, else a string. */
export function parseOverrideValue(raw) {
  try {
    return parseToml(`v = ${raw}`).v;
  } catch {
    return raw;
  }
}
