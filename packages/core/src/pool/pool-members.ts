/**
 * The workers of a pool and their states, derived from the pool's markers, the worker ledger and
 * the host's answer (pure given those), plus `pool status`.
 */
import { join } from 'node:path';
import type { EngineContext } from '../engine/context.js';
import { deathFacts } from '../ledger/death.js';
import { UmbelError, UmbelErrorCode } from '../contract/errors.js';
import { loadWorker } from '../ledger/ledger.js';
import type { WorkerView } from '../ledger/ledger-types.js';
import { lastError, lockOwner, markers, type PoolPaths, parseClaim, pidAlive, poolNames, poolPaths, readRecord, requireRecord } from './pool-store.js';
import type { PoolStatus, PoolWorker, PoolWorktree } from '../contract/schemas.js';
import { resolveBase } from '../git/worktree.js';
import { fleetPanes, isStarting } from '../operations/status.js';
import { readStateFileSync } from '../engine/state-file.js';
import type { PaneState } from '../contract/substrate.js';

/** One marker of a pool. */
export interface Member {
  readonly worker: string;
  readonly kind: 'starting' | 'idle' | 'claimed';
  /** Path of its marker. */
  readonly marker: string;
  readonly claimedBy?: number;
  /** A claimed worker whose removal failed: why (written into its marker by the teardown). */
  readonly failure?: string;
}

/** What a claim marker holds: empty, or the error of a teardown that failed. */
function failureIn(marker: string): string | undefined {
  try {
    return readStateFileSync(marker, 4096).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Every marker of the pool. */
export function membersOf(paths: PoolPaths): Member[] {
  const out: Member[] = [];
  for (const worker of markers(paths.starting)) out.push({ worker, kind: 'starting', marker: join(paths.starting, worker) });
  for (const worker of markers(paths.idle)) out.push({ worker, kind: 'idle', marker: join(paths.idle, worker) });
  for (const name of markers(paths.claimed)) {
    const claim = parseClaim(name);
    if (!claim) continue;
    const marker = join(paths.claimed, name);
    const failure = failureIn(marker);
    out.push({ worker: claim.worker, kind: 'claimed', marker, claimedBy: claim.pid, ...(failure ? { failure } : {}) });
  }
  return out;
}

const alive = (pane: PaneState) => pane.exists && !pane.dead;

/**
 * Why an idle worker cannot be claimed, or undefined when it can (ready, alive, never sent a prompt).
 * `base`: the commit a worktree pool's base names now; a member made from another one is stale.
 */
export function unusable(view: WorkerView | undefined, pane: PaneState, base?: string): string | undefined {
  if (!view) return 'its state is gone';
  if (view.corrupt) return `its state is corrupt (${view.corrupt.reason})`;
  if (!alive(pane) || view.death.exit || view.death.dead) return deathFacts(view, pane).cause;
  if (view.turns.length > 0) return 'it was sent a prompt outside the pool';
  if (view.readyAt === undefined) return 'it never reached its ready prompt';
  const made = view.meta?.worktree?.base;
  if (base !== undefined && made !== base) return `it was made from ${made?.slice(0, 12) ?? 'no worktree'}; the base has moved to ${base.slice(0, 12)}`;
  return undefined;
}

/** The commit a worktree pool's base names now; undefined when it names none (its next spawn says why). */
export async function baseCommit(ctx: EngineContext, worktree: PoolWorktree): Promise<string | undefined> {
  return resolveBase(worktree.repo, worktree.base, ctx.env).catch(() => undefined);
}

/** The state of one member (pure). `refilling`: a live refill holds the pool's lock. */
export function memberState(member: Member, view: WorkerView | undefined, pane: PaneState, refilling: boolean, now: number, commit?: string): PoolWorker {
  const base = { worker: member.worker, ...(member.claimedBy ? { claimedBy: member.claimedBy } : {}) };
  if (member.kind === 'starting') {
    if (!refilling) return { ...base, state: 'dead', reason: 'its refill ended before it was ready' };
    if (!view || alive(pane) || isStarting(view, now)) return { ...base, state: 'starting' };
    return { ...base, state: 'dead', reason: deathFacts(view, pane).cause };
  }
  if (member.kind === 'claimed') {
    if (member.failure) return { ...base, state: 'dead', reason: `its teardown failed: ${member.failure}` };
    if (member.claimedBy && !pidAlive(member.claimedBy))
      return { ...base, state: 'dead', reason: `the process that claimed it (pid ${member.claimedBy}) is gone` };
    if (!view || !alive(pane)) return { ...base, state: 'dead', reason: view ? deathFacts(view, pane).cause : 'its state is gone' };
    return { ...base, state: 'claimed' };
  }
  const why = unusable(view, pane, commit);
  return why ? { ...base, state: 'dead', reason: why } : { ...base, state: 'ready' };
}

/** Each member with its state (one host call for the fleet). */
export async function memberStates(ctx: EngineContext, paths: PoolPaths): Promise<{ member: Member; state: PoolWorker; gone: boolean }[]> {
  const { paneOf } = await fleetPanes(ctx);
  const refilling = lockOwner(paths) !== undefined;
  const now = ctx.now();
  const worktree = readRecord(paths)?.worktree;
  const base = worktree ? await baseCommit(ctx, worktree) : undefined;
  const out: { member: Member; state: PoolWorker; gone: boolean }[] = [];
  for (const member of membersOf(paths)) {
    const view = loadWorker(ctx, member.worker);
    out.push({ member, state: memberState(member, view, await paneOf(`umbel-${member.worker}`), refilling, now, base), gone: view === undefined });
  }
  return out;
}

/** `pool status [NAME]`. */
export async function poolStatuses(ctx: EngineContext, name?: string): Promise<PoolStatus[]> {
  const names = name === undefined ? poolNames(ctx) : [name];
  const out: PoolStatus[] = [];
  for (const pool of names) {
    const paths = poolPaths(ctx, pool);
    let record: ReturnType<typeof requireRecord>;
    try {
      record = requireRecord(paths);
    } catch (error) {
      // stopped since the listing
      if (name === undefined && UmbelError.isInstance(error) && error.code === UmbelErrorCode.PoolNotFound) continue;
      throw error;
    }
    // A claimed worker whose state is gone was used and removed (its marker goes with the next refill).
    const workers = (await memberStates(ctx, paths)).filter((m) => !(m.gone && m.member.kind === 'claimed')).map((m) => m.state);
    const count = (state: PoolWorker['state']) => workers.filter((w) => w.state === state).length;
    const error = await lastError(paths);
    out.push({
      name: record.name,
      provider: record.provider,
      cwd: record.cwd,
      ...(record.model ? { model: record.model } : {}),
      ...(record.permissionMode ? { permissionMode: record.permissionMode } : {}),
      ...(record.allowedTools ? { allowedTools: record.allowedTools } : {}),
      unattended: record.unattended,
      ...(record.worktree ? { worktree: record.worktree } : {}),
      ...(record.sandbox ? { sandbox: record.sandbox } : {}),
      envNames: record.envNames,
      size: record.size,
      createdAt: record.createdAt,
      workers,
      counts: { starting: count('starting'), ready: count('ready'), claimed: count('claimed'), dead: count('dead') },
      refilling: lockOwner(paths) !== undefined,
      ...(error ? { lastError: error } : {}),
    });
  }
  return out;
}
