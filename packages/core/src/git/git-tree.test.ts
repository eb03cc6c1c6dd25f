import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findWorkTree, parseNameStatus, snapshotTree } from './git-tree.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

describe('snapshotTree', () => {
  it('sees an edit that keeps the size, made in the second the index was written (racy git)', async () => {
    // git compares mtimes in whole seconds; its racy-entry check (an entry not older than the index
    // file itself is hashed again) only works while the copy of the index keeps the index's mtime.
    for (let tries = 0; ; tries++) {
      const dir = mkdtempSync(join(tmpdir(), 'umbel-racy-'));
      dirs.push(dir);
      const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' });
      git('init', '-q');
      while (Date.now() % 1000 > 300) await sleep(20);
      writeFileSync(join(dir, 'k.txt'), 'one\n');
      git('add', 'k.txt');
      writeFileSync(join(dir, 'k.txt'), 'two\n');
      const second = (p: string) => Math.floor(statSync(p).mtimeMs / 1000);
      if (second(join(dir, 'k.txt')) !== second(join(dir, '.git', 'index'))) {
        if (tries < 5) continue; // too slow to set the trap this time
        throw new Error('could not edit the file within the second the index was written');
      }
      await sleep(1100); // the snapshot runs a second later
      const snapshot = await snapshotTree(dir, dir, env);
      expect(snapshot && 'tree' in snapshot).toBe(true);
      expect(git('show', `${(snapshot as { tree: string }).tree}:k.txt`)).toBe('two\n');
      return;
    }
  });

  it('outside a work tree there is nothing to snapshot, and no git runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'umbel-nogit-'));
    dirs.push(dir);
    expect(await snapshotTree(dir, dir, { PATH: '/nonexistent' })).toBeUndefined();
  });
});

describe('parseNameStatus', () => {
  it('reads additions, renames and deletions', () => {
    expect(parseNameStatus('A\0new.txt\0R087\0old.ts\0moved.ts\0D\0gone\0M\0kept\0T\0link\0')).toEqual([
      { status: 'added', path: 'new.txt' },
      { status: 'renamed', path: 'moved.ts', from: 'old.ts' },
      { status: 'deleted', path: 'gone' },
      { status: 'modified', path: 'kept' },
      { status: 'type-changed', path: 'link' },
    ]);
  });
});

describe('findWorkTree', () => {
  it('takes a .git above the cwd only when git would: a repository, or a gitdir file — never an empty .git', async () => {
    // Codex's sandbox (0.171) mounts over <writable root>/.git while a tool runs: with /tmp writable
    // an empty /tmp/.git exists for a moment, and git walks past it (it is no repository).
    const top = mkdtempSync(join(tmpdir(), 'umbel-find-'));
    dirs.push(top);
    const work = join(top, 'a', 'work');
    mkdirSync(join(top, '.git'));
    mkdirSync(work, { recursive: true });
    expect(await findWorkTree(work)).toBeUndefined();
    writeFileSync(join(top, 'a', '.git'), 'not a gitdir line\n');
    expect(await findWorkTree(work)).toBeUndefined();
    writeFileSync(join(top, 'a', '.git'), `gitdir: ${join(top, 'elsewhere')}\n`);
    expect(await findWorkTree(work)).toBe(join(top, 'a'));
    rmSync(join(top, 'a', '.git'));
    execFileSync('git', ['init', '-q'], { cwd: work, env });
    expect(await findWorkTree(join(work))).toBe(work);
  });
});
