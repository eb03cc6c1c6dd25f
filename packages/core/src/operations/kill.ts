/**
 * kill: end a worker's session (always the one its directory name gives: a meta.json is never
 * trusted to name it), keep a tombstone with the last screen unless --purge, remove the provider's
 * files. Idempotent: killing a worker that another kill just ended succeeds.
 */
import { rm } from 'node:fs/promises';
import type { EngineContext } from '../engine/context.js';
import { WorkerNotFoundError, WorktreeHasWorkError } from '../contract/errors.js';
import { inspectWorktree, purgeDecision, removeWorktree } from '../git/worktree.js';
import { asStateError } from '@umbel/provider';
import { loadWorker } from '../ledger/ledger.js';
import type { WorkerView } from '../ledger/ledger-types.js';
import { writeOwnEvent } from '../ledger/own-events.js';
import { sessionName } from '../engine/paths.js';
import type { KillResult, WorktreeRecord } from '../contract/schemas.js';
import type { PaneState } from '../contract/substrate.js';
import { lastNonBlankLines } from '../engine/util.js';

async function tombstone(ctx: EngineContext, view: WorkerView, pane: PaneState): Promise<void> {
  if (view.death.dead?.by === 'kill') return;
  const screen = await ctx.substrate.capture(view.session, { lines: 40 }).catch(() => undefined);
  await writeOwnEvent(view.paths.events, 'dead', {
    by: 'kill',
    at: new Date().toISOString(),
    alive: !pane.dead,
    ...(pane.exitStatus !== undefined ? { status: pane.exitStatus } : {}),
    ...(pane.signal ? { signal: pane.signal } : {}),
    ...(screen ? { paneTail: lastNonBlankLines(screen, 40) } : {}),
  }).catch(() => undefined);
}

/** Remove a worker's dir; one that cannot be removed (read-only, permissions) is StateUnwritableError naming it. */
export async function removeWorkerDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }).catch((error: unknown) => {
    throw asStateError(error, dir);
  });
}

/**
 * What a purge does with the worker's worktree: removes it (and the branch umbel made) when it
 * holds no work or the caller discards it; otherwise refuses, before anything is ended or removed.
 */
async function worktreeVerdict(ctx: EngineContext, name: string, record: WorktreeRecord, discard: boolean): Promise<void> {
  const decision = purgeDecision(discard ? { missing: false, dirty: false, ahead: 0 } : await inspectWorktree(record, ctx.env), discard);
  if (!decision.remove) throw new WorktreeHasWorkError(name, record.path, decision.work);
}

/** `kill NAME [--purge] [--discard-worktree]`: a worktree is kept unless a purge finds it clean or it is discarded. */
export async function killWorker(ctx: EngineContext, options: { name: string; purge: boolean; discardWorktree?: boolean }): Promise<KillResult> {
  const view = loadWorker(ctx, options.name);
  const discard = options.discardWorktree === true;
  const purge = options.purge || discard;
  const record = view?.meta?.worktree;
  if (purge && record) await worktreeVerdict(ctx, options.name, record, discard);
  const session = sessionName(options.name);
  const pane = await ctx.substrate.inspect(session);
  if (!view && !pane.exists) throw new WorkerNotFoundError(options.name);
  // The screen and a tombstone are evidence for later; a purge keeps nothing, so skips them.
  if (pane.exists && view && (!purge || record)) await tombstone(ctx, view, pane);
  // Also without a session (its tmux server killed): the worker's processes may live on, and the
  // substrate finds them by their mark.
  await ctx.substrate.kill(session);
  const killed = pane.exists && !pane.dead;
  for (const file of view?.meta?.providerFiles ?? []) await rm(file, { force: true }).catch(() => undefined);
  // The worker may have written between the check and its end: checked again, now that it is gone.
  if (purge && record) await worktreeVerdict(ctx, options.name, record, discard);
  if (purge && record) await removeWorktree(record, ctx.env, { deleteBranch: true });
  // substrate.kill returns once every process of the session is gone, the launch wrapper (which
  // records the exit) included; a hook that fired just before may still be renaming its event in.
  if (purge && view) await removeWorkerDir(view.paths.dir);
  const worktree = record ? { worktree: { path: record.path, branch: record.branch, removed: purge } } : {};
  return { worker: options.name, killed, purged: purge, ...worktree };
}
