/**
 * What a command of the bin loads, seen from a fresh node process. The chain from the bin to the
 * bundle is CommonJS: node's ESM loader, set up by the first ES module a process loads, costs ~8 ms
 * of every command's start on a small machine, and a verb needs none. The bundle stays lean: `import
 * { z }` from zod made esbuild keep all of zod (its ~40 locales, its JSON-schema reader and compiler:
 * ~580 KB more per command), and the `string-width` package built its Unicode tables at load
 * (~30 ms). Runs the BUILT bin (`pnpm test` builds first).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesLoadedBy, installLoadHook } from './loaded-files.js';
const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'packages/umbel/bin/umbel.js');
const bundle = join(root, 'packages/cli/dist/bin.cjs');
/** The bundle every command runs (the bin, yargs, core with the zod it uses, the providers, tmux). */
const BUDGET_BYTES = 1_600_000;
let scratch: string;

beforeAll(async () => {
  if (!existsSync(join(root, 'packages/cli/dist/cli.cjs'))) throw new Error('packages/cli is not built: run `pnpm build` first');
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-bin-weight-')));
  await installLoadHook(scratch);
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** The files node's ESM loader loads for a fresh `umbel <args>`. */
function esModulesLoadedBy(args: string[]): Promise<string[]> {
  return filesLoadedBy(scratch, 'bin', [bin, ...args], {
    PATH: process.env.PATH,
    HOME: scratch,
    UMBEL_HOME: join(scratch, 'home'),
    TMUX_TMPDIR: scratch,
  });
}

describe('the bin loads little for a verb', () => {
  it('umbel status loads no ES module: the bin, its loader and the bundle are CommonJS', async () => {
    // The hook registered to watch makes node hand it the entry file, whatever its format: nothing else.
    expect(await esModulesLoadedBy(['status', '--json'])).toEqual([bin]);
  });

  it(`the bundle is under ${BUDGET_BYTES / 1000} KB: no zod locale, no Unicode tables built at load`, async () => {
    expect((await stat(bundle)).size).toBeLessThan(BUDGET_BYTES);
    const text = await readFile(bundle, 'utf8');
    expect(text).not.toContain('RGI_Emoji');
    expect(text).not.toMatch(/Ung\\u00fcltige Eingabe|Entrada inv\\u00e1lida|Ungültige Eingabe|Entrada inválida/i);
  });
});

describe('the bin bundle is ASCII', () => {
  it('has no character outside ASCII: one makes node decode and V8 hold the whole 1.4 MB as two-byte text, ~10 ms more per command', async () => {
    const text = await readFile(join(root, 'packages/cli/dist/bin.cjs'), 'utf8');
    const first = /[^\x00-\x7f]/u.exec(text);
    expect(first && text.slice(Math.max(0, first.index - 60), first.index + 20)).toBeNull();
  });
});
