/**
 * Snapshots of a git work tree for `diff`, without touching the user's index, stash or refs: the
 * tree is staged into a temporary index (a copy of the real one, so only changed files are
 * hashed; GIT_INDEX_FILE) with `git add -A` and written with `write-tree`. The blobs land in the
 * object store like `git stash create`'s do; nothing refers to them, so `git gc` drops them in time.
 * Every git call is bounded; a failure is a reason, never a throw.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, readFile, rm, stat, utimes } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { failure, type GitOptions, git as runGit } from './run.js';

/** How long one snapshot may take (it delays the Enter of a send by at most this much). */
export const SNAPSHOT_TIMEOUT_MS = 5_000;
/** Bound on one git call of a diff. */
const DIFF_TIMEOUT_MS = 30_000;
/** Snapshot objects are scratch (nothing refers to them): no fsync per object. */
const SCRATCH = ['core.fsync=none', 'core.fsyncObjectFiles=false'];

/** A snapshot: the tree id, or why there is none. */
export type Snapshot = { readonly tree: string; readonly ms: number } | { readonly error: string; readonly ms: number };

const git = (args: readonly string[], options: GitOptions) => runGit(args, { ...options, config: SCRATCH });

/** The git work tree `cwd` is in, found without running git: the nearest `.git` above it that git
 * itself would stop at — a directory with a HEAD, or a `gitdir:` file. An empty `.git` is walked
 * past as git does (Codex's sandbox leaves one in a writable root such as /tmp while a tool runs). */
export async function findWorkTree(cwd: string): Promise<string | undefined> {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (await isGitEntry(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

async function isGitEntry(path: string): Promise<boolean> {
  const found = await stat(path).catch(() => undefined);
  if (found?.isDirectory())
    return stat(join(path, 'HEAD')).then(
      () => true,
      () => false,
    );
  if (!found?.isFile()) return false;
  const text = await readFile(path, 'utf8').catch(() => '');
  return text.startsWith('gitdir: ');
}

/** Copy the real index (when there is one) with its times. */
async function copyIndex(from: string, to: string): Promise<void> {
  try {
    await copyFile(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const times = await stat(from);
  await utimes(to, times.atime, times.mtime);
}

/** Stage the work tree under `cwd` into a copy of the real index and write it as a tree. */
async function writeTree(cwd: string, scratchDir: string, env: GitOptions['env'], deadline: number): Promise<{ tree: string } | { error: string }> {
  const left = () => Math.max(1, deadline - Date.now());
  const where = await git(['rev-parse', '--path-format=absolute', '--git-path', 'index'], { cwd, env, timeoutMs: left() });
  const whereFailed = failure(where, 'git rev-parse');
  if (whereFailed) return { error: whereFailed };
  const realIndex = where.stdout.trim();
  const indexFile = join(scratchDir, `.snapshot-${randomBytes(6).toString('hex')}.index`);
  try {
    // The copy keeps the real index's stat data, so `add -A` hashes only what changed — and its
    // mtime, which git's racy-entry check compares with: a file changed in the second the index was
    // written is hashed again, never taken as clean (a fresh mtime would hide same-size edits).
    await copyIndex(realIndex, indexFile);
    const add = await git(['add', '-A', '--', '.'], { cwd, env, indexFile, timeoutMs: left() });
    const addFailed = failure(add, 'git add');
    if (addFailed) return { error: addFailed };
    const tree = await git(['write-tree'], { cwd, env, indexFile, timeoutMs: left() });
    const treeFailed = failure(tree, 'git write-tree');
    if (treeFailed) return { error: treeFailed };
    return { tree: tree.stdout.trim() };
  } catch (error) {
    return { error: (error as Error).message };
  } finally {
    await rm(indexFile, { force: true }).catch(() => undefined);
    await rm(`${indexFile}.lock`, { force: true }).catch(() => undefined);
  }
}

/** Snapshot the work tree under `cwd` (undefined outside git: nothing to snapshot). Never throws. */
export async function snapshotTree(cwd: string, scratchDir: string, env: GitOptions['env'], timeoutMs = SNAPSHOT_TIMEOUT_MS): Promise<Snapshot | undefined> {
  const started = Date.now();
  try {
    if (!(await findWorkTree(cwd))) return undefined;
    const result = await writeTree(cwd, scratchDir, env, started + timeoutMs);
    return { ...result, ms: Date.now() - started };
  } catch (error) {
    return { error: (error as Error).message, ms: Date.now() - started };
  }
}

/** One changed path as `git diff --name-status -z` lists it. */
export interface TreeChange {
  readonly status: 'added' | 'modified' | 'deleted' | 'renamed' | 'type-changed';
  readonly path: string;
  readonly from?: string;
}

const STATUS: Record<string, TreeChange['status']> = { A: 'added', M: 'modified', D: 'deleted', R: 'renamed', C: 'added', T: 'type-changed' };

/** Parse `--name-status -z` output. */
export function parseNameStatus(text: string): TreeChange[] {
  const words = text.split('\0');
  const out: TreeChange[] = [];
  for (let i = 0; i < words.length; ) {
    const code = words[i++] ?? '';
    if (code === '') continue;
    const status = STATUS[code[0] ?? ''] ?? 'modified';
    if (code[0] === 'R' || code[0] === 'C') {
      const from = words[i++] ?? '';
      const path = words[i++] ?? '';
      out.push(code[0] === 'R' ? { status, path, from } : { status, path });
    } else out.push({ status, path: words[i++] ?? '' });
  }
  return out;
}

/** The changes under `cwd` from tree `base` to tree `target` (or to the work tree now). */
export async function diffTrees(
  cwd: string,
  scratchDir: string,
  env: GitOptions['env'],
  base: string,
  target?: string,
): Promise<{ files: TreeChange[]; patch: string; target: string } | { error: string }> {
  let to = target;
  if (to === undefined) {
    const now = await writeTree(cwd, scratchDir, env, Date.now() + DIFF_TIMEOUT_MS);
    if ('error' in now) return now;
    to = now.tree;
  }
  const common = ['--no-color', '--no-ext-diff', '-M', base, to, '--', '.'];
  const names = await git(['diff', '--name-status', '-z', ...common], { cwd, env, timeoutMs: DIFF_TIMEOUT_MS });
  const namesFailed = failure(names, 'git diff');
  if (namesFailed) return { error: namesFailed };
  const patch = await git(['diff', ...common], { cwd, env, timeoutMs: DIFF_TIMEOUT_MS });
  const patchFailed = failure(patch, 'git diff');
  if (patchFailed) return { error: patchFailed };
  return { files: parseNameStatus(names.stdout), patch: patch.stdout, target: to };
}
