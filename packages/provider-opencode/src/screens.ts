/** opencode's input box on a captured screen (opencode-FACTS.md: "The input box"). Pure. */

const BORDER = /^(\s*)╹▀/;
const PLACEHOLDER = /^Ask anything…/;

/** The text in opencode's input box (the one nearest the bottom): `''` when empty or showing its placeholder, undefined when none is drawn. */
export function readOpencodeInputBox(screen: string): string | undefined {
  const lines = screen.split('\n');
  const border = lines.findLastIndex((line, i) => i > 0 && BORDER.test(line));
  const bar = `${BORDER.exec(lines[border] ?? '')?.[1] ?? ''}┃`;
  const agent = lines[border - 1] ?? '';
  if (border < 1 || !agent.startsWith(`${bar}  `) || !/ · /.test(agent)) return undefined;
  const rows: string[] = [];
  for (let j = border - 2; j >= 0 && (lines[j] ?? '').startsWith(bar); j -= 1) rows.unshift((lines[j] ?? '').slice(bar.length));
  if (rows.length < 2) return undefined;
  const inner = rows.slice(1, -1).map((row) => row.replace(/^ {2}/, '').trimEnd());
  const text = inner.join('\n').trim();
  return text === '' || PLACEHOLDER.test(text) ? '' : text;
}
