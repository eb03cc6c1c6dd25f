import { lstat, mkdir, mkdtemp, readFile, readlink, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UsageError } from '../errors.js';
import { readJsonObject, symlinkIfAbsent, writeIfChanged } from './files.js';
import { asRecord, deepMerge, isRecord, jsonLines, stringField, stripJsonComments } from './json.js';
import { withDirLock } from './lock.js';
import { allOf, anyOf, cursorOn, matches, oneLine, trimBox } from './matchers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'umbel-kit-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('JSON helpers', () => {
  it('isRecord is true for plain objects only', () => {
    expect([{}, { a: 1 }, [], null, 'x', 1, undefined].map(isRecord)).toEqual([true, true, false, false, false, false, false]);
  });

  it('deepMerge merges objects through and through, arrays and scalars of the second replace, neither input changes', () => {
    const a = { x: { y: 1, z: [1, 2] }, k: 'a', keep: { deep: { v: 1 } } };
    const b = { x: { z: [3], w: true }, k: { now: 'object' } };
    const merged = deepMerge(a, b);
    expect(merged).toEqual({ x: { y: 1, z: [3], w: true }, k: { now: 'object' }, keep: { deep: { v: 1 } } });
    expect(a).toEqual({ x: { y: 1, z: [1, 2] }, k: 'a', keep: { deep: { v: 1 } } });
    (merged.keep as { deep: { v: number } }).deep.v = 2;
    (merged.x as { z: number[] }).z.push(4);
    expect(a.keep.deep.v).toBe(1);
    expect(b.x.z).toEqual([3]);
  });

  it('jsonLines keeps object lines with their line numbers, skipping blanks, partial writes and non-objects', () => {
    const text = '{"a":1}\n\n[1,2]\nnot json\n"str"\n{"b":2}\n{"c":';
    expect(jsonLines(text)).toEqual([
      { line: 0, value: { a: 1 } },
      { line: 5, value: { b: 2 } },
    ]);
    expect(jsonLines('')).toEqual([]);
  });

  it('jsonLines parses only the lines a growing transcript added since the last call, with the result of a fresh parse', () => {
    const lines = Array.from({ length: 40 }, (_, i) => JSON.stringify({ i, pad: 'x'.repeat(200) })).join('\n');
    const fresh = (text: string) =>
      text.split('\n').flatMap((t, line) => {
        const value = t.startsWith('{') && t.endsWith('}') ? JSON.parse(t) : undefined;
        return value ? [{ line, value }] : [];
      });
    const first = `${lines}\n{"partial":`;
    expect(jsonLines(first)).toEqual(fresh(first));
    const grown = `${lines}\n{"partial":true}\nnot json\n{"last":1}`;
    const parse = vi.spyOn(JSON, 'parse');
    let result: unknown;
    try {
      result = jsonLines(grown);
      expect(parse).toHaveBeenCalledTimes(3); // the completed partial line, "not json", the new last one
    } finally {
      parse.mockRestore();
    }
    expect(result).toEqual(fresh(grown));
    // a text that does not continue a known one (another file, or this one rewritten) is parsed afresh
    const other = `{"i":0}\n${'{"other":1}\n'.repeat(300)}`;
    expect(jsonLines(other)).toEqual(fresh(other));
  });

  it('jsonLines hands out frozen values (they are shared between calls): a reader that changes one fails at once', () => {
    const small = jsonLines('{"a":{"b":[1,{"c":2}]}}\n');
    const big = jsonLines(`${JSON.stringify({ a: { b: [1, { c: 2 }] }, pad: 'x'.repeat(5000) })}\n`);
    for (const lines of [small, big]) {
      const value = lines[0]?.value as Record<string, unknown>;
      expect(Object.isFrozen(value)).toBe(true);
      const a = value.a as { b: [number, { c: number }] };
      expect(Object.isFrozen(a) && Object.isFrozen(a.b) && Object.isFrozen(a.b[1])).toBe(true);
      expect(() => {
        a.b[1].c = 3;
      }).toThrow(TypeError);
    }
  });

  it('stringField reads non-empty strings, dotted keys reach nested objects', () => {
    const o = { a: 'x', e: '', n: 1, d: { c: 'deep' } };
    expect([stringField(o, 'a'), stringField(o, 'e'), stringField(o, 'n'), stringField(o, 'd.c'), stringField(o, 'd.x.y')]).toEqual([
      'x',
      undefined,
      undefined,
      'deep',
      undefined,
    ]);
    expect(asRecord([1])).toBeUndefined();
    expect(asRecord(null)).toBeUndefined();
  });

  it('stripJsonComments removes comments and trailing commas, never inside strings', () => {
    const text = '{\n // mine\n "url": "http://x//y", /* block */ "s": "a\\"//b",\n "list": [1, 2,],\n}';
    expect(JSON.parse(stripJsonComments(text))).toEqual({ url: 'http://x//y', s: 'a"//b', list: [1, 2] });
  });
});

describe('file helpers', () => {
  it('readJsonObject: {} for a missing or empty file, JSONC accepted, a UsageError naming the file otherwise', async () => {
    expect(await readJsonObject(join(dir, 'missing.json'), 'Echo settings')).toEqual({});
    await writeFile(join(dir, 'empty.json'), '  \n');
    expect(await readJsonObject(join(dir, 'empty.json'), 'Echo settings')).toEqual({});
    await writeFile(join(dir, 'ok.json'), '{ "a": 1, // c\n}');
    expect(await readJsonObject(join(dir, 'ok.json'), 'Echo settings')).toEqual({ a: 1 });
    await writeFile(join(dir, 'bad.json'), '{ nope');
    await expect(readJsonObject(join(dir, 'bad.json'), 'Echo settings')).rejects.toThrow(UsageError);
    await expect(readJsonObject(join(dir, 'bad.json'), 'Echo settings')).rejects.toThrow(`cannot read Echo settings ${join(dir, 'bad.json')}`);
    await writeFile(join(dir, 'array.json'), '[1]');
    await expect(readJsonObject(join(dir, 'array.json'), 'Echo settings')).rejects.toThrow('not a JSON object');
  });

  it('writeIfChanged writes privately, and leaves a file that already holds the content untouched', async () => {
    const path = join(dir, 'sub', 'f.txt');
    await mkdir(join(dir, 'sub'));
    expect(await writeIfChanged(path, 'one')).toBe(true);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const old = new Date(2000, 0, 1);
    await utimes(path, old, old);
    expect(await writeIfChanged(path, 'one')).toBe(false);
    expect((await stat(path)).mtime.getTime()).toBe(old.getTime());
    expect(await writeIfChanged(path, 'two')).toBe(true);
    expect(await readFile(path, 'utf8')).toBe('two');
  });

  it('symlinkIfAbsent links once, keeps what is there, and links nothing to a missing target', async () => {
    await writeFile(join(dir, 'target'), 't');
    expect(await symlinkIfAbsent(join(dir, 'target'), join(dir, 'link'))).toBe(true);
    expect(await readlink(join(dir, 'link'))).toBe(join(dir, 'target'));
    expect(await symlinkIfAbsent(join(dir, 'other'), join(dir, 'link'))).toBe(false);
    await writeFile(join(dir, 'own'), 'mine');
    expect(await symlinkIfAbsent(join(dir, 'target'), join(dir, 'own'))).toBe(false);
    expect((await lstat(join(dir, 'own'))).isSymbolicLink()).toBe(false);
    expect(await symlinkIfAbsent(join(dir, 'missing'), join(dir, 'dangling'))).toBe(false);
    await expect(lstat(join(dir, 'dangling'))).rejects.toThrow();
  });
});

describe('withDirLock', () => {
  it('runs holders one at a time and removes the lock', async () => {
    const lock = join(dir, 'x.lock');
    let inside = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        withDirLock(lock, async () => {
          inside += 1;
          most = Math.max(most, inside);
          await new Promise((r) => setTimeout(r, 5));
          order.push(i);
          inside -= 1;
        }),
      ),
    );
    expect(most).toBe(1);
    expect(order.sort()).toEqual([0, 1, 2, 3, 4, 5]);
    await expect(stat(lock)).rejects.toThrow();
  });

  it('takes over a stale lock and gives up on a live one after its timeout', async () => {
    const lock = join(dir, 'y.lock');
    await mkdir(lock);
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    expect(await withDirLock(lock, async () => 'got it')).toBe('got it');
    await mkdir(lock);
    await expect(withDirLock(lock, async () => 'never', { timeoutMs: 50 })).rejects.toThrow(`timed out waiting for the lock ${lock}`);
  });

  it('releases the lock when the holder throws', async () => {
    const lock = join(dir, 'z.lock');
    await expect(withDirLock(lock, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(stat(lock)).rejects.toThrow();
  });
});

describe('matchers', () => {
  it('cursorOn finds the highlighted option, in a box or not; allOf/anyOf combine', () => {
    const screen = '│ Do it? │\n│ ❯ 1. Yes, I accept │\n│   2. No, exit │';
    expect(matches(cursorOn('❯', '1. Yes'), screen)).toBe(true);
    expect(matches(cursorOn('❯', '2. No'), screen)).toBe(false);
    expect(matches(cursorOn('❯', '1. Yes'), '❯1. Yes')).toBe(true);
    expect(matches(allOf('Do it?', /Yes/), screen)).toBe(true);
    expect(matches(allOf('Do it?', /Absent/), screen)).toBe(false);
    expect(matches(anyOf('absent', /2\. No/), screen)).toBe(true);
    expect(matches(anyOf('absent', /gone/), screen)).toBe(false);
  });

  it('trimBox and oneLine', () => {
    expect(trimBox('  │ Sign in here │  ')).toBe('Sign in here');
    expect(oneLine('a\n  b\tc', 4)).toBe('a b…');
  });
});
