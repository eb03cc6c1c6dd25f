/**
 * What a verb of the bin loads, seen from a fresh node process: a command's start on a small
 * machine is bound by the source the ESM loader must compile, so the bundle stays lean. `import { z }`
 * from zod made esbuild keep all of zod (its ~40 locales, its JSON-schema reader and compiler:
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
/** The source `umbel status` may load (the bin, yargs, core with the zod it uses, the providers, tmux). */
const BUDGET_BYTES = 1_000_000;
let scratch: string;

beforeAll(async () => {
  if (!existsSync(join(root, 'packages/cli/dist/cli.js'))) throw new Error('packages/cli is not built: run `pnpm build` first');
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-bin-weight-')));
  await installLoadHook(scratch);
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** The files a fresh `umbel <args>` loads. */
function loadedBy(args: string[]): Promise<string[]> {
  return filesLoadedBy(scratch, 'bin', [bin, ...args], {
    PATH: process.env.PATH,
    HOME: scratch,
    UMBEL_HOME: join(scratch, 'home'),
    TMUX_TMPDIR: scratch,
  });
}

describe('the bin loads little for a verb', () => {
  it(`umbel status loads under ${BUDGET_BYTES / 1000} KB of source: no zod locale, no Unicode tables built at load`, async () => {
    const files = await loadedBy(['status', '--json']);
    expect(files.some((f) => f.includes('/packages/cli/dist/'))).toBe(true);
    let bytes = 0;
    for (const file of files) {
      bytes += (await stat(file)).size;
      const text = await readFile(file, 'utf8');
      expect(text, file).not.toContain('RGI_Emoji');
      expect(text, file).not.toMatch(/Ungültige Eingabe|Entrada inválida/);
    }
    expect(bytes).toBeLessThan(BUDGET_BYTES);
  });
});

describe('the bin bundle is ASCII', () => {
  it('has no character outside ASCII: one makes node decode and V8 hold the whole 1.4 MB as two-byte text, ~10 ms more per command', async () => {
    const text = await readFile(join(root, 'packages/cli/dist/bin.cjs'), 'utf8');
    const first = /[^\x00-\x7f]/u.exec(text);
    expect(first && text.slice(Math.max(0, first.index - 60), first.index + 20)).toBeNull();
  });
});
