/**
 * diff: what a turn changed in the worker's cwd. In a git work tree, the tree snapshotted when the
 * turn was sent against the next turn's snapshot (or the work tree now, for the latest turn);
 * without a snapshot (outside git, or it failed), the files the transcript says the turn wrote or
 * edited. `text`: how two turns' answers differ (the earlier umbel's diff), as a unified diff.
 */
import type { EngineContext } from '../engine/context.js';
import { digestTurns } from './actions.js';
import { TurnNotFoundError, TurnNotSubmittedError, UsageError, WorktreeFailedError } from '../contract/errors.js';
import { diffTrees, findWorkTree } from '../git/git-tree.js';
import { usableWorker } from '../ledger/ledger.js';
import type { TurnView, UsableView } from '../ledger/ledger-types.js';
import { readAnswer } from './read.js';
import type { DiffFile, DiffResult } from '../contract/schemas.js';
import { unifiedDiff } from '../git/text-diff.js';
import { latestSubmitted } from '../ledger/turns.js';

type SnapshotData = { turn: number; tree?: string; error?: string };

function snapshots(view: UsableView): SnapshotData[] {
  const out: SnapshotData[] = [];
  for (const event of view.events) if (event.own?.kind === 'snapshot') out.push(event.own.data);
  return out;
}

function pickTurn(view: UsableView, asked: number | undefined): TurnView {
  const latest = view.turns.reduce((max, t) => Math.max(max, t.turn), 0);
  const turn = asked === undefined ? latestSubmitted(view.turns) : view.turns.find((t) => t.turn === asked);
  if (!turn) throw new TurnNotFoundError(view.name, asked ?? 0, latest);
  if (turn.notSubmitted) throw new TurnNotSubmittedError(view.name, turn.turn, turn.notSubmitted.message ?? turn.notSubmitted.reason);
  return turn;
}

/** The files the transcript says `turn` wrote or edited (no content): the diff outside git. */
async function fromTranscript(view: UsableView, turn: TurnView, note: string): Promise<DiffResult> {
  const { digest, missing } = await digestTurns(view, [turn]);
  const files: DiffFile[] = [
    ...digest.filesWritten.map((path): DiffFile => ({ path, status: 'written' })),
    ...digest.filesEdited.filter((p) => !digest.filesWritten.includes(p)).map((path): DiffFile => ({ path, status: 'edited' })),
  ];
  const why = missing
    ? `${note}; and no transcript can be read yet`
    : view.provider.doClassifyTool
      ? note
      : `${note}; and provider '${view.meta.provider}' does not say which tools write files`;
  return { worker: view.name, kind: 'files', turn: turn.turn, method: 'transcript', files, patch: '', note: why };
}

/** The git diff of `turn`, or the transcript's list with the reason there is no git diff. */
async function fileDiff(ctx: EngineContext, view: UsableView, turn: TurnView): Promise<DiffResult> {
  const all = snapshots(view);
  const own = all.find((s) => s.turn === turn.turn);
  if (!own) {
    const inGit = await findWorkTree(view.meta.cwd);
    return fromTranscript(view, turn, inGit ? `no snapshot was taken when turn ${turn.turn} was sent` : `${view.meta.cwd} is not in a git work tree`);
  }
  if (!own.tree) return fromTranscript(view, turn, `the snapshot of turn ${turn.turn} failed (${own.error ?? 'unknown'})`);
  const next = all.find((s) => s.turn > turn.turn);
  const notes: string[] = [];
  if (next && !next.tree) notes.push(`the snapshot of turn ${next.turn} failed, so this shows the changes up to now`);
  const target = next?.tree;
  const diff = await diffTrees(view.meta.cwd, view.paths.dir, ctx.env, own.tree, target);
  if ('error' in diff) return fromTranscript(view, turn, `git could not diff (${diff.error})`);
  if (diff.files.length === 0) notes.push(`turn ${turn.turn} changed no file under ${view.meta.cwd}`);
  return {
    worker: view.name,
    kind: 'files',
    turn: turn.turn,
    method: 'git',
    base: own.tree,
    target: target ?? 'worktree',
    files: diff.files.map((f) => ({ path: f.path, status: f.status, ...(f.from ? { from: f.from } : {}) })),
    patch: diff.patch,
    ...(notes.length ? { note: notes.join('; ') } : {}),
  };
}

/** A turn number, or a count back (-1 = the latest) over the turns that ended. */
function resolveIndex(view: UsableView, ended: readonly TurnView[], index: number): TurnView {
  const latest = view.turns.reduce((max, t) => Math.max(max, t.turn), 0);
  const turn = index < 0 ? ended[ended.length + index] : view.turns.find((t) => t.turn === index);
  if (!turn) throw new TurnNotFoundError(view.name, index, latest);
  return turn;
}

/** `diff --text`: the answers of two turns, as a unified diff. */
async function textDiff(ctx: EngineContext, view: UsableView, options: { turn?: number; from?: number; to?: number }): Promise<DiffResult> {
  const ended = view.turns.filter((t) => t.end && !t.notSubmitted);
  const base = { worker: view.name, kind: 'text' as const, files: [], patch: '' };
  if (ended.length === 0 && options.to === undefined && options.turn === undefined) return { ...base, turn: 0, note: '(no completed turns yet)' };
  const to = resolveIndex(view, ended, options.to ?? options.turn ?? -1);
  const before = ended.filter((t) => t.turn < to.turn);
  if (options.from === undefined && before.length === 0) return { ...base, turn: to.turn, note: '(only one turn so far — nothing to diff against)' };
  const from = options.from === undefined ? (before[before.length - 1] as TurnView) : resolveIndex(view, ended, options.from);
  const [a, b] = [await readAnswer(ctx, { name: view.name, turn: from.turn }), await readAnswer(ctx, { name: view.name, turn: to.turn })];
  const patch = unifiedDiff(a.result, b.result, { from: `turn ${from.turn}`, to: `turn ${to.turn}` });
  return {
    ...base,
    turn: to.turn,
    fromTurn: from.turn,
    patch,
    ...(patch === '' ? { note: `(no changes between turn ${from.turn} and turn ${to.turn})` } : {}),
  };
}

/** `diff --against base`: the worktree now (commits and uncommitted files) against the commit it was made from. */
async function baseDiff(ctx: EngineContext, view: UsableView): Promise<DiffResult> {
  const record = view.meta.worktree;
  if (!record)
    throw new UsageError(`worker '${view.name}' has no worktree: --against base diffs a worktree against its base`, { hint: 'spawn it with --worktree' });
  const diff = await diffTrees(record.path, view.paths.dir, ctx.env, record.base);
  if ('error' in diff) throw new WorktreeFailedError(`git could not diff ${record.path} (${diff.error})`);
  return {
    worker: view.name,
    kind: 'files',
    turn: 0,
    method: 'git',
    against: 'base',
    base: record.base,
    target: 'worktree',
    files: diff.files.map((f) => ({ path: f.path, status: f.status, ...(f.from ? { from: f.from } : {}) })),
    patch: diff.patch,
    ...(diff.files.length === 0 ? { note: `nothing changed in ${record.path} since ${record.base.slice(0, 12)}` } : {}),
  };
}

/** `diff`. */
export async function workerDiff(
  ctx: EngineContext,
  options: { name: string; turn?: number; text?: boolean; from?: number; to?: number; against?: 'base' },
): Promise<DiffResult> {
  const view = usableWorker(ctx, options.name);
  if (options.against === 'base') return baseDiff(ctx, view);
  if (options.text) return textDiff(ctx, view, options);
  return fileDiff(ctx, view, pickTurn(view, options.turn));
}
