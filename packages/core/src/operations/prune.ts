/**
 * prune: remove dead workers (never a live one, and never one that is still starting: a claimed
 * name whose session is not up yet is a spawn in progress; but a worker that lives for a process —
 * `umbel -p`'s, or a pool worker's claimer — goes once that process is gone, whatever its state),
 * and end sessions on umbel's socket
 * that no state directory owns, so nothing is ever an orphan nobody can see. A dead worker whose
 * git worktree holds work is kept (its state names the worktree and its branch). The spare
 * worktrees of the reserve (git/spare.ts) are removed.
 */
import { readdirSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { EngineContext } from '../engine/context.js';
import { killWorker, removeWorkerDir } from './kill.js';
import { ownerAlive } from '../engine/process-owner.js';
import { loadWorker, workerNames } from '../ledger/ledger.js';
import { sessionName } from '../engine/paths.js';
import { abandonedClaims, forgetPoolWorkers } from '../pool/pool.js';
import type { PruneResult } from '../contract/schemas.js';
import { diedAtMs, fleetPanes, isStarting } from './status.js';
import { pruneSpares } from '../git/spare.js';

/** A claim directory older than this belongs to a spawn that crashed before its rename. */
const STALE_CLAIM_MS = 10 * 60_000;

function removeStaleClaims(ctx: EngineContext): void {
  let names: string[] = [];
  try {
    names = readdirSync(ctx.paths.workersDir).filter((n) => n.startsWith('.claim-'));
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(ctx.paths.workersDir, name);
    try {
      if (ctx.now() - statSync(path).mtimeMs > STALE_CLAIM_MS) void rm(path, { recursive: true, force: true });
    } catch {
      // gone already
    }
  }
}

/** `prune [--older-than D]`. */
export async function pruneWorkers(ctx: EngineContext, options: { olderThan?: number }): Promise<PruneResult> {
  const removed: string[] = [];
  let kept = 0;
  // Sessions first, then names: a session launched after this listing has its directory already.
  const { live, paneOf } = await fleetPanes(ctx);
  const names = workerNames(ctx);
  const now = ctx.now();
  // A pool worker claimed by a process that is gone (its call, or the teardown after it) is used: removed too.
  const abandoned = abandonedClaims(ctx);
  for (const name of names) {
    const view = loadWorker(ctx, name);
    const pane = await paneOf(sessionName(name));
    const alive = pane.exists && !pane.dead;
    const young = options.olderThan !== undefined && view !== undefined && now - diedAtMs(view) < options.olderThan;
    // A worker that lives for its caller (umbel -p) whose caller is gone is removed, alive or not.
    const orphan = (view?.meta?.owner !== undefined && !ownerAlive(view.meta.owner)) || abandoned.has(name);
    if (!orphan && (alive || !view || isStarting(view, now) || young)) {
      kept++;
      continue;
    }
    // A worktree worker whose purge refused (its worktree holds work) or failed keeps its state:
    // its worktree is never deleted with work in it, nor orphaned.
    const gone = await killWorker(ctx, { name, purge: true }).then(
      () => true,
      async () => {
        if (view?.meta?.worktree) return false;
        await removeWorkerDir(ctx.paths.worker(name).dir);
        return true;
      },
    );
    if (gone) removed.push(name);
    else kept++;
  }
  const known = new Set(names.map((n) => sessionName(n)));
  for (const session of live) {
    if (!session.startsWith('umbel-') || known.has(session)) continue;
    const name = session.slice('umbel-'.length);
    // Its directory may have been claimed since the listing: a spawn in progress owns it.
    if (loadWorker(ctx, name)) continue;
    const pane = await paneOf(session);
    if (pane.exists && !pane.dead && options.olderThan !== undefined) {
      kept++;
      continue;
    }
    await ctx.substrate.kill(session);
    removed.push(name);
  }
  removeStaleClaims(ctx);
  // A live pool worker is live like any other and was kept above; the markers of the dead ones go too.
  await forgetPoolWorkers(ctx, removed);
  // The worktree reserve is a cache of checkouts: every spare no live process works on goes, half-made or ready.
  await pruneSpares(ctx.home, ctx.env).catch(() => 0);
  return { removed, kept };
}
