/**
 * The shape of a first-party provider (issue 29, "providers as facts plus one reader"): at most 600
 * source lines, and no code of its own that does I/O — the files a launch reads, the home it
 * prepares, the directories it makes and the scratch state it forgets are facts the kit acts on.
 * What is left imperative is the transcript reader (pure over a text) and, for a CLI that loads a
 * plugin, the plugin that runs inside it (opencode's `plugin.ts`, handed its I/O by the kit's runtime).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const MAX_LINES = 600;
/** Code that runs inside the CLI, not in umbel. */
const IN_CLI = new Set(['packages/provider-opencode/src/plugin.ts']);

async function sourcesOf(pkg: string): Promise<{ path: string; text: string }[]> {
  const dir = join(root, 'packages', pkg, 'src');
  const names = (await readdir(dir)).filter((n) => n.endsWith('.ts') && !n.endsWith('.test.ts'));
  return Promise.all(names.map(async (n) => ({ path: `packages/${pkg}/src/${n}`, text: await readFile(join(dir, n), 'utf8') })));
}

/** What in a module's text does I/O of its own: node's I/O modules imported, the kit's I/O helpers called, anything awaited. */
function ioOf(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/from '(node:(?:fs|fs\/promises|child_process|net|http|https))'/g)) found.push(`imports ${m[1]}`);
  for (const m of text.matchAll(
    /\b(prepareHome|readTextIfExists|readJsonObject|linkUserOrShared|editQuietly|editSharedFile|removeSessionState|withDirLock|writeIfChanged|symlinkIfAbsent)\(/g,
  ))
    found.push(`calls ${m[1]}`);
  if (/\bawait\b/.test(text)) found.push('awaits');
  return found;
}

const providers = (await readdir(join(root, 'packages'))).filter((d) => d.startsWith('provider-'));

describe('first-party providers are facts plus one reader', () => {
  it('finds the providers', () => {
    expect(providers.length).toBeGreaterThanOrEqual(6);
  });

  it('the check sees I/O of a provider module (probe)', () => {
    expect(ioOf("import { mkdir } from 'node:fs/promises';")).toEqual(['imports node:fs/promises']);
    expect(ioOf('const t = await readTextIfExists(p);')).toEqual(['calls readTextIfExists', 'awaits']);
    expect(ioOf('export const pure = (t: string) => t.trim();')).toEqual([]);
  });

  it.each(providers)('%s has at most 600 source lines', async (pkg) => {
    const lines = (await sourcesOf(pkg)).reduce((n, f) => n + f.text.split('\n').length - (f.text.endsWith('\n') ? 1 : 0), 0);
    expect(lines, `${pkg}: ${lines} lines`).toBeLessThanOrEqual(MAX_LINES);
  });

  it.each(providers)('%s does no I/O of its own', async (pkg) => {
    const io = (await sourcesOf(pkg)).filter((f) => !IN_CLI.has(f.path)).flatMap((f) => ioOf(f.text).map((what) => `${f.path} ${what}`));
    expect(io).toEqual([]);
  });
});
