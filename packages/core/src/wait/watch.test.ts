import { appendFile, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DirWatcher, watchDir } from './watch.js';

let root: string;
let watcher: DirWatcher | undefined;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'umbel-watch-'));
});
afterEach(async () => {
  await watcher?.close();
  watcher = undefined;
  await rm(root, { recursive: true, force: true });
});

/** A generous bound: `next` resolving `false` means the change was never noticed. */
const NOTICE_MS = 10_000;

describe('watchDir with fs.watch, for a file whose directories do not exist yet', () => {
  it('watches natively through the nearest existing ancestor, level by level, without the fallback', async () => {
    const dir = join(root, 'events');
    await mkdir(dir);
    watcher = await watchDir(dir);
    // Like a first transcript: <config>/projects/<slug>/<session>.jsonl, its directories made with the first line.
    const transcript = join(root, 'config', 'projects', 'slug', 'session.jsonl');
    watcher.add(transcript);
    await mkdir(join(root, 'config'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await mkdir(join(root, 'config', 'projects', 'slug'), { recursive: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    while (await watcher.next(0)) {
      /* drain */
    }
    let pending = watcher.next(NOTICE_MS);
    await writeFile(transcript, '{"n":1}\n');
    expect(await pending).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    while (await watcher.next(0)) {
      /* drain */
    }
    pending = watcher.next(NOTICE_MS);
    await appendFile(transcript, '{"n":2}\n');
    expect(await pending).toBe(true);
    expect(watcher.usesFallback()).toBe(false);
  });
});

describe.each([
  ['fs.watch', {}],
  ['the chokidar fallback', { native: false }],
] as const)('watchDir with %s', (_name, options) => {
  it('wakes for an event file renamed into the dir, with many files already there', async () => {
    const dir = join(root, 'events');
    await mkdir(dir);
    for (let i = 0; i < 300; i++) await writeFile(join(dir, `${i}-1-old.json`), '{}');
    watcher = await watchDir(dir, options);
    expect(await watcher.next(30)).toBe(false);
    const pending = watcher.next(NOTICE_MS);
    await writeFile(join(dir, '.tmp-1'), '{}');
    await rename(join(dir, '.tmp-1'), join(dir, '999-1-stop.json'));
    expect(await pending).toBe(true);
  });

  it('wakes for an added file that appears later and for each append to it', async () => {
    const dir = join(root, 'events');
    const other = join(root, 'projects', 'p');
    await mkdir(dir);
    await mkdir(other, { recursive: true });
    watcher = await watchDir(dir, options);
    const transcript = join(other, 'session.jsonl');
    watcher.add(transcript);
    await new Promise((resolve) => setTimeout(resolve, 100)); // let the added watch settle
    while (await watcher.next(0)) {
      /* drain */
    }
    let pending = watcher.next(NOTICE_MS);
    await writeFile(transcript, '{"n":1}\n');
    expect(await pending).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    while (await watcher.next(0)) {
      /* drain */
    }
    pending = watcher.next(NOTICE_MS);
    await appendFile(transcript, '{"n":2}\n');
    expect(await pending).toBe(true);
  });

  it('keeps waking for an added file that is replaced by a rename', async () => {
    const dir = join(root, 'events');
    const other = join(root, 'chats');
    await mkdir(dir);
    await mkdir(other);
    const chat = join(other, 'chat.json');
    await writeFile(chat, '{"v":1}');
    watcher = await watchDir(dir, options);
    watcher.add(chat);
    for (let v = 2; v <= 3; v++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      while (await watcher.next(0)) {
        /* drain */
      }
      const pending = watcher.next(NOTICE_MS);
      await writeFile(`${chat}.tmp`, `{"v":${v}}`);
      await rename(`${chat}.tmp`, chat);
      expect(await pending).toBe(true);
    }
  });

  it('poke wakes a waiter without any file change', async () => {
    const dir = join(root, 'events');
    await mkdir(dir);
    watcher = await watchDir(dir, options);
    const pending = watcher.next(NOTICE_MS);
    watcher.poke();
    expect(await pending).toBe(true);
  });
});
