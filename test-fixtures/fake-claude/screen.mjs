// Screen helpers for the fake TUI: display width, wrapping, and a whole-screen repaint
// (home, lines with erase-to-EOL, erase below). Each frame is one write, so a capture-pane never
// sees half a frame and an error in width estimation never accumulates.

/** Display width of one code point (0, 1 or 2 columns). */
export function charWidth(cp) {
  if (cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0x300 && cp <= 0x36f) || (cp >= 0x1f3fb && cp <= 0x1f3ff)) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2;
  return 1;
}

/** Display width of a string. */
export function strWidth(s) {
  let w = 0;
  for (const ch of s) w += charWidth(ch.codePointAt(0));
  return w;
}

/** Hard-wrap one logical line (no newlines) at `width` columns. */
export function wrapLine(line, width) {
  if (width < 2) width = 2;
  const out = [];
  let cur = '';
  let w = 0;
  for (const ch of line) {
    const cw = charWidth(ch.codePointAt(0));
    if (w + cw > width) {
      out.push(cur);
      cur = '';
      w = 0;
    }
    cur += ch;
    w += cw;
  }
  out.push(cur);
  return out;
}

/**
 * Wrap text with a first-line prefix and a continuation indent, e.g. `● ` / `  `.
 * @returns {string[]}
 */
export function block(text, first, rest, width) {
  const lines = [];
  const logical = String(text).split('\n');
  logical.forEach((l, i) => {
    const prefix = i === 0 ? first : rest;
    const wrapped = wrapLine(l, Math.max(4, width - strWidth(prefix)));
    wrapped.forEach((w, j) => {
      lines.push((j === 0 ? prefix : ' '.repeat(strWidth(rest))) + w);
    });
  });
  return lines;
}

/** Cut a line to `width` columns, ending with `…` when cut. */
export function truncate(line, width) {
  if (strWidth(line) <= width) return line;
  let out = '';
  let w = 0;
  for (const ch of line) {
    const cw = charWidth(ch.codePointAt(0));
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return `${out}…`;
}

/** Build one frame: the last `rows` lines of `lines`, painted from the top. */
export function frame(lines, rows) {
  const shown = lines.slice(-rows);
  return `\x1b[?25l\x1b[H${shown.map((l) => `${l}\x1b[K`).join('\r\n')}\x1b[J`;
}
