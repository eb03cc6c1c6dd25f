import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UmbelErrorCode } from '../contract/errors.js';
import {
  createWorktree,
  cwdInWorktree,
  defaultBranch,
  inspectWorktree,
  planWorktree,
  purgeDecision,
  removeWorktree,
  worktreePath,
  type WorktreeWork,
} from './worktree.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

const gitIn =
  (dir: string) =>
  (...args: string[]) =>
    execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' });

/** A repository with one commit (a.txt, sub/b.txt) and a state root beside it. */
function repo(): { repo: string; home: string; git: (...args: string[]) => string } {
  const root = temp('umbel-wt-');
  const dir = join(root, 'repo');
  mkdirSync(join(dir, 'sub'), { recursive: true });
  const git = gitIn(dir);
  git('init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'a.txt'), 'a\n');
  writeFileSync(join(dir, 'sub', 'b.txt'), 'b\n');
  git('add', '.');
  git('commit', '-q', '-m', 'one');
  return { repo: dir, home: join(root, 'home'), git };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { code: string }).code;
  }
  return 'resolved';
}

describe('path and branch rules', () => {
  it('puts a worker’s worktree under the state root, on umbel/<name>, at the same subdirectory', () => {
    expect(worktreePath('/s', 'w1')).toBe('/s/worktrees/w1');
    expect(defaultBranch('w1')).toBe('umbel/w1');
    expect(cwdInWorktree('/s/worktrees/w1', '/r', '/r/sub/x')).toBe('/s/worktrees/w1/sub/x');
    expect(cwdInWorktree('/s/worktrees/w1', '/r', '/r')).toBe('/s/worktrees/w1');
  });
});

describe('purgeDecision', () => {
  const clean: WorktreeWork = { missing: false, dirty: false, ahead: 0 };
  it('removes a clean worktree, refuses one with work, removes anything when discarding', () => {
    expect(purgeDecision(clean, false)).toEqual({ remove: true });
    expect(purgeDecision({ ...clean, missing: true }, false)).toEqual({ remove: true });
    expect(purgeDecision({ ...clean, dirty: true }, false)).toEqual({ remove: false, work: 'uncommitted changes' });
    expect(purgeDecision({ ...clean, ahead: 2 }, false)).toEqual({ remove: false, work: '2 commits beyond its base' });
    expect(purgeDecision({ ...clean, dirty: true, ahead: 1 }, false)).toEqual({ remove: false, work: 'uncommitted changes and 1 commit beyond its base' });
    expect(purgeDecision({ error: 'x' }, false).remove).toBe(false);
    expect(purgeDecision({ ...clean, dirty: true, ahead: 1 }, true)).toEqual({ remove: true });
  });
});

describe('planWorktree refuses bad input with a typed error and writes nothing', () => {
  const plan = (home: string, cwd: string, request: { branch?: string; base?: string } = {}, e: Record<string, string | undefined> = env) =>
    planWorktree({ home, name: 'w1', cwd, request, env: e });

  it('outside a repository, in a bare one, a bad branch, an existing default branch, a bad base, no git', async () => {
    const r = repo();
    const outside = temp('umbel-nogit-');
    expect(await codeOf(plan(r.home, outside))).toBe(UmbelErrorCode.WorktreeInvalid);
    const bare = join(temp('umbel-bare-'), 'b.git');
    execFileSync('git', ['init', '-q', '--bare', bare]);
    expect(await codeOf(plan(r.home, bare))).toBe(UmbelErrorCode.WorktreeInvalid);
    expect(await codeOf(plan(r.home, r.repo, { branch: 'bad..name' }))).toBe(UmbelErrorCode.WorktreeInvalid);
    expect(await codeOf(plan(r.home, r.repo, { branch: '-x' }))).toBe(UmbelErrorCode.WorktreeInvalid);
    r.git('branch', 'umbel/w1');
    expect(await codeOf(plan(r.home, r.repo))).toBe(UmbelErrorCode.WorktreeInvalid);
    expect(await codeOf(plan(r.home, r.repo, { branch: 'other', base: 'no-such-ref' }))).toBe(UmbelErrorCode.WorktreeInvalid);
    expect(await codeOf(plan(r.home, r.repo, { branch: 'other' }, { ...env, PATH: '/nonexistent' }))).toBe(UmbelErrorCode.WorktreeFailed);
    const empty = temp('umbel-empty-');
    gitIn(empty)('init', '-q');
    expect(await codeOf(plan(r.home, empty))).toBe(UmbelErrorCode.WorktreeInvalid);
    expect(existsSync(r.home)).toBe(false);
  });

  it('takes an existing branch named on purpose, based on its own tip', async () => {
    const r = repo();
    r.git('branch', 'feature');
    const p = await plan(r.home, join(r.repo, 'sub'), { branch: 'feature' });
    expect(p.record).toMatchObject({ branch: 'feature', createdBranch: false, base: r.git('rev-parse', 'feature').trim() });
    expect(p.cwd).toBe(join(r.home, 'worktrees', 'w1', 'sub'));
  });
});

describe('createWorktree, inspectWorktree, removeWorktree', () => {
  it('makes a private worktree from the base, sees its work, and removes it leaving git clean', async () => {
    const r = repo();
    writeFileSync(join(r.repo, 'a.txt'), 'user edit, uncommitted\n');
    const before = r.git('status', '--porcelain');
    const { record } = await planWorktree({ home: r.home, name: 'w1', cwd: r.repo, request: {}, env });
    expect(record.base).toBe(r.git('rev-parse', 'HEAD').trim());
    await createWorktree(record, env);
    expect(statSync(record.path).mode & 0o777).toBe(0o700);
    expect(statSync(join(r.home, 'worktrees')).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(record.path, 'a.txt'), 'utf8')).toBe('a\n');
    expect(r.git('worktree', 'list')).toContain(record.path);
    expect(await inspectWorktree(record, env)).toEqual({ missing: false, dirty: false, ahead: 0 });

    writeFileSync(join(record.path, 'new.txt'), 'x\n');
    expect(await inspectWorktree(record, env)).toEqual({ missing: false, dirty: true, ahead: 0 });
    gitIn(record.path)('add', '.');
    gitIn(record.path)('commit', '-q', '-m', 'work');
    expect(await inspectWorktree(record, env)).toEqual({ missing: false, dirty: false, ahead: 1 });

    await removeWorktree(record, env, { deleteBranch: true });
    expect(existsSync(record.path)).toBe(false);
    expect(r.git('worktree', 'list', '--porcelain')).not.toContain(record.path);
    expect(r.git('branch', '--list', 'umbel/w1')).toBe('');
    expect(r.git('status', '--porcelain')).toBe(before);
    expect(readFileSync(join(r.repo, 'a.txt'), 'utf8')).toBe('user edit, uncommitted\n');
  });

  it('keeps a branch it did not make; cleans the entry of a worktree whose directory is gone', async () => {
    const r = repo();
    r.git('branch', 'feature');
    const { record } = await planWorktree({ home: r.home, name: 'w2', cwd: r.repo, request: { branch: 'feature' }, env });
    await createWorktree(record, env);
    rmSync(record.path, { recursive: true, force: true });
    expect(await inspectWorktree(record, env)).toEqual({ missing: true, dirty: false, ahead: 0 });
    await removeWorktree(record, env, { deleteBranch: true });
    expect(r.git('worktree', 'list', '--porcelain')).not.toContain(record.path);
    expect(r.git('branch', '--list', 'feature')).toContain('feature');
  });

  it('a failure half-way (a corrupt worktree list) leaves no entry and no branch', async () => {
    const r = repo();
    const { record } = await planWorktree({ home: r.home, name: 'w3', cwd: r.repo, request: {}, env });
    writeFileSync(join(r.repo, '.git', 'worktrees'), 'not a directory\n');
    expect(await codeOf(createWorktree(record, env))).toBe(UmbelErrorCode.WorktreeFailed);
    expect(existsSync(record.path)).toBe(false);
    expect(r.git('branch', '--list', 'umbel/w3')).toBe('');
  });

  it('a locked ref (another git holds refs/heads/umbel/w4.lock) is a typed failure that makes nothing', async () => {
    const r = repo();
    const { record } = await planWorktree({ home: r.home, name: 'w4', cwd: r.repo, request: {}, env });
    mkdirSync(join(r.repo, '.git', 'refs', 'heads', 'umbel'), { recursive: true });
    writeFileSync(join(r.repo, '.git', 'refs', 'heads', 'umbel', 'w4.lock'), '');
    expect(await codeOf(createWorktree(record, env))).toBe(UmbelErrorCode.WorktreeFailed);
    expect(existsSync(record.path)).toBe(false);
    expect(r.git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(existsSync(join(r.repo, '.git', 'refs', 'heads', 'umbel', 'w4.lock'))).toBe(true);
  });

  it('ten worktrees made at once on one repository all succeed', async () => {
    const r = repo();
    const names = Array.from({ length: 10 }, (_, i) => `c${i}`);
    const plans = await Promise.all(names.map((name) => planWorktree({ home: r.home, name, cwd: r.repo, request: {}, env })));
    const results = await Promise.allSettled(plans.map((p) => createWorktree(p.record, env)));
    expect(results.filter((x) => x.status === 'rejected')).toEqual([]);
    const list = r.git('worktree', 'list', '--porcelain');
    for (const p of plans) expect(list).toContain(`worktree ${p.record.path}\n`);
    await Promise.all(plans.map((p) => removeWorktree(p.record, env, { deleteBranch: true })));
    expect(r.git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(r.git('branch', '--list', 'umbel/*')).toBe('');
  });
});

describe('the checkout of a new worktree', () => {
  it("uses git's parallel checkout (checkout.workers=0: a worker per core; git alone keeps one), for worktree add only", async () => {
    const { repo: dir, home } = repo();
    const bin = temp('umbel-wt-bin-');
    const log = join(bin, 'argv.log');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${realGit}' "$@"\n`, { mode: 0o755 });
    const logged = { ...env, PATH: `${bin}:${process.env.PATH}` };
    const plan = await planWorktree({ home, name: 'w', cwd: dir, request: {}, env: logged });
    await createWorktree(plan.record, logged);
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(lines.filter((l) => l.includes('worktree add'))).toEqual([expect.stringMatching(/-c checkout\.workers=0 worktree add /)]);
    expect(lines.filter((l) => l.includes('checkout.workers'))).toHaveLength(1);
    expect(readFileSync(join(plan.record.path, 'sub', 'b.txt'), 'utf8')).toBe('b\n');
  });
});
