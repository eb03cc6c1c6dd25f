/**
 * status and list: a pure derivation of each worker's state from its ledger view and the host's
 * answer about its pane, plus the thin I/O around it (one host call for the whole fleet when the
 * substrate can).
 */
import { accountDialogOf } from './account-dialog.js';
import { isoOf, msOf } from '../engine/clock.js';
import type { EngineContext } from '../engine/context.js';
import { deathFacts } from '../ledger/death.js';
import { WorkerNotFoundError } from '../contract/errors.js';
import { loadWorker, workerNames } from '../ledger/ledger.js';
import type { WorkerView } from '../ledger/ledger-types.js';
import type { ProviderV1AccountScreen } from '@umbel/provider';
import type { WorkerState, WorkerStatus, WorktreeRecord } from '../contract/schemas.js';
import { inspectWorktree } from '../git/worktree.js';
import type { PaneState } from '../contract/substrate.js';
import { latestEnded, latestSubmitted } from '../ledger/turns.js';
import { mapLimit } from '../engine/util.js';

const GONE: PaneState = { exists: false, dead: true };

/** Whether a worker without a ready event is still within its startup window. */
export function isStarting(view: WorkerView, now: number): boolean {
  if (view.readyAt !== undefined || view.death.exit || view.death.dead) return false;
  const readyBy = view.meta?.readyBy;
  if (readyBy === undefined) return false; // spawned by an umbel that wrote no ready event
  return now < Date.parse(readyBy);
}

function liveState(view: WorkerView, now: number, dialog?: ProviderV1AccountScreen): { state: WorkerState; needsInput?: WorkerStatus['needsInput'] } {
  // `kill` records the death before it ends the session: the worker takes nothing from then on
  if (view.death.dead?.by === 'kill') return { state: 'killed' };
  const latest = latestSubmitted(view.turns);
  if (!latest && isStarting(view, now)) return { state: 'starting' };
  // A blocking account dialog (after a usage limit): the CLI takes no prompt until someone answers it.
  if (dialog) return { state: 'needs-input', needsInput: { kind: dialog.kind, message: dialog.message } };
  if (!latest || latest.end) return { state: 'ready' };
  const info = latest.pendingInput?.info.needsInput;
  if (info)
    return {
      state: 'needs-input',
      needsInput: { kind: info.kind, ...(info.message ? { message: info.message } : {}), ...(info.tool ? { tool: info.tool } : {}) },
    };
  return { state: 'busy' };
}

function deadState(view: WorkerView, pane: PaneState, now: number): { state: WorkerState; exit?: WorkerStatus['exit'] } {
  // Claimed, but the session is not there yet: a spawn in progress, not a death.
  if (!pane.exists && isStarting(view, now)) return { state: 'starting' };
  const facts = deathFacts(view, pane);
  const at = view.death.exit?.at ?? view.death.dead?.at;
  const exit = {
    ...(facts.status !== undefined ? { status: facts.status } : {}),
    ...(facts.signal ? { signal: facts.signal } : {}),
    ...(at !== undefined ? { at: isoOf(at) } : {}),
    ...(view.death.dead?.by ? { by: view.death.dead.by } : {}),
  };
  const state: WorkerState = facts.byKill ? 'killed' : facts.status === 0 && !facts.signal ? 'exited' : 'dead';
  return { state, ...(Object.keys(exit).length ? { exit } : {}) };
}

/** The status of one worker (pure); `dialog`: the blocking account dialog its screen shows, if any. */
export function deriveStatus(view: WorkerView, pane: PaneState, now: number, dialog?: ProviderV1AccountScreen): WorkerStatus {
  const alive = pane.exists && !pane.dead;
  const derived = view.corrupt ? { state: 'corrupt' as const } : alive ? liveState(view, now, dialog) : deadState(view, pane, now);
  const latest = view.turns.reduce((max, t) => Math.max(max, t.turn), 0);
  return {
    name: view.name,
    provider: view.shown.provider,
    state: derived.state,
    alive,
    cwd: view.shown.cwd,
    ...(view.shown.model ? { model: view.shown.model } : {}),
    createdAt: view.shown.createdAt,
    ...(view.lastEventAt !== undefined ? { lastActivityAt: isoOf(view.lastEventAt) } : {}),
    turn: latest,
    completedTurn: latestEnded(view.turns)?.turn ?? 0,
    ...(view.transcript.sessionId ? { sessionId: view.transcript.sessionId } : {}),
    ...(view.transcript.path ? { transcriptPath: view.transcript.path } : {}),
    ...('needsInput' in derived && derived.needsInput ? { needsInput: derived.needsInput } : {}),
    ...('exit' in derived && derived.exit ? { exit: derived.exit } : {}),
    anonymous: view.shown.anonymous,
    ...(view.corrupt ? { corrupt: view.corrupt } : {}),
    ...(view.problems.length ? { problems: view.problems.map((p) => ({ ...p })) } : {}),
    ...billingFields(view),
    ...(view.quota ? { quota: view.quota } : {}),
    ...(view.meta?.worktree ? { worktree: { path: view.meta.worktree.path, branch: view.meta.worktree.branch, base: view.meta.worktree.base } } : {}),
    ...(view.meta?.sandbox ? { sandbox: view.meta.sandbox } : {}),
  };
}

/** `billing` (always: `unknown` until spawn recorded it), its evidence and the endpoint. */
export function billingFields(view: WorkerView): Pick<WorkerStatus, 'billing' | 'billingEvidence' | 'endpoint'> {
  const b = view.billing;
  return { billing: b?.billing ?? 'unknown', ...(b?.evidence ? { billingEvidence: b.evidence } : {}), ...(b?.endpoint ? { endpoint: b.endpoint } : {}) };
}

/** `status NAME`. */
export async function statusOf(ctx: EngineContext, name: string): Promise<WorkerStatus> {
  const view = loadWorker(ctx, name);
  if (!view) throw new WorkerNotFoundError(name);
  const status = await lookedAt(ctx, view, await ctx.substrate.inspect(view.session), ctx.now());
  return status.worktree && view.meta?.worktree ? { ...status, worktree: { ...status.worktree, ...(await worktreeWork(ctx, view.meta.worktree)) } } : status;
}

/** The work in a worker's worktree, as `status NAME` shows it (nothing when git cannot tell). */
async function worktreeWork(ctx: EngineContext, record: WorktreeRecord): Promise<{ dirty?: boolean; ahead?: number; missing?: boolean }> {
  const work = await inspectWorktree(record, ctx.env);
  if ('error' in work) return {};
  return { dirty: work.dirty, ahead: work.ahead, ...(work.missing ? { missing: true } : {}) };
}

/** deriveStatus, with the screen looked at when the ledger says a blocking account dialog may be up. */
async function lookedAt(ctx: EngineContext, view: WorkerView, pane: PaneState, now: number): Promise<WorkerStatus> {
  const dialog = pane.exists && !pane.dead ? await accountDialogOf(ctx, view) : undefined;
  return deriveStatus(view, pane, now, dialog);
}

/** The sessions on the host and each one's liveness: one host call when the substrate can, else one per live session. */
export async function fleetPanes(ctx: EngineContext): Promise<{ live: ReadonlySet<string>; paneOf: (session: string) => Promise<PaneState> }> {
  const substrate = ctx.substrate;
  if (substrate.inspectAll) {
    const all = await substrate.inspectAll();
    return { live: new Set(all.keys()), paneOf: async (session) => all.get(session) ?? GONE };
  }
  const live = new Set(await substrate.list());
  return { live, paneOf: async (session) => (live.has(session) ? substrate.inspect(session) : GONE) };
}

/** `list`: every worker directory, corrupt ones included. */
export async function listWorkers(ctx: EngineContext): Promise<WorkerStatus[]> {
  const { paneOf } = await fleetPanes(ctx);
  const views = workerNames(ctx)
    .map((name) => loadWorker(ctx, name))
    .filter((v): v is WorkerView => v !== undefined);
  const now = ctx.now();
  return mapLimit(views, 8, async (view) => lookedAt(ctx, view, await paneOf(view.session), now));
}

/** When a dead worker died (ms), for prune's --older-than: its exit or death record, else its creation. */
export function diedAtMs(view: WorkerView): number {
  const at = view.death.dead?.at ?? view.death.exit?.at;
  return at !== undefined ? msOf(at) : Date.parse(view.shown.createdAt) || 0;
}
