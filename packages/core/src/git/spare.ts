/**
 * The worktree reserve: one spare worktree per repository, made off the caller's clock, so that a
 * `spawn --worktree` moves it into place and switches it to its branch (git writes only the files
 * that differ) instead of checking out the whole tree (docs/testing.md: 5,000 files take seconds
 * on a loaded disk). A full, independent checkout like any worker's (no file shared with the
 * user's tree), detached at the commit the last worktree spawn of that repository was made from.
 *
 *   worktrees/.spares/<key>/        per repository (key: a hash of its common git dir), 0700
 *     lock/                         the process making, taking or removing the spare (a dead owner's is broken)
 *     origin.json                   {repo, commit}: written before the spare's `worktree add`
 *     tree/                         the spare (detached HEAD; git lists it as a worktree)
 *     ready                         written once tree/ is complete and clean; a tree without it is half-made
 *
 * The lock is only ever tried, never waited for: a spawn that finds the spare busy or not ready
 * makes its worktree as without a reserve. A half-made spare (its maker killed) is removed by the
 * next reserve and by `prune`, which removes every spare not being worked on (git's administrative
 * entry with it), so `git worktree list` keeps no stale entry on any path.
 */
import { chmod, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mkdirPrivate, readJson, writeFileAtomic } from '@umbel/provider';
import { WorktreeFailedError } from '../contract/errors.js';
import type { WorktreeRecord } from '../contract/schemas.js';
import { acquireOwnedLock } from '../engine/owned-lock.js';
import type { GitEnv } from './run.js';
import { lockRepository, must, PARALLEL_CHECKOUT, removeUnlocked, repositoryKey, worktreesDir } from './worktree.js';

/** Where the spares of a state root live. */
export function sparesDir(home: string): string {
  return join(worktreesDir(home), '.spares');
}

interface SparePaths {
  readonly dir: string;
  readonly lock: string;
  readonly origin: string;
  readonly tree: string;
  readonly ready: string;
}

function sparePaths(home: string, key: string): SparePaths {
  const dir = join(sparesDir(home), key);
  return { dir, lock: join(dir, 'lock'), origin: join(dir, 'origin.json'), tree: join(dir, 'tree'), ready: join(dir, 'ready') };
}

/** What is there of a repository's spare (its lock taken by the caller). */
export interface SpareSeen {
  readonly tree: boolean;
  readonly ready: boolean;
}

/**
 * What each party does with what it sees (pure). A busy lock is never waited for. A reserve keeps a
 * ready spare, removes a half-made one and makes one; a spawn takes only a ready one; prune
 * removes whatever is there.
 */
export function spareAction(role: 'reserve' | 'take' | 'prune', seen: SpareSeen | 'busy'): 'skip' | 'keep' | 'clean-and-make' | 'take' | 'remove' {
  if (seen === 'busy') return 'skip';
  const ready = seen.ready && seen.tree;
  if (role === 'take') return ready ? 'take' : 'skip';
  if (role === 'prune') return 'remove';
  if (ready) return 'keep';
  return 'clean-and-make';
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** The spare's lock, tried once: undefined when another process holds it. */
async function tryLock(paths: SparePaths): Promise<(() => Promise<void>) | undefined> {
  await mkdirPrivate(paths.dir);
  const held = await acquireOwnedLock(paths.lock, { waitMs: 0, busy: () => new WorktreeFailedError('busy') }).catch(() => undefined);
  return held?.release;
}

async function seen(paths: SparePaths): Promise<SpareSeen> {
  return { tree: await exists(paths.tree), ready: await exists(paths.ready) };
}

/** Remove the spare (lock held): git's entry for it, its files, its markers. */
async function removeSpare(home: string, paths: SparePaths, env: GitEnv): Promise<void> {
  await rm(paths.ready, { force: true });
  const origin = (await readJson(paths.origin)) as { repo?: unknown } | undefined;
  const repo = typeof origin?.repo === 'string' && (await exists(origin.repo)) ? origin.repo : undefined;
  if (repo) {
    const release = await lockRepository(repo, worktreesDir(home), env);
    try {
      await removeUnlocked({ path: paths.tree, repo, branch: '', base: '', createdBranch: false }, env, { deleteBranch: false });
    } finally {
      await release();
    }
  }
  await rm(paths.tree, { recursive: true, force: true });
  await rm(paths.origin, { force: true });
}

/** Make the spare (lock held): its entry under the repository's lock, its checkout outside it. */
async function makeSpare(home: string, paths: SparePaths, repo: string, commit: string, env: GitEnv): Promise<void> {
  await writeFileAtomic(paths.origin, JSON.stringify({ repo, commit }));
  const release = await lockRepository(repo, worktreesDir(home), env);
  try {
    await must(['worktree', 'add', '--quiet', '--no-checkout', '--detach', paths.tree, commit], repo, env, 'git worktree add');
  } finally {
    await release();
  }
  await chmod(paths.tree, 0o700);
  await must(['reset', '--hard', '--quiet'], paths.tree, env, 'git reset', PARALLEL_CHECKOUT);
  await mustBeClean(paths.tree, env);
  await writeFile(paths.ready, '', { mode: 0o600 });
}

/** A worktree with no change of any kind (ignored and untracked files included). */
async function mustBeClean(path: string, env: GitEnv): Promise<void> {
  const status = await must(['status', '--porcelain', '--untracked-files=all', '--ignored'], path, env, 'git status');
  if (status !== '') throw new WorktreeFailedError(`the spare worktree ${path} is not clean`);
}

/** What a reserve did: made a spare, kept the one there, or left it to the process working on it. */
export type ReserveOutcome = 'made' | 'kept' | 'busy';

/** Keep one spare worktree of `repo` ready (at `commit` when one is made). A failure leaves nothing. */
export async function reserveSpare(home: string, repo: string, commit: string, env: GitEnv): Promise<ReserveOutcome> {
  const paths = sparePaths(home, await repositoryKey(repo, env));
  const release = await tryLock(paths);
  if (!release) return 'busy';
  try {
    const action = spareAction('reserve', await seen(paths));
    if (action === 'keep') return 'kept';
    await removeSpare(home, paths, env);
    try {
      await makeSpare(home, paths, repo, commit, env);
    } catch (error) {
      await removeSpare(home, paths, env).catch(() => undefined);
      throw error;
    }
    return 'made';
  } finally {
    await release();
  }
}

/**
 * Make the planned worktree from the repository's spare, if one is ready: moved to the worker's
 * path, switched to its branch (made at the base as `createWorktree` makes it), checked clean.
 * False when there was none to take (nothing changed); a failure after the move removes the
 * worktree and the branch it made, and is false too, so the caller makes it as without a spare.
 */
export async function takeSpare(home: string, record: WorktreeRecord, env: GitEnv): Promise<boolean> {
  // A path taken already is the caller's error to report (`createWorktree`), not a spare to spend.
  if (await exists(record.path)) return false;
  const key = await repositoryKey(record.repo, env);
  const paths = sparePaths(home, key);
  const lock = await tryLock(paths);
  if (!lock) return false;
  // Given up once the spare is the worker's (before the switch), and never twice.
  let held = true;
  const release = async () => {
    if (held) await lock();
    held = false;
  };
  let moved = false;
  try {
    if (spareAction('take', await seen(paths)) !== 'take') return false;
    await rm(paths.ready, { force: true });
    const unlock = await lockRepository(record.repo, worktreesDir(home), env, key);
    try {
      await must(['worktree', 'move', paths.tree, record.path], record.repo, env, 'git worktree move');
      moved = true;
    } finally {
      await unlock();
    }
    await rm(paths.origin, { force: true });
    await release();
    // The branch umbel makes is made by the switch, at the base, as `createWorktree` makes it (no upstream).
    const branch = record.createdBranch ? ['--no-track', '-c', record.branch, record.base] : [record.branch];
    await must(['switch', '--quiet', '--no-guess', ...branch], record.path, env, 'git switch', PARALLEL_CHECKOUT);
    await mustBeClean(record.path, env);
    return true;
  } catch {
    if (moved) await removeWorktreeOf(home, record, env);
    else await removeSpare(home, paths, env).catch(() => undefined);
    return false;
  } finally {
    await release();
  }
}

async function removeWorktreeOf(home: string, record: WorktreeRecord, env: GitEnv): Promise<void> {
  const unlock = await lockRepository(record.repo, worktreesDir(home), env).catch(() => undefined);
  try {
    await removeUnlocked(record, env, { deleteBranch: true }).catch(() => undefined);
  } finally {
    await unlock?.();
  }
}

/** prune: remove every spare no live process is working on; how many were removed. */
export async function pruneSpares(home: string, env: GitEnv): Promise<number> {
  const keys = await readdir(sparesDir(home)).catch(() => [] as string[]);
  let removed = 0;
  for (const key of keys.filter((k) => /^[0-9a-f]{32}$/.test(k))) {
    const paths = sparePaths(home, key);
    const release = await tryLock(paths);
    if (!release) continue;
    try {
      if ((await seen(paths)).tree || (await exists(paths.origin))) removed++;
      await removeSpare(home, paths, env);
    } finally {
      await release();
    }
  }
  return removed;
}
