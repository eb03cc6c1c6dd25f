import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findHandBuiltErrorBodies } from './error-bodies.js';

const root = join(import.meta.dirname, '..', '..');

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sources(path)));
    else if (/\.m?ts$/.test(entry.name)) out.push(path);
  }
  return out;
}

describe('error bodies', () => {
  it('catches a face that builds one itself, naming the file and line', () => {
    const planted = [
      { path: 'packages/cli/src/a.ts', text: 'x\nprintJson(out, { error: error.toJSON() });' },
      { path: 'packages/mcp/src/b.ts', text: "const body = { code: 'UMBEL_INTERNAL', message };" },
      { path: 'packages/runtime/src/c.ts', text: 'const tail = (error as { paneTail?: string }).paneTail;' },
      { path: 'packages/workflow/src/d.ts', text: 'rec.error = { code: error.code, message: error.message };' },
    ];
    expect(findHandBuiltErrorBodies(planted)).toEqual([
      'packages/cli/src/a.ts:2: calls toJSON() (use errorBody)',
      "packages/mcp/src/b.ts:1: writes the internal code itself (errorBody's for a bug)",
      'packages/runtime/src/c.ts:1: reads an error fact through a cast (the body carries it)',
      "packages/workflow/src/d.ts:1: copies an error's code and message into a body",
    ]);
    expect(findHandBuiltErrorBodies([{ path: 'packages/core/src/contract/error-body.ts', text: 'error.toJSON()' }])).toEqual([]);
  });

  it("no package builds one outside core's errorBody", async () => {
    const files = [];
    for (const dir of await readdir(join(root, 'packages'))) {
      for (const path of await sources(join(root, 'packages', dir, 'src'))) files.push({ path: relative(root, path), text: await readFile(path, 'utf8') });
    }
    expect(files.length).toBeGreaterThan(100);
    expect(findHandBuiltErrorBodies(files)).toEqual([]);
  });
});
