// The fenced blocks of umbel's documentation (README.md, packages/*/README.md, docs/**/*.md) and
// what the suite does with each (docs/testing.md, "Docs that run"):
//   ```ts                  type-checked against the built packages (tests/repo/readme-snippets.test.ts)
//   ```sh / bash / shell   executed against the fake CLIs (packages/cli/src/e2e-docs.test.ts)
//   ```sh real             run by the real-CLI tier against the pinned real CLIs (only in REAL_TIER's files)
//   ```<lang> illustrative shown, never run (real accounts, real hosts, installs, destructive commands)
//   ```text json yaml toml data or output, not code (workflows.md's yaml is parsed by @umbel/workflow's tests)
// Any other block (no language, or code in another language) is a problem naming its file and line.
// Dependency-free Node ESM; types in markdown-blocks.d.mts.
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Info-string word that marks a block as illustrative (shown, never run). */
export const ILLUSTRATIVE = 'illustrative';

/** Info-string word of a block the real-CLI tier runs, and the files (relative to the root) whose blocks it reads. */
export const REAL = 'real';
export const REAL_TIER = { 'docs/mcp.md': 'tests/real/mcp-add.test.ts', 'packages/mcp/README.md': 'tests/real/mcp-add.test.ts' };

const TYPESCRIPT = new Set(['ts', 'typescript']);
const SHELL = new Set(['sh', 'bash', 'shell']);
const DATA = new Set(['text', 'json', 'jsonc', 'yaml', 'toml']);

/**
 * The documentation's markdown files: README.md, every package's README.md, docs/**\/*.md.
 * @param {string} root the repository root
 * @returns {string[]} absolute paths
 */
export function docMarkdownFiles(root) {
  const files = [join(root, 'README.md')];
  for (const dir of readdirSync(join(root, 'packages')).sort()) {
    const readme = join(root, 'packages', dir, 'README.md');
    if (existsSync(readme)) files.push(readme);
  }
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else if (entry.name.endsWith('.md')) files.push(join(dir, entry.name));
    }
  };
  walk(join(root, 'docs'));
  return files;
}

/**
 * The fenced blocks of a markdown text: an opening fence of three or more backticks (its info string
 * after it; indented inside a list item), closed by a line of the same fence.
 * @param {string} file
 * @param {string} text
 */
export function fencedBlocks(file, text) {
  const out = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})(.*)$/.exec(lines[i] ?? '');
    if (!open) continue;
    const [, indent, fence, info] = open;
    const words = info.trim().split(/\s+/).filter(Boolean);
    let end = i + 1;
    while (end < lines.length && lines[end]?.trim() !== fence) end++;
    // a block inside a list item is indented: its code without that indent
    const code = lines.slice(i + 1, end).map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart()));
    out.push({ file, line: i + 1, lang: words[0] ?? '', words, code: code.join('\n') });
    i = end;
  }
  return out;
}

/**
 * What the suite does with a block: `typecheck`, `run`, `real`, `illustrative` or `data`; or `problem` with why.
 * @param {{file: string, lang: string, words: string[]}} block
 */
export function classify(block) {
  if (block.words.includes(ILLUSTRATIVE)) return { kind: 'illustrative' };
  if (block.words.includes(REAL)) {
    const file = Object.keys(REAL_TIER).find((f) => block.file.endsWith(`/${f}`));
    if (file && SHELL.has(block.lang)) return { kind: 'real' };
    return { kind: 'problem', why: `the real-CLI tier runs only the \`\`\`sh ${REAL} blocks of ${Object.keys(REAL_TIER).join(', ')}` };
  }
  if (TYPESCRIPT.has(block.lang)) return { kind: 'typecheck' };
  if (SHELL.has(block.lang)) return { kind: 'run' };
  if (DATA.has(block.lang)) return { kind: 'data' };
  if (block.lang === '') return { kind: 'problem', why: 'a block without a language: say what it is (```text for output or diagrams, ```sh for commands)' };
  return {
    kind: 'problem',
    why: `a \`\`\`${block.lang} block is neither type-checked nor run: make it ts or sh, or mark it \`\`\`${block.lang} ${ILLUSTRATIVE}`,
  };
}

/**
 * Every block of the documentation that is a problem, as `file:line: why` (file relative to root).
 * @param {string} root
 * @param {Array<{file: string, line: number, lang: string, words: string[]}>} blocks
 */
export function blockProblems(root, blocks) {
  return blocks.flatMap((block) => {
    const verdict = classify(block);
    return verdict.kind === 'problem' ? [`${relative(root, block.file)}:${block.line}: ${verdict.why}`] : [];
  });
}
