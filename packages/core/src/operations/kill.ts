/**
 * kill: end a worker's session (always the one its directory name gives: a meta.json is never
 * trusted to name it), keep a tombstone with the last screen unless --purge, remove the provider's
 * files. Idempotent: killing a worker that another kill just ended succeeds.
 */
import { rm } from 'node:fs/promises';
import type { EngineContext } from '../engine/context.js';
import { WorkerNotFoundError } from '../contract/errors.js';
import { asStateError } from '@umbel/provider';
import { loadWorker } from '../ledger/ledger.js';
import type { WorkerView } from '../ledger/ledger-types.js';
import { writeOwnEvent } from '../ledger/own-events.js';
import { sessionName } from '../engine/paths.js';
import type { KillResult } from '../contract/schemas.js';
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

/** `kill NAME [--purge]`. */
export async function killWorker(ctx: EngineContext, options: { name: string; purge: boolean }): Promise<KillResult> {
  const view = loadWorker(ctx, options.name);
  const session = sessionName(options.name);
  const pane = await ctx.substrate.inspect(session);
  if (!view && !pane.exists) throw new WorkerNotFoundError(options.name);
  // The screen and a tombstone are evidence for later; a purge keeps nothing, so skips them.
  if (pane.exists && view && !options.purge) await tombstone(ctx, view, pane);
  // Also without a session (its tmux server killed): the worker's processes may live on, and the
  // substrate finds them by their mark.
  await ctx.substrate.kill(session);
  const killed = pane.exists && !pane.dead;
  for (const file of view?.meta?.providerFiles ?? []) await rm(file, { force: true }).catch(() => undefined);
  // substrate.kill returns once every process of the session is gone, the launch wrapper (which
  // records the exit) included; a hook that fired just before may still be renaming its event in.
  if (options.purge && view) await removeWorkerDir(view.paths.dir);
  return { worker: options.name, killed, purged: options.purge };
}
