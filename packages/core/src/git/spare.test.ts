import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pruneSpares, reserveSpare, spareAction, sparesDir, takeSpare } from './spare.js';
import { planWorktree } from './worktree.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

/** A repository with two commits (same.txt unchanged, moved.txt changed by the second) and a state root. */
function repo() {
  const root = mkdtempSync(join(tmpdir(), 'umbel-spare-'));
  dirs.push(root);
  const dir = join(root, 'repo');
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' }).trim();
  git('init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'same.txt'), 'same\n');
  writeFileSync(join(dir, 'moved.txt'), 'one\n');
  git('add', '.');
  git('commit', '-q', '-m', 'one');
  const first = git('rev-parse', 'HEAD');
  writeFileSync(join(dir, 'moved.txt'), 'two\n');
  git('commit', '-q', '-am', 'two');
  return { repo: dir, home: join(root, 'home'), git, first, second: git('rev-parse', 'HEAD') };
}

/** The paths `git worktree list` names. */
const listed = (git: (...args: string[]) => string) =>
  git('worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '))
    .map((l) => l.slice('worktree '.length));

const spareDirOf = (home: string) => join(sparesDir(home), readdirSync(sparesDir(home))[0] as string);

async function plan(r: ReturnType<typeof repo>, name: string, base?: string) {
  return (await planWorktree({ home: r.home, name, cwd: r.repo, request: base ? { base } : {}, env })).record;
}

describe('the reserve’s decision rules', () => {
  it('never waits for a busy spare; a spawn takes only a ready one; a reserve keeps a ready one and remakes anything else; prune removes all', () => {
    for (const role of ['reserve', 'take', 'prune'] as const) expect(spareAction(role, 'busy')).toBe('skip');
    expect(spareAction('take', { tree: true, ready: true })).toBe('take');
    expect(spareAction('take', { tree: true, ready: false })).toBe('skip');
    expect(spareAction('take', { tree: false, ready: true })).toBe('skip');
    expect(spareAction('reserve', { tree: true, ready: true })).toBe('keep');
    expect(spareAction('reserve', { tree: true, ready: false })).toBe('clean-and-make');
    expect(spareAction('reserve', { tree: false, ready: false })).toBe('clean-and-make');
    expect(spareAction('prune', { tree: true, ready: true })).toBe('remove');
  });
});

describe('a spare worktree', () => {
  it('is made private, clean and detached at the commit; a spawn takes it onto its branch at its base, writing only the files that differ', async () => {
    const r = repo();
    expect(await reserveSpare(r.home, r.repo, r.first, env)).toBe('made');
    expect(await reserveSpare(r.home, r.repo, r.second, env)).toBe('kept');
    const tree = join(spareDirOf(r.home), 'tree');
    expect(statSync(tree).mode & 0o777).toBe(0o700);
    expect(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: tree, encoding: 'utf8' }).trim()).toBe(r.first);
    expect(execFileSync('git', ['status', '--porcelain', '--ignored'], { cwd: tree, encoding: 'utf8' })).toBe('');
    expect(listed(r.git)).toEqual([r.repo, tree]);
    const sameInode = statSync(join(tree, 'same.txt')).ino;

    const record = await plan(r, 'w');
    expect(await takeSpare(r.home, record, env)).toBe(true);
    expect(readFileSync(join(record.path, 'moved.txt'), 'utf8')).toBe('two\n');
    expect(statSync(join(record.path, 'same.txt')).ino).toBe(sameInode);
    expect(execFileSync('git', ['symbolic-ref', 'HEAD'], { cwd: record.path, encoding: 'utf8' }).trim()).toBe('refs/heads/umbel/w');
    expect(r.git('rev-parse', 'umbel/w')).toBe(r.second);
    expect(statSync(record.path).mode & 0o777).toBe(0o700);
    expect(listed(r.git)).toEqual([r.repo, record.path]);
    expect(existsSync(tree)).toBe(false);
    // None left: the next spawn makes its own.
    expect(await takeSpare(r.home, await plan(r, 'x'), env)).toBe(false);
  });

  it('is never taken half-made (its maker killed): the next reserve remakes it, prune removes it, git keeps no entry', async () => {
    const r = repo();
    expect(await reserveSpare(r.home, r.repo, r.first, env)).toBe('made');
    const dir = spareDirOf(r.home);
    rmSync(join(dir, 'ready'));
    // The lock of a maker that died.
    const dead = spawnSync('true').pid as number;
    mkdirSync(join(dir, 'lock'));
    writeFileSync(join(dir, 'lock', 'owner'), JSON.stringify({ pid: dead, at: Date.now() }));
    expect(await takeSpare(r.home, await plan(r, 'w'), env)).toBe(false);
    expect(r.git('branch', '--list', 'umbel/w')).toBe('');
    expect(await reserveSpare(r.home, r.repo, r.second, env)).toBe('made');
    expect(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: join(dir, 'tree'), encoding: 'utf8' }).trim()).toBe(r.second);
    expect(listed(r.git)).toEqual([r.repo, join(dir, 'tree')]);
    rmSync(join(dir, 'ready'));
    expect(await pruneSpares(r.home, env)).toBe(1);
    expect(listed(r.git)).toEqual([r.repo]);
    expect(readdirSync(dir)).toEqual([]);
    expect(r.git('worktree', 'prune', '--dry-run', '--verbose')).toBe('');
  });

  it('that is not clean once switched is given up: the worktree and the branch it made are removed, and the caller makes its own', async () => {
    const r = repo();
    expect(await reserveSpare(r.home, r.repo, r.first, env)).toBe('made');
    writeFileSync(join(spareDirOf(r.home), 'tree', 'stray.txt'), 'not from git\n');
    const record = await plan(r, 'w');
    expect(await takeSpare(r.home, record, env)).toBe(false);
    expect(existsSync(record.path)).toBe(false);
    expect(r.git('branch', '--list', 'umbel/w')).toBe('');
    expect(listed(r.git)).toEqual([r.repo]);
  });

  it('leaves the user’s checkout alone: its uncommitted edit is neither taken nor touched', async () => {
    const r = repo();
    writeFileSync(join(r.repo, 'same.txt'), 'user edit\n');
    expect(await reserveSpare(r.home, r.repo, r.second, env)).toBe('made');
    const record = await plan(r, 'w');
    expect(await takeSpare(r.home, record, env)).toBe(true);
    expect(readFileSync(join(record.path, 'same.txt'), 'utf8')).toBe('same\n');
    expect(readFileSync(join(r.repo, 'same.txt'), 'utf8')).toBe('user edit\n');
    expect(r.git('status', '--porcelain')).toBe('M same.txt');
  });
});
