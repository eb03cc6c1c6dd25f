/** spawn/status/diff/kill/prune of workers in their own git worktree (spawn `worktree`), on the memory substrate. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUmbel } from './engine.js';
import { UmbelError, UmbelErrorCode } from '../contract/errors.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';
import type { Umbel } from '../contract/umbel.js';

let root: string;
let home: string;
let repo: string;
let substrate: MemorySubstrate;
let umbel: Umbel;
const env = {
  PATH: process.env.PATH,
  HOME: '/nonexistent-home',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
};
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8' });

beforeEach(async () => {
  root = await realpath(mkdtempSync(join(tmpdir(), 'umbel-wtw-')));
  home = join(root, 'home');
  repo = join(root, 'repo');
  mkdirSync(join(repo, 'sub'), { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'same.txt'), 'base\n');
  writeFileSync(join(repo, 'sub', 'x.txt'), 'x\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'base');
  substrate = createMemorySubstrate();
  // No worktree reserve here (git/spare.test.ts and e2e-worktree test it): the counts are of workers' worktrees.
  umbel = createUmbel({ substrate, providers: [createMockProvider()], home, env, reserveWorktree: async () => undefined });
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  rmSync(root, { recursive: true, force: true });
});

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (UmbelError.isInstance(error)) return error.code;
    throw error;
  }
  return 'no error';
}

const branches = () => git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/umbel/').trim();
const entries = () => git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)?.length ?? 0;
const spawn = (name: string, extra: Record<string, unknown> = {}) => umbel.spawn({ name, provider: 'mock', cwd: join(repo, 'sub'), worktree: true, ...extra });

describe('spawn with worktree', () => {
  it('runs the worker in its own worktree at the same subdirectory, on umbel/<name>, and status shows it', async () => {
    const head = git(repo, 'rev-parse', 'HEAD').trim();
    const status = await spawn('w1');
    const path = join(home, 'worktrees', 'w1');
    expect(status.cwd).toBe(join(path, 'sub'));
    expect(status.worktree).toEqual({ path, branch: 'umbel/w1', base: head });
    expect(git(path, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('umbel/w1');
    expect(await umbel.status({ name: 'w1' })).toMatchObject({ worktree: { path, branch: 'umbel/w1', base: head, dirty: false, ahead: 0 } });
    writeFileSync(join(path, 'same.txt'), 'w1\n');
    expect((await umbel.status({ name: 'w1' })).worktree).toMatchObject({ dirty: true, ahead: 0 });
    expect((await umbel.list())[0]?.worktree?.branch).toBe('umbel/w1');
  });

  it('two workers writing the same file each see only their own; the user checkout stays byte-identical', async () => {
    writeFileSync(join(repo, 'same.txt'), 'user edit, uncommitted\n');
    const before = git(repo, 'status', '--porcelain');
    await spawn('a');
    await spawn('b');
    writeFileSync(join(home, 'worktrees', 'a', 'same.txt'), 'from a\n');
    writeFileSync(join(home, 'worktrees', 'b', 'same.txt'), 'from b\n');
    expect(readFileSync(join(home, 'worktrees', 'a', 'same.txt'), 'utf8')).toBe('from a\n');
    expect(readFileSync(join(home, 'worktrees', 'b', 'same.txt'), 'utf8')).toBe('from b\n');
    expect(readFileSync(join(repo, 'same.txt'), 'utf8')).toBe('user edit, uncommitted\n');
    expect(git(repo, 'status', '--porcelain')).toBe(before);
    const diff = await umbel.diff({ name: 'a', against: 'base' });
    expect(diff).toMatchObject({ against: 'base', method: 'git', files: [{ path: 'same.txt', status: 'modified' }] });
    expect(diff.patch).toContain('+from a');
  });

  it('kill keeps the worktree; purge refuses one with work; discard removes it and its branch', async () => {
    await spawn('w1');
    const path = join(home, 'worktrees', 'w1');
    writeFileSync(join(path, 'new.txt'), 'work\n');
    expect(await umbel.kill({ name: 'w1' })).toMatchObject({ killed: true, purged: false, worktree: { path, branch: 'umbel/w1', removed: false } });
    expect(existsSync(join(path, 'new.txt'))).toBe(true);
    expect(await code(umbel.kill({ name: 'w1', purge: true }))).toBe(UmbelErrorCode.WorktreeHasWork);
    expect(existsSync(join(path, 'new.txt'))).toBe(true);
    expect((await umbel.status({ name: 'w1' })).worktree?.dirty).toBe(true);
    // prune never deletes a worktree with work: the dead worker stays
    expect((await umbel.prune({})).removed).toEqual([]);
    expect(existsSync(join(path, 'new.txt'))).toBe(true);
    expect(await umbel.kill({ name: 'w1', discardWorktree: true })).toMatchObject({ purged: true, worktree: { removed: true } });
    expect(existsSync(path)).toBe(false);
    expect(entries()).toBe(1);
    expect(branches()).toBe('');
  });

  it('purge refuses commits beyond the base, removes a clean worktree; prune removes a clean dead one', async () => {
    await spawn('w1');
    await spawn('w2');
    const path = join(home, 'worktrees', 'w1');
    git(path, 'commit', '-q', '--allow-empty', '-m', 'work');
    expect(await code(umbel.kill({ name: 'w1', purge: true }))).toBe(UmbelErrorCode.WorktreeHasWork);
    expect(await umbel.kill({ name: 'w2', purge: true })).toMatchObject({ purged: true, worktree: { removed: true } });
    await umbel.kill({ name: 'w1' });
    expect((await umbel.prune({})).removed).toEqual([]);
    expect(branches()).toBe('umbel/w1');
    git(path, 'reset', '-q', '--hard', 'HEAD~1');
    expect((await umbel.prune({})).removed).toEqual(['w1']);
    expect(entries()).toBe(1);
    expect(readdirSync(join(home, 'worktrees')).filter((n) => !n.startsWith('.'))).toEqual([]);
  });

  it('bad input is a typed error and leaves nothing', async () => {
    const outside = mkdtempSync(join(root, 'plain-'));
    expect(await code(umbel.spawn({ name: 'w1', provider: 'mock', cwd: outside, worktree: true }))).toBe(UmbelErrorCode.WorktreeInvalid);
    expect(await code(spawn('w1', { worktree: { branch: 'a..b' } }))).toBe(UmbelErrorCode.WorktreeInvalid);
    expect(await code(spawn('w1', { worktree: { base: 'nope' } }))).toBe(UmbelErrorCode.WorktreeInvalid);
    writeFileSync(join(repo, '.git', 'worktrees'), 'corrupt\n');
    expect(await code(spawn('w1'))).toBe(UmbelErrorCode.WorktreeFailed);
    rmSync(join(repo, '.git', 'worktrees'));
    expect(await umbel.list()).toEqual([]);
    expect(entries()).toBe(1);
    expect(branches()).toBe('');
  });

  it('a spawn that fails half-way (the CLI exits at start) leaves no worktree entry and no branch', async () => {
    expect(await code(spawn('w1', { env: { MOCK_CLI_EXIT_AT_START: '1' } }))).toBe(UmbelErrorCode.SpawnFailed);
    expect(entries()).toBe(1);
    expect(branches()).toBe('');
    expect(existsSync(join(home, 'worktrees', 'w1'))).toBe(false);
  });
});
