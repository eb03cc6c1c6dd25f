import { lstat, mkdir, mkdtemp, readFile, readlink, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareHome } from './home.js';

let dir: string;
let user: string;
let home: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'umbel-kit-home-'));
  user = join(dir, 'user');
  home = join(dir, 'shared', 'home');
  await mkdir(user);
  await writeFile(join(user, 'config.txt'), 'user: 1\n');
  await writeFile(join(user, 'auth.json'), '{"token":"t"}');
  await writeFile(join(user, 'notes.md'), 'n');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const addLine = (line: string) => (current: string | undefined) => ((current ?? '').includes(line) ? (current ?? '') : `${current ?? ''}${line}\n`);

describe('prepareHome', () => {
  it("starts a managed file from the user's copy, then edits the managed one; the user's files stay as they were", async () => {
    const texts = await prepareHome({ user, home, files: { 'config.txt': addLine('umbel: 1') } });
    expect(texts).toEqual({ 'config.txt': 'user: 1\numbel: 1\n' });
    await writeFile(join(home, 'config.txt'), 'cli wrote this\n');
    await prepareHome({ user, home, files: { 'config.txt': addLine('umbel: 1') } });
    expect(await readFile(join(home, 'config.txt'), 'utf8')).toBe('cli wrote this\numbel: 1\n');
    expect(await readFile(join(user, 'config.txt'), 'utf8')).toBe('user: 1\n');
    expect((await stat(home)).mode & 0o777).toBe(0o700);
    expect((await stat(join(home, 'config.txt'))).mode & 0o777).toBe(0o600);
  });

  it('writes a managed file only when it changes', async () => {
    await prepareHome({ user, home, files: { 'hooks.json': () => '{}' } });
    const past = new Date(Date.now() - 60_000);
    await utimes(join(home, 'hooks.json'), past, past);
    const before = (await stat(join(home, 'hooks.json'))).mtimeMs;
    await prepareHome({ user, home, files: { 'hooks.json': () => '{}' } });
    expect((await stat(join(home, 'hooks.json'))).mtimeMs).toBe(before);
  });

  it("links the named entries of the user's dir (only those that exist), never over a file already there", async () => {
    await mkdir(home, { recursive: true });
    await writeFile(join(home, 'notes.md'), 'the CLI wrote this');
    await prepareHome({ user, home, link: ['auth.json', 'notes.md', 'absent.md'] });
    expect(await readlink(join(home, 'auth.json'))).toBe(join(user, 'auth.json'));
    expect((await lstat(join(home, 'notes.md'))).isSymbolicLink()).toBe(false);
    await expect(lstat(join(home, 'absent.md'))).rejects.toThrow();
  });

  it("links every entry of the user's dir a test accepts", async () => {
    await prepareHome({ user, home, link: (name) => name !== 'config.txt' });
    expect(await readlink(join(home, 'notes.md'))).toBe(join(user, 'notes.md'));
    expect(await readlink(join(home, 'auth.json'))).toBe(join(user, 'auth.json'));
    await expect(lstat(join(home, 'config.txt'))).rejects.toThrow();
  });

  it('concurrent locked preparations each keep their edit', async () => {
    await Promise.all(['a', 'b', 'c', 'd'].map((line) => prepareHome({ user, home, lock: true, files: { 'config.txt': addLine(line) } })));
    const text = await readFile(join(home, 'config.txt'), 'utf8');
    for (const line of ['a', 'b', 'c', 'd']) expect(text).toContain(`${line}\n`);
    await expect(lstat(`${home}.lock`)).rejects.toThrow();
  });
});
