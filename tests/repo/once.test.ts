import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findHandBuiltErrorBodies, findHandBuiltOutcomes } from './once.js';

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
    expect(findHandBuiltErrorBodies(await packageSources())).toEqual([]);
  });
});

describe('outcomes and exit codes', () => {
  it('catches an outcome built by hand and an exit-code table of its own, naming the file and line', () => {
    const planted = [
      { path: 'packages/runtime/src/a.ts', text: "return { ...o, reason: 'timeout', exitCode: OUTCOME_EXIT_CODES.timeout };" },
      { path: 'packages/cli/src/b.ts', text: '\nexport const SIGNAL_EXIT_CODES: Record<string, number> = { SIGINT: 130 };' },
    ];
    expect(findHandBuiltOutcomes(planted)).toEqual([
      'packages/runtime/src/a.ts:1: sets an exit code from the outcome table itself (use outcomeOf)',
      'packages/cli/src/b.ts:2: declares an exit-code table (core has them all)',
    ]);
  });

  it("no package builds an outcome outside core's outcomeOf, or keeps exit codes outside core's tables", async () => {
    expect(findHandBuiltOutcomes(await packageSources())).toEqual([]);
  });
});

async function packageSources(): Promise<{ path: string; text: string }[]> {
  const files = [];
  for (const dir of await readdir(join(root, 'packages'))) {
    for (const path of await sources(join(root, 'packages', dir, 'src'))) files.push({ path: relative(root, path), text: await readFile(path, 'utf8') });
  }
  expect(files.length).toBeGreaterThan(100);
  return files;
}
