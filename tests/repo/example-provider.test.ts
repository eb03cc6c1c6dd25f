/**
 * The worked example of a third-party provider (examples/umbel-provider-echo) is built on public
 * entry points only: its code imports nothing of ours but `@umbel/core` (its tests also
 * `@umbel/core/testing`), never the provider kit nor a file inside a package, and it depends on
 * @umbel/core as a peer only. A provider written against ProviderV1 as it stands must not need
 * anything else.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf } from './graph.js';

const root = join(import.meta.dirname, '..', '..');
const EXAMPLE = join(root, 'examples', 'umbel-provider-echo');

interface SourceFile {
  readonly path: string;
  readonly text: string;
}

/** Imports of the example that are not allowed (each naming the file and the import). */
function forbiddenImports(files: readonly SourceFile[], coreExports: readonly string[]): string[] {
  const problems: string[] = [];
  for (const file of files) {
    const isTest = file.path.endsWith('.test.ts');
    const allowed = new Set(['@umbel/core', ...(isTest ? ['@umbel/core/testing', 'vitest'] : [])]);
    for (const spec of importsOf(file.text)) {
      if (spec.startsWith('.') || spec.startsWith('node:')) continue;
      if (!allowed.has(spec)) problems.push(`${file.path}: imports '${spec}' (only ${[...allowed].join(', ')} and node: builtins are allowed)`);
      else if (spec.startsWith('@umbel/core') && !coreExports.includes(`.${spec.slice('@umbel/core'.length)}`))
        problems.push(`${file.path}: imports '${spec}', which @umbel/core does not export`);
    }
  }
  return problems;
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (['node_modules', 'dist', '__fixtures__'].includes(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(path)));
    else if (/\.(m?ts|m?js)$/.test(entry.name)) out.push(path);
  }
  return out;
}

describe('examples/umbel-provider-echo uses public entry points only', () => {
  it('catches a planted kit import, a deep import, another package of ours and testing outside a test', () => {
    const problems = forbiddenImports(
      [
        { path: 'src/provider.ts', text: `import { defineProvider } from '@umbel/core/provider-kit';\nimport { x } from '@umbel/core/src/engine.js';` },
        { path: 'src/other.ts', text: `import { createTmuxSubstrate } from '@umbel/tmux';\nimport { testProvider } from '@umbel/core/testing';` },
        {
          path: 'src/ok.test.ts',
          text: `import { testProvider } from '@umbel/core/testing';\nimport { it } from 'vitest';\nimport { join } from 'node:path';`,
        },
      ],
      ['.', './testing', './package.json'],
    );
    expect(problems).toEqual([
      "src/provider.ts: imports '@umbel/core/provider-kit' (only @umbel/core and node: builtins are allowed)",
      "src/provider.ts: imports '@umbel/core/src/engine.js' (only @umbel/core and node: builtins are allowed)",
      "src/other.ts: imports '@umbel/tmux' (only @umbel/core and node: builtins are allowed)",
      "src/other.ts: imports '@umbel/core/testing' (only @umbel/core and node: builtins are allowed)",
    ]);
  });

  it('holds for the example: its sources, its CLI and its tests', async () => {
    const core = JSON.parse(await readFile(join(root, 'packages', 'core', 'package.json'), 'utf8'));
    const files: SourceFile[] = [];
    for (const dir of ['src', 'agent', 'bin', 'scripts']) {
      for (const path of await walk(join(EXAMPLE, dir))) files.push({ path: relative(EXAMPLE, path), text: await readFile(path, 'utf8') });
    }
    expect(files.some((f) => f.path === 'src/provider.ts')).toBe(true);
    expect(forbiddenImports(files, Object.keys(core.exports))).toEqual([]);
  });

  it('depends on @umbel/core as a peer only', async () => {
    const pkg = JSON.parse(await readFile(join(EXAMPLE, 'package.json'), 'utf8'));
    expect(pkg.peerDependencies).toEqual({ '@umbel/core': '>=0.1.0 <1' });
    expect(pkg.dependencies).toBeUndefined();
    expect(Object.keys(pkg.devDependencies ?? {}).filter((d) => d.startsWith('@umbel/'))).toEqual(['@umbel/core']);
  });
});
