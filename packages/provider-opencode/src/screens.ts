/**
 * opencode's input box on a captured screen (FACTS.md §e, screens recorded from 1.18.33 in
 * __fixtures__/). The box is a column of `┃` rows closed by the agent line (`┃  Build · Mock Model
 * Mock`) right above its bottom border (`╹▀▀▀…`); its first and last rows are padding, the rows
 * between hold the text (the placeholder `Ask anything… "…"` when empty). The history above echoes
 * prompts in `┃` boxes too, but never with the border below: the box nearest the bottom counts. The
 * permission dialog replaces the box (no border): no box. Used to know opencode takes input and to
 * clear an unsubmitted prompt — never to read answers. Pure.
 */

const BORDER = /^(\s*)╹▀/;
const PLACEHOLDER = /^Ask anything…/;

/** The rows of the input box nearest the bottom, without padding, or undefined when none is drawn. */
function boxRows(screen: string): string[] | undefined {
  const lines = screen.split('\n');
  for (let i = lines.length - 1; i > 0; i -= 1) {
    const border = BORDER.exec(lines[i] ?? '');
    if (!border) continue;
    const bar = `${border[1] ?? ''}┃`;
    const agent = lines[i - 1] ?? '';
    if (!agent.startsWith(`${bar}  `) || !/ · /.test(agent)) return undefined;
    const rows: string[] = [];
    for (let j = i - 2; j >= 0 && (lines[j] ?? '').startsWith(bar); j -= 1) rows.unshift((lines[j] ?? '').slice(bar.length));
    if (rows.length < 2) return undefined;
    return rows.slice(1, -1).map((row) => row.replace(/^ {2}/, '').trimEnd());
  }
  return undefined;
}

/** The text in opencode's input box: `''` when empty (or showing its placeholder), undefined when no box is drawn. */
export function readOpencodeInputBox(screen: string): string | undefined {
  const rows = boxRows(screen);
  if (rows === undefined) return undefined;
  const text = rows.join('\n').trim();
  return text === '' || PLACEHOLDER.test(text) ? '' : text;
}
