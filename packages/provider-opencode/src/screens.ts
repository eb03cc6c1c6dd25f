/** opencode's input box on a captured screen (opencode-FACTS.md: "The input box"). Pure. */
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
