import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkGraph, findBareTmux, findImportCycles, importsOf, type PackageInfo } from './graph.js';

const root = join(import.meta.dirname, '..', '..');

async function walk(dir: string, filter: (path: string) => boolean): Promise<string[]> {
  const out: string[] = [];
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const entry of entries) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(path, filter)));
    else if (filter(path)) out.push(path);
  }
  return out;
}

async function loadPackages(): Promise<PackageInfo[]> {
  const out: PackageInfo[] = [];
  for (const dir of await readdir(join(root, 'packages'))) {
    const pkg = JSON.parse(await readFile(join(root, 'packages', dir, 'package.json'), 'utf8'));
    const sources = [
      ...(await walk(join(root, 'packages', dir, 'src'), (p) => /\.(m?ts|m?js)$/.test(p))),
      ...(await walk(join(root, 'packages', dir, 'bin'), (p) => /\.m?js$/.test(p))),
    ];
    out.push({
      name: pkg.name,
      dir: `packages/${dir}`,
      dependencies: [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})],
      optionalPeers: Object.entries(pkg.peerDependenciesMeta ?? {}).flatMap(([name, meta]) => ((meta as { optional?: boolean }).optional ? [name] : [])),
      devDependencies: Object.keys(pkg.devDependencies ?? {}),
      files: await Promise.all(sources.map(async (p) => ({ path: relative(root, p), text: await readFile(p, 'utf8') }))),
    });
  }
  return out;
}

describe('package graph', () => {
  it('finds imports of every form', () => {
    expect(
      importsOf(
        `import { a } from '@umbel/core';\nimport type { B } from "zod";\nexport * from './x.js';\nconst m = await import('@umbel/mcp');\nimport 'side';`,
      ),
    ).toEqual(['@umbel/core', 'zod', './x.js', '@umbel/mcp', 'side']);
  });

  it('catches a planted upward import and an undeclared one, naming the file and the import', () => {
    const core: PackageInfo = {
      name: '@umbel/core',
      dir: 'packages/core',
      dependencies: ['zod'],
      devDependencies: [],
      files: [{ path: 'packages/core/src/bad.ts', text: `import { run } from '@umbel/cli';\nimport yaml from 'yaml';` }],
    };
    const workflow: PackageInfo = {
      name: '@umbel/workflow',
      dir: 'packages/workflow',
      dependencies: ['@umbel/core', '@umbel/tmux'],
      devDependencies: [],
      files: [],
    };
    const mcp: PackageInfo = {
      name: '@umbel/mcp',
      dir: 'packages/mcp',
      dependencies: ['@umbel/core', '@umbel/runtime'],
      devDependencies: ['@umbel/tmux'],
      files: [
        { path: 'packages/mcp/src/server.ts', text: `import { createDefaultUmbel } from '@umbel/runtime';` },
        { path: 'packages/mcp/src/bin.ts', text: `const { createDefaultUmbel } = await import('@umbel/runtime');` },
        { path: 'packages/mcp/src/stdio.test.ts', text: `import { createTmuxSubstrate } from '@umbel/tmux';` },
      ],
    };
    const problems = checkGraph([core, workflow, mcp], []);
    expect(problems).toContain("packages/core/src/bad.ts: imports '@umbel/cli' — @umbel/core (floor 2) must not import @umbel/cli (floor 6)");
    expect(problems.some((p) => p.startsWith("packages/core/src/bad.ts: imports 'yaml' but @umbel/core's package.json does not declare yaml"))).toBe(true);
    expect(problems.some((p) => p.includes('@umbel/workflow may only depend on @umbel/core, not @umbel/tmux'))).toBe(true);
    // @umbel/mcp's library part imports only core; its bin and its tests may compose more, and what
    // only its bin needs is an optional peer: a library user installs neither tmux nor a provider.
    expect(problems.filter((p) => p.startsWith('packages/mcp/'))).toEqual([
      'packages/mcp/package.json: @umbel/mcp makes every library user install @umbel/runtime; only its bins need it: make it an optional peer (peerDependenciesMeta)',
      "packages/mcp/src/server.ts: imports '@umbel/runtime' — the library part of @umbel/mcp may only import @umbel/core (only its bins compose more)",
    ]);
    expect(checkGraph([{ ...mcp, optionalPeers: ['@umbel/runtime'], files: mcp.files.slice(1) }], [])).toEqual([]);
  });

  it("lets a provider's tests drive it through the engine, never its library code", () => {
    const provider: PackageInfo = {
      name: '@umbel/provider-claude',
      dir: 'packages/provider-claude',
      dependencies: ['@umbel/provider'],
      devDependencies: ['@umbel/core', '@umbel/provider'],
      files: [
        { path: 'packages/provider-claude/src/facts.ts', text: `import { createUmbel } from '@umbel/core';` },
        {
          path: 'packages/provider-claude/src/facts.test.ts',
          text: `import { createUmbel } from '@umbel/core';\nimport { testProvider } from '@umbel/core/testing';`,
        },
      ],
    };
    expect(checkGraph([provider], [])).toEqual([
      "packages/provider-claude/src/facts.ts: imports '@umbel/core' — @umbel/provider-claude may only import @umbel/provider",
    ]);
  });

  it('holds for the real tree', async () => {
    const rootPkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
    expect(checkGraph(await loadPackages(), Object.keys(rootPkg.devDependencies ?? {}))).toEqual([]);
  });
});

describe('no import cycles', () => {
  it('finds a planted cycle, a type-only one and a self-import, never a test or a chain', () => {
    const files = [
      { path: 'p/src/a.ts', text: `import { b } from './b.js';` },
      { path: 'p/src/b.ts', text: `import type { A } from './a.js';` },
      { path: 'p/src/c/index.ts', text: `export * from '../d.js';` },
      { path: 'p/src/d.ts', text: `import { c } from './c/index.js';` },
      { path: 'p/src/e.ts', text: `import { e } from './e.js';` },
      { path: 'p/src/f.ts', text: `import { g } from './g.js';` },
      { path: 'p/src/g.ts', text: `import { h } from '@umbel/core';` },
      { path: 'p/src/g.test.ts', text: `import { f } from './f.js';` },
    ];
    expect(findImportCycles(files)).toEqual([['p/src/a.ts', 'p/src/b.ts'], ['p/src/c/index.ts', 'p/src/d.ts'], ['p/src/e.ts']]);
  });

  it('holds for the real tree (every package, type-only imports included)', async () => {
    const cycles = (await loadPackages()).flatMap((p) => findImportCycles(p.files));
    expect(cycles).toEqual([]);
  });
});

describe('no bare tmux', () => {
  it('catches a planted process call and a shell string', () => {
    const problems = findBareTmux([
      { path: 'packages/cli/src/x.ts', text: `execFile('tmux', ['ls']);\nspawn("tmux", args);\nexecSync(\`tmux kill-server\`);\nconst cmd = 'tmux -L x ls';` },
      { path: 'packages/tmux/src/ok.ts', text: `execFile('tmux', ['ls']);` },
    ]);
    expect(problems).toHaveLength(4);
    expect(problems[0]).toMatch(/^packages\/cli\/src\/x\.ts:1: runs tmux outside @umbel\/tmux/);
  });

  it('holds for the real tree (packages, scripts, tests)', async () => {
    const files = [];
    for (const dir of ['packages', 'scripts', 'tests']) {
      for (const path of await walk(join(root, dir), (p) => /\.(m?ts|m?js|cjs)$/.test(p) && !p.endsWith('tests/repo/graph.test.ts'))) {
        files.push({ path: relative(root, path), text: await readFile(path, 'utf8') });
      }
    }
    expect(findBareTmux(files)).toEqual([]);
  });
});
