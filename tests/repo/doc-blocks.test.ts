/**
 * Docs that run: every fenced block of README.md, the packages' READMEs and docs/ is type-checked
 * (```ts, readme-snippets.test.ts), executed against the fake CLIs (```sh / bash / shell,
 * packages/cli/src/e2e-docs.test.ts), marked ```<lang> illustrative, or data (```text, json, yaml,
 * toml). A block that is none of these fails here with its file and line (docs/testing.md says when
 * illustrative is allowed).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blockProblems, classify, docMarkdownFiles, fencedBlocks } from '../../test-fixtures/lib/markdown-blocks.mjs';

const root = join(import.meta.dirname, '..', '..');
const blocks = docMarkdownFiles(root).flatMap((file) => fencedBlocks(file, readFileSync(file, 'utf8')));

describe('every block of the docs is type-checked, run or marked', () => {
  it('finds the blocks of README.md, the package READMEs and docs/ (the extractor is not empty)', () => {
    const kinds = new Set(blocks.map((b) => classify(b).kind));
    for (const kind of ['typecheck', 'run', 'illustrative', 'data']) expect([...kinds]).toContain(kind);
    for (const file of ['README.md', 'packages/cli/README.md', 'docs/cli.md', 'docs/providers/authoring.md'])
      expect(blocks.some((b) => b.file === join(root, file))).toBe(true);
  });

  it('no block is unlabelled or unmarked code', () => {
    expect(blockProblems(root, blocks)).toEqual([]);
  });

  it('a planted unlabelled block and an unmarked js block fail, named by file and line (it can fail)', () => {
    const text = [
      '# x',
      '```',
      'umbel status',
      '```',
      '',
      '```js',
      'console.log(1)',
      '```',
      '```js illustrative',
      'x()',
      '```',
      '```sh',
      'umbel ls',
      '```',
    ].join('\n');
    const planted = fencedBlocks(join(root, 'planted.md'), text);
    expect(planted.map((b) => classify(b).kind)).toEqual(['problem', 'problem', 'illustrative', 'run']);
    expect(blockProblems(root, planted)).toEqual([
      'planted.md:2: a block without a language: say what it is (```text for output or diagrams, ```sh for commands)',
      'planted.md:6: a ```js block is neither type-checked nor run: make it ts or sh, or mark it ```js illustrative',
    ]);
  });
});
