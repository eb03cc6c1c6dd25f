import { chmod, mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeCacheDir, commandKind, loadBundle } from './boot.js';

let dir: string;
let cache: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'umbel-boot-'));
  cache = join(dir, 'cache');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function bundle(name: string, source: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, source);
  return file;
}
const env = () => ({ UMBEL_CODE_CACHE: cache });

describe('code cache directory', () => {
  it('is UMBEL_CODE_CACHE, else under XDG_CACHE_HOME, else ~/.cache; off or 0 disables it', () => {
    expect(codeCacheDir({ UMBEL_CODE_CACHE: '/x/c', XDG_CACHE_HOME: '/y', HOME: '/h' })).toBe('/x/c');
    expect(codeCacheDir({ XDG_CACHE_HOME: '/y', HOME: '/h' })).toBe('/y/umbel/code-cache');
    expect(codeCacheDir({ HOME: '/h' })).toBe('/h/.cache/umbel/code-cache');
    expect(codeCacheDir({ UMBEL_CODE_CACHE: 'off', HOME: '/h' })).toBeUndefined();
    expect(codeCacheDir({ UMBEL_CODE_CACHE: '0', HOME: '/h' })).toBeUndefined();
  });
});

// A corrupt or stale cache file in a new process (where V8 checks it): e2e-code-cache.test.ts.
describe('command kinds (each has its own cache: V8 caches what the command compiled)', () => {
  it('tells -p, the verbs, --version, mcp, run and rpc apart', () => {
    expect(commandKind(['-p', 'hi'])).toBe('print');
    expect(commandKind(['--model', 'x', '--print', 'hi'])).toBe('print');
    expect(commandKind(['--version'])).toBe('version');
    expect(commandKind(['status', '--json'])).toBe('verbs');
    expect(commandKind([])).toBe('verbs');
    for (const verb of ['mcp', 'run', 'rpc']) expect(commandKind([verb, 'x'])).toBe(verb);
  });

  it('keeps one cache file per kind', async () => {
    const file = await bundle('b.cjs', 'module.exports = {};');
    loadBundle(file, env(), 'print').settle();
    loadBundle(file, env(), 'verbs').settle();
    expect((await readdir(cache)).map((f) => f.split('-')[1]).sort()).toEqual(['print', 'verbs']);
    expect(loadBundle(file, env(), 'print').cache).toBe('hit');
  });
});

describe('loadBundle', () => {
  it('compiles the bundle once: the first command stores its code (0600 in a 0700 dir), the next one loads it', async () => {
    const file = await bundle('b.cjs', 'module.exports = { answer: (x) => x * 2, file: __filename };');
    const first = loadBundle<{ answer(x: number): number; file: string }>(file, env());
    expect(first.cache).toBe('miss');
    expect(first.exports.answer(21)).toBe(42);
    expect(first.exports.file).toBe(file);
    first.settle();
    const [entry, ...more] = await readdir(cache);
    expect(more).toEqual([]);
    expect(entry).toMatch(new RegExp(`^[0-9a-f]{32}-verbs-${process.version.replaceAll('.', '\\.')}-${process.arch}\\.v8$`));
    expect((await stat(cache)).mode & 0o777).toBe(0o700);
    expect((await stat(join(cache, entry as string))).mode & 0o777).toBe(0o600);
    const second = loadBundle<{ answer(x: number): number }>(file, env());
    expect(second.cache).toBe('hit');
    expect(second.exports.answer(2)).toBe(4);
  });

  it('a bundle with text beyond ASCII runs with that text intact, from the cache too (the built one is ASCII, read the fast way)', async () => {
    const file = await bundle('u.cjs', "module.exports = { s: 'é│❯ ok' };");
    const first = loadBundle<{ s: string }>(file, env());
    expect(first.exports.s).toBe('é│❯ ok');
    first.settle();
    expect(loadBundle<{ s: string }>(file, env())).toMatchObject({ cache: 'hit', exports: { s: 'é│❯ ok' } });
  });

  it('a changed bundle of the same length never runs an old cache (V8 itself checks only the length)', async () => {
    const file = await bundle('b.cjs', 'module.exports = { v: 1 };');
    loadBundle(file, env()).settle();
    await writeFile(file, 'module.exports = { v: 2 };');
    const changed = loadBundle<{ v: number }>(file, env());
    expect(changed.cache).toBe('miss');
    expect(changed.exports.v).toBe(2);
  });

  it('a cache directory others can write is never read or written; off writes nothing', async () => {
    const file = await bundle('b.cjs', 'module.exports = { v: 3 };');
    await mkdir(cache, { mode: 0o700 });
    await chmod(cache, 0o777);
    const open = loadBundle<{ v: number }>(file, env());
    expect(open.cache).toBe('off');
    open.settle();
    expect(await readdir(cache)).toEqual([]);
    const off = loadBundle<{ v: number }>(file, { UMBEL_CODE_CACHE: 'off', HOME: join(dir, 'home') });
    expect(off.cache).toBe('off');
    expect(off.exports.v).toBe(3);
    off.settle();
    expect(await readdir(dir)).toEqual(['b.cjs', 'cache']);
  });

  it('keeps the caches of the two bundles written last besides its own: upgrades do not pile up (two installs side by side both keep theirs)', async () => {
    await mkdir(cache, { mode: 0o700 });
    const tag = `${process.version}-${process.arch}`;
    const old = (n: number) => `${String(n).repeat(32)}`;
    const hours = (h: number) => new Date(Date.now() - h * 3600_000);
    // four older bundles (two kinds each), newest first, and a file that is not a cache
    for (const [n, age] of [
      [1, 1],
      [2, 2],
      [3, 30],
      [4, 400],
    ] as const) {
      for (const kind of ['print', 'verbs']) {
        const path = join(cache, `${old(n)}-${kind}-${tag}.v8`);
        await writeFile(path, 'x', { mode: 0o600 });
        await utimes(path, hours(age), hours(age));
      }
    }
    await writeFile(join(cache, 'notes.txt'), 'mine');
    const file = await bundle('b.cjs', 'module.exports = { v: 4 };');
    loadBundle(file, env(), 'print').settle();
    const left = (await readdir(cache)).sort();
    expect(left.filter((f) => f.startsWith(old(1)) || f.startsWith(old(2)))).toHaveLength(4);
    expect(left.filter((f) => f.startsWith(old(3)) || f.startsWith(old(4)))).toEqual([]);
    expect(left).toContain('notes.txt');
    expect(left.filter((f) => f.includes('-print-') && !f.startsWith(old(1)) && !f.startsWith(old(2)))).toHaveLength(1);
    // a hit writes nothing and removes nothing
    await writeFile(join(cache, `${old(5)}-verbs-${tag}.v8`), 'x', { mode: 0o600 });
    expect(loadBundle(file, env(), 'print').cache).toBe('hit');
    expect(await readdir(cache)).toHaveLength(left.length + 1);
  });

  it('a bundle that fails to load throws its own error (the cache changes nothing)', async () => {
    const file = await bundle('b.cjs', 'throw new Error("broken bundle");');
    expect(() => loadBundle(file, env())).toThrow('broken bundle');
  });
});
