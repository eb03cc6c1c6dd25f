/**
 * What importing a package as a library loads, seen from a fresh node process: a module hook
 * records every file the ESM loader loads, and each is mapped to the package of ours it belongs
 * to. `@umbel/mcp` as a library loads neither tmux nor any provider (only its bin composes the
 * default engine); `@umbel/runtime` loads tmux only when an engine is created. Runs the BUILT
 * packages (`pnpm test` builds first).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesLoadedBy, installLoadHook } from './loaded-files.js';
const root = join(import.meta.dirname, '..', '..');
let scratch: string;
/** Absolute package directory → package name, for every package of ours. */
const ours = new Map<string, string>();

beforeAll(async () => {
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-library-imports-')));
  for (const dir of await readdir(join(root, 'packages'))) {
    const pkg = JSON.parse(await readFile(join(root, 'packages', dir, 'package.json'), 'utf8'));
    ours.set(await realpath(join(root, 'packages', dir)), pkg.name);
  }
  await installLoadHook(scratch);
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** The packages of ours a fresh `node` loads for `script` (ESM source, run with the hook registered). */
async function loadedBy(name: string, script: string): Promise<string[]> {
  const main = join(scratch, `${name}.mjs`);
  await writeFile(main, script);
  const files = await filesLoadedBy(scratch, name, [main], { PATH: process.env.PATH, HOME: scratch });
  const names = new Set<string>();
  for (const file of files) for (const [dir, pkg] of ours) if (file.startsWith(`${dir}/`)) names.add(pkg);
  return [...names].sort();
}

const dist = (pkg: string) => {
  const file = join(root, 'packages', pkg, 'dist', 'index.js');
  if (!existsSync(file)) throw new Error(`packages/${pkg} is not built (${file} is missing): run \`pnpm build\` first`);
  return pathToFileURL(file).href;
};

describe('importing a package as a library, in a fresh node process', () => {
  it('@umbel/mcp loads @umbel/core (with the specification it re-exports) and itself only: no tmux, no provider, no runtime', async () => {
    const loaded = await loadedBy(
      'mcp',
      `const m = await import(${JSON.stringify(dist('mcp'))});\nif (typeof m.createMcpServer !== 'function') process.exit(3);\n`,
    );
    expect(loaded).toEqual(['@umbel/core', '@umbel/mcp', '@umbel/provider']);
  });

  it('@umbel/runtime loads the providers but not tmux until an engine is created', async () => {
    const url = JSON.stringify(dist('runtime'));
    const loading = await loadedBy(
      'runtime-load',
      `const r = await import(${url});\nawait r.loadProviders({ env: { HOME: process.cwd() }, cwd: process.cwd() });\n`,
    );
    expect(loading).toEqual([
      '@umbel/core',
      '@umbel/provider',
      '@umbel/provider-claude',
      '@umbel/provider-codex',
      '@umbel/provider-copilot',
      '@umbel/provider-gemini',
      '@umbel/provider-opencode',
      '@umbel/provider-qwen',
      '@umbel/runtime',
    ]);
    const engine = await loadedBy(
      'runtime-engine',
      `const r = await import(${url});\nawait r.createDefaultUmbel({ env: { HOME: process.cwd() }, cwd: process.cwd() });\n`,
    );
    expect(engine).toContain('@umbel/tmux');
  });
});
