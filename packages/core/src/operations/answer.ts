/**
 * Shaping a long answer for a reader with a budget (an MCP host's context): a markdown section, the
 * first and/or last ~N tokens, or an automatic head + tail cut. Tokens are approximated as 4
 * characters; cuts snap to line boundaries. Pure.
 */

/** Answers longer than this many (approximate) tokens are cut when `auto` is on. */
export const AUTO_TRUNCATE_TOKENS = 2000;
/** What an automatic cut keeps at each end, in tokens. */
export const AUTO_KEEP_TOKENS = 800;
const CHARS_PER_TOKEN = 4;

/** How to shape an answer. */
export interface ShapeAnswerOptions {
  /** Only this markdown section: `## Findings` (that level) or `Findings` (any level). Absent → ''. */
  readonly section?: string;
  /** Keep the first ~N tokens. */
  readonly head?: number;
  /** Keep the last ~N tokens (with `head`: both ends, the middle elided). */
  readonly tail?: number;
  /** Without section/head/tail: cut answers over {@link AUTO_TRUNCATE_TOKENS} to head + tail. */
  readonly auto?: boolean;
  /** Said inside the elision marker, e.g. how to get everything. */
  readonly hint?: string;
}

/** A shaped answer; `elidedTokens` when something was left out. */
export interface ShapedAnswer {
  readonly text: string;
  readonly elidedTokens?: number;
}

const tokens = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);

/** Shape `answer` as `options` say. */
export function shapeAnswer(answer: string, options: ShapeAnswerOptions): ShapedAnswer {
  const text = options.section === undefined ? answer : sectionOf(answer, options.section);
  const outside = answer.length - text.length;
  const shaped = (kept: string, elided: number): ShapedAnswer => (elided > 0 ? { text: kept, elidedTokens: tokens(elided) } : { text: kept });
  let { head, tail } = options;
  if (head === undefined && tail === undefined) {
    if (!options.auto || options.section !== undefined || tokens(text.length) <= AUTO_TRUNCATE_TOKENS) return shaped(text, outside);
    head = AUTO_KEEP_TOKENS;
    tail = AUTO_KEEP_TOKENS;
  }
  const first = head === undefined ? undefined : headOf(text, head * CHARS_PER_TOKEN);
  const last = tail === undefined ? undefined : tailOf(text, tail * CHARS_PER_TOKEN);
  const kept = (first?.length ?? 0) + (last?.length ?? 0);
  if (kept >= text.length) return shaped(text, outside);
  const middle = text.length - kept;
  if (first !== undefined && last !== undefined) {
    const marker = `... [~${tokens(middle)} tokens elided${options.hint ? `, ${options.hint}` : ''}] ...`;
    return shaped([first, marker, last].filter((part) => part !== '').join('\n'), outside + middle);
  }
  return shaped(first ?? last ?? '', outside + middle);
}

/** The first whole lines within `budget` characters (a first line longer than that is cut). */
function headOf(text: string, budget: number): string {
  if (text.length <= budget) return text;
  const cut = text.slice(0, budget);
  const end = cut.lastIndexOf('\n');
  return end === -1 ? cut : cut.slice(0, end);
}

/** The last whole lines within `budget` characters (a last line longer than that is cut). */
function tailOf(text: string, budget: number): string {
  if (text.length <= budget) return text;
  if (budget <= 0) return '';
  const cut = text.slice(-budget);
  const start = cut.indexOf('\n');
  return start === -1 ? cut : cut.slice(start + 1);
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const FENCE = /^\s*(```|~~~)/;

/** The block under a markdown heading, up to the next heading of the same or a higher level. */
function sectionOf(text: string, section: string): string {
  const wanted = HEADING.exec(section.trim());
  const level = wanted ? (wanted[1] as string).length : undefined;
  const title = (wanted ? (wanted[2] as string) : section).trim().toLowerCase();
  const lines = text.split('\n');
  let inFence = false;
  let start = -1;
  let startLevel = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (FENCE.test(line)) {
      inFence = !inFence;
      continue;
    }
    const heading = inFence ? null : HEADING.exec(line);
    if (!heading) continue;
    const headingLevel = (heading[1] as string).length;
    if (start === -1) {
      if ((heading[2] as string).trim().toLowerCase() === title && (level === undefined || level === headingLevel)) {
        start = i;
        startLevel = headingLevel;
      }
    } else if (headingLevel <= startLevel) {
      return lines.slice(start, i).join('\n').replace(/\s+$/, '');
    }
  }
  return start === -1 ? '' : lines.slice(start).join('\n').replace(/\s+$/, '');
}
