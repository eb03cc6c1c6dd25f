import { lstat, mkdir, mkdtemp, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { forgetByFacts, prepareInstall } from './prepare.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'umbel-kit-prepare-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('prepareInstall', () => {
  it('prepares the home, then makes the dirs and links, then reads (a linked file reads through its link)', async () => {
    const user = join(dir, 'user');
    await mkdir(join(user, 'chats'), { recursive: true });
    await writeFile(join(user, 'auth.json'), '{"mode":"login"}');
    await writeFile(join(user, 'config'), 'a\n');
    const home = join(dir, 'shared', 'home');
    const prepared = await prepareInstall({
      home: { user, home, lock: true, files: { config: (current) => `${current ?? ''}umbel\n` }, link: ['auth.json'] },
      dirs: [join(dir, 'w', 'tmp')],
      links: [
        { target: join(user, 'chats'), shared: join(dir, 'shared', 'chats'), path: join(home, 'chats') },
        { target: join(user, 'none'), shared: join(dir, 'shared', 'none'), path: join(home, 'none') },
      ],
      read: { auth: join(home, 'auth.json'), absent: join(dir, 'absent'), unreadable: dir, unnamed: undefined },
    });
    expect(prepared.home).toEqual({ config: 'a\numbel\n' });
    expect(await readFile(join(home, 'config'), 'utf8')).toBe('a\numbel\n');
    expect(prepared.read).toEqual({ auth: '{"mode":"login"}', absent: undefined, unreadable: undefined, unnamed: undefined });
    expect((await stat(join(dir, 'w', 'tmp'))).mode & 0o777).toBe(0o700);
    expect(await readlink(join(home, 'chats'))).toBe(join(user, 'chats'));
    expect(await readlink(join(home, 'none'))).toBe(join(dir, 'shared', 'none'));
    expect((await lstat(join(dir, 'shared', 'none'))).isDirectory()).toBe(true);
  });

  it('reads JSON objects first: {} when absent; a file that is not one refuses with a UsageError naming it, before anything is made', async () => {
    await writeFile(join(dir, 'ok.json'), '{"a": 1} // a comment');
    await writeFile(join(dir, 'bad.json'), '{"a": ');
    const what = 'Acme settings';
    expect((await prepareInstall({ readJson: { ok: { path: join(dir, 'ok.json'), what }, none: { path: join(dir, 'none.json'), what } } })).json).toEqual({
      ok: { a: 1 },
      none: {},
    });
    const home = join(dir, 'home');
    const bad = prepareInstall({ home: { user: dir, home }, dirs: [join(dir, 'made')], readJson: { bad: { path: join(dir, 'bad.json'), what } } });
    await expect(bad).rejects.toThrow(UsageError);
    await expect(bad).rejects.toThrow(`cannot read Acme settings ${join(dir, 'bad.json')}`);
    // refused before anything was made
    await expect(stat(home)).rejects.toThrow();
    await expect(stat(join(dir, 'made'))).rejects.toThrow();
  });

  it('does nothing for no facts', async () => {
    expect(await prepareInstall({})).toEqual({ home: {}, read: {}, json: {} });
  });
});

describe('forgetByFacts', () => {
  it("edits the shared files, skips an unnamed or absent one, removes the sessions' state; never throws", async () => {
    await writeFile(join(dir, 'state.json'), 'keep\ndrop\n');
    await mkdir(join(dir, 'root', 'session-env', 'session-0001'), { recursive: true });
    await mkdir(join(dir, 'root', 'session-env', 'session-0002'), { recursive: true });
    await forgetByFacts({
      edits: [
        { path: join(dir, 'state.json'), edit: (text) => text.replace('drop\n', '') },
        { path: undefined, edit: () => 'x' },
        { path: join(dir, 'absent.json'), edit: () => 'x' },
        {
          path: join(dir, 'state.json'),
          edit: () => {
            throw new Error('a broken edit');
          },
        },
      ],
      sessionState: { root: join(dir, 'root'), sessionIds: ['session-0001'], dirs: ['session-env'] },
    });
    expect(await readFile(join(dir, 'state.json'), 'utf8')).toBe('keep\n');
    await expect(stat(join(dir, 'absent.json'))).rejects.toThrow();
    await expect(stat(join(dir, 'root', 'session-env', 'session-0001'))).rejects.toThrow();
    expect((await stat(join(dir, 'root', 'session-env', 'session-0002'))).isDirectory()).toBe(true);
    await expect(forgetByFacts({ sessionState: { root: undefined, sessionIds: ['session-0001'] } })).resolves.toBeUndefined();
  });
});
