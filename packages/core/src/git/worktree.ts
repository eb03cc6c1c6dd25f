/**
 * A worker's own git worktree (`spawn --worktree`): where it lives, its branch, making it from a
 * base (a failure half-way leaves no worktree entry and no branch umbel made), what work it holds,
 * whether a purge may remove it, and removing it so `git worktree list` keeps no stale entry.
 *
 * Worktrees live under the state root, `<home>/worktrees/<worker>` (0700): one predictable place,
 * never inside the user's working tree nor beside it (the repository's parent may not be writable,
 * and a sibling directory per worker would litter it), named by the worker, whose name the state
 * root already makes unique. The user's own checkout is only read (its HEAD, its refs); its index,
 * files and stash are never touched.
 */
import { createHash } from 'node:crypto';
import { chmod, rm, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { mkdirPrivate } from '@umbel/provider';
import { WorktreeFailedError, WorktreeInvalidError } from '../contract/errors.js';
import type { WorktreeRecord } from '../contract/schemas.js';
import { acquireOwnedLock } from '../engine/owned-lock.js';
import { failure, GIT_MISSING, type GitEnv, git, type GitRun } from './run.js';

/** Bound on one git call (a checkout of a large tree included). */
const GIT_TIMEOUT_MS = 120_000;
/** How long a creation waits for another one on the same repository. */
const LOCK_WAIT_MS = 2 * GIT_TIMEOUT_MS;

/** Where the worktrees of a state root live. */
export function worktreesDir(home: string): string {
  return join(home, 'worktrees');
}

/** The worktree of worker `name`. */
export function worktreePath(home: string, name: string): string {
  return join(worktreesDir(home), name);
}

/** The branch a worker's worktree gets when none is named. */
export function defaultBranch(name: string): string {
  return `umbel/${name}`;
}

/** The worker's cwd in its worktree: the same subdirectory `cwd` is of the repository's top. */
export function cwdInWorktree(worktree: string, repoTop: string, cwd: string): string {
  const rel = relative(repoTop, cwd);
  return rel === '' || rel.startsWith('..') ? worktree : join(worktree, rel);
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

function run(args: readonly string[], cwd: string, env: GitEnv, config?: readonly string[]): Promise<GitRun> {
  return git(args, { cwd, env, timeoutMs: GIT_TIMEOUT_MS, ...(config ? { config } : {}) });
}

/**
 * The checkout of a new worktree is most of a worktree spawn (docs/testing.md): git's parallel
 * checkout (one worker per core; a tree under git's own threshold of 100 files stays sequential)
 * writes its files concurrently. Only for umbel's own `worktree add`; an older git ignores the key.
 */
export const PARALLEL_CHECKOUT = ['checkout.workers=0'];

/** A git call that must succeed, or WorktreeFailedError (git missing: say so). */
export async function must(args: readonly string[], cwd: string, env: GitEnv, what: string, config?: readonly string[]): Promise<string> {
  const result = await run(args, cwd, env, config);
  const why = failure(result, what);
  if (result.error === GIT_MISSING) throw new WorktreeFailedError(GIT_MISSING, 'install git, or spawn without --worktree');
  if (why) throw new WorktreeFailedError(why);
  return result.stdout.trim();
}

/** The top of the work tree `cwd` is in; refuses a directory outside git and a bare repository. */
async function repoTop(cwd: string, env: GitEnv): Promise<string> {
  const bare = await run(['rev-parse', '--is-bare-repository'], cwd, env);
  if (bare.error === GIT_MISSING) throw new WorktreeFailedError(GIT_MISSING, 'install git, or spawn without --worktree');
  if (bare.code !== 0) throw new WorktreeInvalidError(`${cwd} is not in a git repository`, 'run it inside a repository, or give --cwd one');
  if (bare.stdout.trim() === 'true') throw new WorktreeInvalidError(`${cwd} is a bare repository (it has no work tree to branch from)`);
  const top = await run(['rev-parse', '--show-toplevel'], cwd, env);
  if (top.code !== 0 || top.stdout.trim() === '') throw new WorktreeInvalidError(`${cwd} is not in a git work tree`);
  return top.stdout.trim();
}

/** The branch: a name git accepts; the default one must not exist yet (a named one may). */
async function checkBranch(top: string, branch: string, named: boolean, env: GitEnv): Promise<boolean> {
  const valid = !branch.startsWith('-') && (await run(['check-ref-format', '--branch', branch], top, env)).code === 0;
  if (!valid) throw new WorktreeInvalidError(`'${branch}' is not a branch name git accepts`);
  const found = (await run(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], top, env)).code === 0;
  if (found && !named)
    throw new WorktreeInvalidError(
      `branch '${branch}' exists already`,
      `check it out on purpose with --branch ${branch}, or delete it (git branch -D ${branch})`,
    );
  return found;
}

/** The commit `ref` names in the repository whose top is `top`. */
export async function resolveBase(top: string, ref: string, env: GitEnv): Promise<string> {
  const result = await run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], top, env);
  const sha = result.stdout.trim();
  if (result.code !== 0 || !/^[0-9a-f]{40,64}$/.test(sha)) {
    const empty = ref === 'HEAD' ? ' (a repository without commits?)' : '';
    throw new WorktreeInvalidError(`base '${ref}' does not name a commit${empty}`);
  }
  return sha;
}

/**
 * The repository `cwd` is in and the commit `ref` names there now (read-only): what a worktree pool
 * matches on, resolved again at each claim so a member made before the base moved is never handed out.
 */
export async function worktreeOrigin(cwd: string, ref: string, env: GitEnv): Promise<{ readonly repo: string; readonly commit: string }> {
  const repo = await repoTop(cwd, env);
  return { repo, commit: await resolveBase(repo, ref, env) };
}

/** What spawn will make: decided with git's read-only calls, before anything is written. */
export interface WorktreePlan {
  readonly record: WorktreeRecord;
  /** The worker's cwd in the worktree. */
  readonly cwd: string;
}

/** Plan the worktree of worker `name` for `cwd` (read-only; every bad input a typed error). */
export async function planWorktree(input: {
  readonly home: string;
  readonly name: string;
  readonly cwd: string;
  readonly request: { readonly branch?: string | undefined; readonly base?: string | undefined };
  readonly env: GitEnv;
}): Promise<WorktreePlan> {
  const top = await repoTop(input.cwd, input.env);
  const branch = input.request.branch ?? defaultBranch(input.name);
  const existing = await checkBranch(top, branch, input.request.branch !== undefined, input.env);
  // An existing branch (named on purpose) is based on its own tip unless --base says otherwise.
  const base = await resolveBase(top, input.request.base ?? (existing ? `refs/heads/${branch}` : 'HEAD'), input.env);
  const path = worktreePath(input.home, input.name);
  return { record: { path, branch, base, repo: top, createdBranch: !existing }, cwd: cwdInWorktree(path, top, input.cwd) };
}

/**
 * git races itself when worktrees of one repository are added at once (one `worktree add` reads
 * another's half-written administrative entry): creations on one repository (its common git dir)
 * take turns under a lock in the state root, so nothing is written into the repository for it.
 */
export async function lockRepository(repo: string, root: string, env: GitEnv, key?: string): Promise<() => Promise<void>> {
  const locks = join(root, '.locks');
  await mkdirPrivate(locks);
  const lock = await acquireOwnedLock(join(locks, key ?? (await repositoryKey(repo, env))), {
    waitMs: LOCK_WAIT_MS,
    busy: (waited) => new WorktreeFailedError(`another worktree of ${repo} was being made for ${Math.round(waited / 1000)}s`),
  });
  return lock.release;
}

/** A repository's key in the state root: a hash of its common git dir (the same for all its worktrees). */
export async function repositoryKey(repo: string, env: GitEnv): Promise<string> {
  const common = await must(['rev-parse', '--path-format=absolute', '--git-common-dir'], repo, env, 'git rev-parse');
  return createHash('sha256').update(common).digest('hex').slice(0, 32);
}

/** Make the planned worktree (0700). Any failure undoes what this call made, then throws. */
export async function createWorktree(record: WorktreeRecord, env: GitEnv): Promise<void> {
  await mkdirPrivate(join(record.path, '..'));
  if (await exists(record.path)) throw new WorktreeFailedError(`${record.path} exists already (left by an earlier worker?)`, `remove it: rm -r ${record.path}`);
  const release = await lockRepository(record.repo, dirname(record.path), env);
  try {
    if (record.createdBranch) await must(['branch', '--no-track', record.branch, record.base], record.repo, env, 'git branch');
    try {
      await must(['worktree', 'add', '--quiet', record.path, record.branch], record.repo, env, 'git worktree add', PARALLEL_CHECKOUT);
      await chmod(record.path, 0o700);
    } catch (error) {
      await removeUnlocked(record, env, { deleteBranch: true }).catch(() => undefined);
      throw error;
    }
  } finally {
    await release();
  }
}

/** The work a worktree holds, or why git could not tell. */
export type WorktreeWork = { readonly missing: boolean; readonly dirty: boolean; readonly ahead: number } | { readonly error: string };

/** Uncommitted changes (untracked files included) and commits on its branch or HEAD beyond the base. */
export async function inspectWorktree(record: WorktreeRecord, env: GitEnv): Promise<WorktreeWork> {
  try {
    if (!(await exists(record.path))) {
      const has = (await run(['show-ref', '--verify', '--quiet', `refs/heads/${record.branch}`], record.repo, env)).code === 0;
      const ahead = has ? await must(['rev-list', '--count', `refs/heads/${record.branch}`, `^${record.base}`], record.repo, env, 'git rev-list') : '0';
      return { missing: true, dirty: false, ahead: Number(ahead) };
    }
    const status = await must(['status', '--porcelain', '--untracked-files=all'], record.path, env, 'git status');
    const ahead = await must(['rev-list', '--count', 'HEAD', `refs/heads/${record.branch}`, `^${record.base}`], record.path, env, 'git rev-list');
    return { missing: false, dirty: status !== '', ahead: Number(ahead) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Whether a purge may remove the worktree (pure): only when it holds no work, unless discarding. */
export function purgeDecision(work: WorktreeWork, discard: boolean): { readonly remove: true } | { readonly remove: false; readonly work: string } {
  if (discard) return { remove: true };
  if ('error' in work) return { remove: false, work: `a state git could not read (${work.error})` };
  const parts: string[] = [];
  if (work.dirty) parts.push('uncommitted changes');
  if (work.ahead > 0) parts.push(`${work.ahead} commit${work.ahead === 1 ? '' : 's'} beyond its base`);
  return parts.length ? { remove: false, work: parts.join(' and ') } : { remove: true };
}

/** Whether `git worktree list` still names `path`. */
async function listed(record: WorktreeRecord, env: GitEnv): Promise<boolean> {
  const list = await run(['worktree', 'list', '--porcelain'], record.repo, env);
  return list.stdout.split('\n').includes(`worktree ${record.path}`);
}

/**
 * Remove the worktree and its administrative entry (a directory already gone included), and the
 * branch when umbel made it and `deleteBranch`. Throws WorktreeFailedError when git still lists it.
 */
export async function removeWorktree(record: WorktreeRecord, env: GitEnv, options: { readonly deleteBranch: boolean }): Promise<void> {
  // `worktree prune` must not run while another worktree of the repository is half-made.
  const release = await lockRepository(record.repo, dirname(record.path), env).catch(() => undefined);
  try {
    await removeUnlocked(record, env, options);
  } finally {
    await release?.();
  }
}

export async function removeUnlocked(record: WorktreeRecord, env: GitEnv, options: { readonly deleteBranch: boolean }): Promise<void> {
  if (await exists(record.path)) {
    const removed = await run(['worktree', 'remove', '--force', '--force', record.path], record.repo, env);
    if (removed.code !== 0) await rm(record.path, { recursive: true, force: true });
  }
  // The entry of a directory that is gone (a removal that failed above, a worker's dir deleted by hand).
  if (await listed(record, env)) await run(['worktree', 'prune'], record.repo, env);
  if (options.deleteBranch && record.createdBranch) {
    const has = (await run(['show-ref', '--verify', '--quiet', `refs/heads/${record.branch}`], record.repo, env)).code === 0;
    if (has) await must(['branch', '-D', record.branch], record.repo, env, 'git branch -D');
  }
  if (await listed(record, env)) throw new WorktreeFailedError(`git still lists ${record.path} after removing it`, `see: git -C ${record.repo} worktree list`);
}
