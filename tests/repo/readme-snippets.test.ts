/**
 * Every ```ts block of the READMEs and docs compiles, strictly, against the built packages (their
 * `dist/*.d.ts`, what npm users get): an example that uses an undefined name, an option that does
 * not exist or a type that does not narrow fails here, with the markdown file and line. Each block
 * is its own module (imports at its top, top-level await allowed). Needs `pnpm build`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { classify, docMarkdownFiles, fencedBlocks } from '../../test-fixtures/lib/markdown-blocks.mjs';

const root = join(import.meta.dirname, '..', '..');

/** One fenced ```ts block: where it is, and its code. */
interface Snippet {
  readonly file: string;
  /** Line (1-based) of the block's first code line in the markdown file. */
  readonly line: number;
  readonly code: string;
}

/** The ```ts blocks of the documentation (the ones not marked illustrative), located at their first code line. */
function tsSnippets(): Snippet[] {
  return docMarkdownFiles(root)
    .flatMap((file) => fencedBlocks(file, readFileSync(file, 'utf8')))
    .filter((block) => classify(block).kind === 'typecheck')
    .map((block) => ({ file: block.file, line: block.line + 1, code: block.code }));
}

/** Where each package's published types are (what `import … from '@umbel/x'` sees on npm). */
function packagePaths(): Record<string, string[]> {
  const paths: Record<string, string[]> = {};
  for (const dir of readdirSync(join(root, 'packages'))) {
    const pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as { name: string; exports?: Record<string, unknown> };
    for (const [sub, target] of Object.entries(pkg.exports ?? {})) {
      const types = typeof target === 'object' && target !== null ? (target as { types?: string }).types : undefined;
      if (!types) continue;
      paths[sub === '.' ? pkg.name : `${pkg.name}/${sub.replace(/^\.\//, '')}`] = [join(root, 'packages', dir, types)];
    }
  }
  return paths;
}

/** Type-check the snippets as separate modules; one message per problem, located in the markdown. */
function checkSnippets(snippets: readonly Snippet[]): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noUncheckedIndexedAccess: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: ['node'],
    typeRoots: [join(root, 'node_modules', '@types')],
    baseUrl: root,
    paths: packagePaths(),
    noEmit: true,
    skipLibCheck: true,
  };
  const virtual = new Map<string, Snippet>();
  snippets.forEach((snippet, index) => {
    const name = join(root, 'tests', 'repo', '__snippets__', `${index}-${relative(root, snippet.file).replaceAll('/', '_')}.ts`);
    virtual.set(name, snippet);
  });
  const host = ts.createCompilerHost(options);
  const source = (name: string): string | undefined => {
    const snippet = virtual.get(name);
    // a block without import/export would be a script (no top-level await): make it a module
    return snippet ? `${snippet.code}\nexport {};\n` : undefined;
  };
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (name) => virtual.has(name) || fileExists.call(host, name);
  host.readFile = (name) => source(name) ?? readFile.call(host, name);
  host.getSourceFile = (name, language, ...rest) => {
    const text = source(name);
    return text === undefined ? getSourceFile.call(host, name, language, ...rest) : ts.createSourceFile(name, text, language);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const snippet = diagnostic.file ? virtual.get(diagnostic.file.fileName) : undefined;
    if (!snippet || !diagnostic.file || diagnostic.start === undefined) return text;
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${relative(root, snippet.file)}:${snippet.line + line}:${character + 1}: ${text}`;
  });
}

describe('README and docs code snippets', () => {
  const snippets = tsSnippets();

  it('finds the embedding examples (the extractor is not silently empty)', () => {
    const files = new Set(snippets.map((s) => relative(root, s.file)));
    for (const file of ['README.md', 'packages/core/README.md', 'packages/tmux/README.md', 'packages/mcp/README.md', 'packages/workflow/README.md'])
      expect([...files], file).toContain(file);
  });

  it('every ```ts block type-checks against the built packages', () => {
    for (const [name, [types]] of Object.entries(packagePaths())) expect(existsSync(types as string), `${name} is built (pnpm build)`).toBe(true);
    expect(checkSnippets(snippets)).toEqual([]);
  });

  it('the checker reports an undefined name and an un-narrowed answer (it can fail)', () => {
    const planted = [
      "import { createUmbel } from '@umbel/core';\ncreateUmbel({ substrate, providers: [] });",
      "import type { Outcome } from '@umbel/core';\ndeclare const o: Outcome;\nconst answer: string = o.result;",
    ].map((code, i) => ({ file: join(root, `planted-${i}.md`), line: 1, code }));
    const problems = checkSnippets(planted);
    expect(problems.join('\n')).toContain("planted-0.md:2:15: No value exists in scope for the shorthand property 'substrate'");
    expect(problems.join('\n')).toContain("planted-1.md:3:7: Type 'string | undefined' is not assignable to type 'string'");
  });
});

describe("the README's way to run umbel from a clone", () => {
  it('every `node packages/…` command of the README runs the built bin (exit 0)', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const commands = [...readme.matchAll(/^node (packages\/\S+) (--help|--version)\b/gm)];
    expect(commands.map((m) => m[1])).toEqual(expect.arrayContaining(['packages/umbel/bin/umbel.js', 'packages/mcp/bin/umbel-mcp.js']));
    for (const [, bin, flag] of commands) {
      const out = execFileSync(process.execPath, [join(root, bin as string), flag as string], {
        cwd: root,
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '' },
      });
      expect(out, `${bin} ${flag}`).toMatch(/umbel/);
    }
  });
});
