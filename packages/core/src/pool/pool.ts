/**
 * Warm pools: N idle workers kept at their ready prompt, so a one-shot call (`umbel -p`) skips the
 * CLI's startup. No daemon: a pool is its workers and its files under `pools/` (./pool-store.ts).
 *
 * - start: record the pool (its spawn options, never an env value: ./pool-key.ts), then refill.
 * - claim: the call's spawn options are resolved exactly as a cold spawn would resolve them; a pool
 *   matches when every option and the digest of the complete worker environment are equal. One
 *   rename of an `idle/` marker takes a worker (two callers never get the same one); a worker that
 *   turns out dead or used is removed and the next one tried. Never reused: release removes it.
 * - refill (./pool-refill.ts) replaces dead, used and missing workers; stop removes everything.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EngineContext } from '../engine/context.js';
import { PoolExistsError, PoolMismatchError, PoolNotFoundError, UmbelError, UmbelErrorCode } from '../contract/errors.js';
import { killWorker } from '../operations/kill.js';
import { loadWorker } from '../ledger/ledger.js';
import { baseCommit, membersOf, unusable } from './pool-members.js';
import { pidAlive } from '../engine/process-owner.js';
import { sawAlive } from '../engine/alive.js';
import { differences, envDigest, type PoolSpec, poolKey, poolSandbox, specDigest } from './pool-key.js';
import { worktreeOrigin } from '../git/worktree.js';
import { refillPool, removeMember } from './pool-refill.js';
import {
  claimMarker,
  createPool,
  lockOwner,
  markers,
  moveMarker,
  type PoolPaths,
  poolNames,
  poolPaths,
  poolsDir,
  readRecord,
  writeRecord,
} from './pool-store.js';
import type {
  PoolClaimOptionsParsed,
  PoolClaimResult,
  PoolRecord,
  PoolStartOptionsParsed,
  PoolStopResult,
  SpawnOptionsParsed,
  WorktreeRequest,
} from '../contract/schemas.js';
import { plan } from '../operations/spawn.js';
import { sessionName } from '../engine/paths.js';
import { mapLimit, sleep } from '../engine/util.js';

/** Size of a new pool when none is given. */
export const DEFAULT_POOL_SIZE = 2;
/** How long stop waits for a running refill to cancel its spawns. */
const STOP_WAIT_MS = 15_000;

/**
 * A call's options as a pool sees them: the spec, the env digest, and the default pool name. Its
 * cwd is the caller's (a member's worktree is its own); `--sandbox` is planned as spawn plans it
 * (refused where it cannot be had, before anything is made; its env is the confined worker's).
 */
async function resolve(ctx: EngineContext, options: SpawnOptionsParsed): Promise<{ spec: PoolSpec; env: string; defaultName: string }> {
  const { worktree: request, ...rest } = options;
  const p = await plan(ctx, rest);
  const { cwd, model, permissionMode, allowedTools, appendSystemPrompt, unattended } = p.choices;
  const worktree = await poolWorktree(ctx, cwd, request);
  const sandbox = poolSandbox(options.sandbox);
  const spec: PoolSpec = {
    provider: p.provider.providerId,
    cwd,
    ...(model ? { model } : {}),
    ...(permissionMode ? { permissionMode } : {}),
    ...(allowedTools ? { allowedTools } : {}),
    ...(appendSystemPrompt !== undefined ? { appendSystemPrompt } : {}),
    unattended: unattended === true,
    ...(worktree ? { worktree } : {}),
    ...(sandbox ? { sandbox } : {}),
  };
  const key = await poolKey(ctx.poolKeys, poolsDir(ctx));
  const env = envDigest(key, p.choices.env);
  const prefix = spec.provider.replace(/[^a-z0-9-]/g, '').slice(0, 30) || 'pool';
  return { spec, env, defaultName: `${prefix}-${specDigest(key, spec, env).slice(0, 8)}` };
}

/** The repository and base of a worktree request, with the commit the base names now. */
async function poolWorktree(ctx: EngineContext, cwd: string, request: WorktreeRequest | undefined): Promise<PoolSpec['worktree']> {
  if (request === undefined || request === false) return undefined;
  const base = (typeof request === 'object' ? request.base : undefined) ?? 'HEAD';
  const { repo, commit } = await worktreeOrigin(cwd, base, ctx.env);
  return { repo, base, commit };
}

/** `pool start`: create the pool (or resize a matching one), then spawn until it is full. */
export async function startPool(ctx: EngineContext, options: PoolStartOptionsParsed, signal?: AbortSignal): Promise<PoolRecord> {
  const { name: given, size, ...spawn } = options;
  const { spec, env, defaultName } = await resolve(ctx, spawn);
  const name = given ?? defaultName;
  const paths = poolPaths(ctx, name);
  const record: PoolRecord = {
    version: 1,
    name,
    ...spec,
    ...(spawn.startupTimeout !== undefined ? { startupTimeout: spawn.startupTimeout } : {}),
    size: size ?? DEFAULT_POOL_SIZE,
    ...(spec.worktree ? { worktree: { repo: spec.worktree.repo, base: spec.worktree.base } } : {}),
    envNames: Object.keys(spawn.env ?? {}).sort(),
    envDigest: env,
    createdAt: new Date(ctx.now()).toISOString(),
  };
  const created = await adopt(paths, record, size, spec, env, ctx);
  try {
    await refillUntilFull(ctx, { name, env: spawn.env, maxWorkers: spawn.maxWorkers }, signal, (record.startupTimeout ?? 60_000) + 30_000);
  } catch (error) {
    if (created) await stopPools(ctx, name).catch(() => undefined);
    throw error;
  }
  return readRecord(paths) ?? record;
}

/** Create the pool, or take an existing one with the same options (resized when a size was given). True when created. */
async function adopt(paths: PoolPaths, record: PoolRecord, size: number | undefined, spec: PoolSpec, env: string, ctx: EngineContext): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = readRecord(paths);
    if (!existing) {
      if (await createPool(ctx, record)) return true;
      continue; // created by someone else meanwhile: compare with theirs
    }
    const diffs = differences(existing, spec, env);
    if (diffs.length) throw new PoolExistsError(paths.name, diffs);
    if (size !== undefined && size !== existing.size) await writeRecord(paths, { ...existing, size });
    return false;
  }
  throw new PoolExistsError(paths.name, ['it was created and removed while this start ran']);
}

/** Refill until the pool is full; another refill at work is waited for (it may be spawning with another caller's env). */
async function refillUntilFull(
  ctx: EngineContext,
  { name, env, maxWorkers }: { name: string; env: SpawnOptionsParsed['env']; maxWorkers: number | undefined },
  signal: AbortSignal | undefined,
  maxMs: number,
) {
  const until = Date.now() + maxMs;
  for (;;) {
    const context = { ...(signal ? { signal } : {}), ...(maxWorkers ? { maxWorkers } : {}), throwErrors: true };
    const result = await refillPool(ctx, { name, ...(env ? { env } : {}) }, context);
    if (!result.busy || Date.now() > until) return;
    await sleep(100, signal);
  }
}

/** `pool claim`: an idle worker of a matching pool, or why there is none. */
export async function claimWorker(ctx: EngineContext, options: PoolClaimOptionsParsed): Promise<PoolClaimResult> {
  const { pool: asked, ...spawn } = options;
  const names = asked === undefined ? poolNames(ctx) : [asked];
  // No pool at all (the common case without pools): nothing to resolve, no key to create.
  if (names.length === 0) return { reason: 'no-match', refill: false };
  // A branch named on purpose is the caller's own: a pool member's is always umbel/<member>.
  if (typeof spawn.worktree === 'object' && spawn.worktree.branch !== undefined) {
    if (asked !== undefined) throw new PoolMismatchError(asked, [`branch: a pool member's is umbel/<member>, the call names '${spawn.worktree.branch}'`]);
    return { reason: 'no-match', refill: false };
  }
  const { spec, env } = await resolve(ctx, spawn);
  const base = spec.worktree?.commit;
  let matched: PoolPaths | undefined;
  for (const name of names) {
    const paths = poolPaths(ctx, name);
    const record = readRecord(paths);
    if (!record) {
      if (asked !== undefined) throw new PoolNotFoundError(name);
      continue;
    }
    const diffs = differences(await withCommit(ctx, record), spec, env);
    if (diffs.length) {
      if (asked !== undefined) throw new PoolMismatchError(name, diffs);
      continue;
    }
    matched ??= paths;
    const worker = await claimFrom(ctx, paths, base);
    // A running refill catches this claim in its next round; otherwise the caller starts one.
    if (worker) return { worker, pool: name, reason: 'claimed', refill: lockOwner(paths) === undefined };
  }
  if (!matched) return { reason: 'no-match', refill: false };
  const late = await claimInFlight(ctx, matched, base);
  if (late) return { worker: late, pool: matched.name, reason: 'claimed', refill: lockOwner(matched) === undefined };
  return { pool: matched.name, reason: 'empty', refill: lockOwner(matched) === undefined };
}

/** How often a claim on an empty pool looks for the worker a running refill is starting. */
const IN_FLIGHT_POLL_MS = 25;

/**
 * The pool is empty but a refill is in flight (a live process holds its lock: a refill at work, or
 * one `umbel -p` handed to its detached process, which may not have begun yet): the worker it starts
 * comes sooner than a cold start would (it began earlier), so the caller waits for it. It stops
 * waiting when no live refill holds the lock any more (a dead owner never makes it wait), or after
 * the pool's startup timeout (then a cold start). Only a claim that found no idle worker gets here.
 */
async function claimInFlight(ctx: EngineContext, paths: PoolPaths, base: string | undefined): Promise<string | undefined> {
  const limit = readRecord(paths)?.startupTimeout ?? 60_000;
  for (const until = Date.now() + limit; Date.now() < until; ) {
    const inFlight = lockOwner(paths) !== undefined;
    const worker = markers(paths.idle).length > 0 ? await claimFrom(ctx, paths, base) : undefined;
    if (worker || !inFlight) return worker;
    await sleep(IN_FLIGHT_POLL_MS);
  }
  return undefined;
}

/** A worktree pool's record with the commit its base names now (the claim compares commits, not refs). */
async function withCommit(ctx: EngineContext, record: PoolRecord): Promise<PoolRecord & PoolSpec> {
  if (!record.worktree) return record;
  return { ...record, worktree: { ...record.worktree, commit: await baseCommit(ctx, record.worktree) } };
}

/**
 * Take one idle worker by renaming its marker; one that is not usable is removed and the next tried.
 * `base`: the commit a worktree member must have been made from (one made before the base moved is stale).
 */
async function claimFrom(ctx: EngineContext, paths: PoolPaths, base?: string): Promise<string | undefined> {
  // In random order, so parallel claimers rarely race for the same marker.
  const idle = markers(paths.idle).sort(() => Math.random() - 0.5);
  for (const worker of idle) {
    const marker = join(paths.claimed, claimMarker(worker, process.pid));
    if (!(await moveMarker(join(paths.idle, worker), marker))) continue;
    const view = loadWorker(ctx, worker);
    const pane = await ctx.substrate.inspect(sessionName(worker)).catch(() => ({ exists: false, dead: true }));
    if (unusable(view, pane, base) === undefined) {
      sawAlive(ctx, sessionName(worker));
      return worker;
    }
    await removeMember(ctx, { worker, marker });
  }
  return undefined;
}

/**
 * `pool release`: remove a claimed worker after its call, and its marker. Released by another
 * process than the claimer (`claimedBy`: the detached teardown of `umbel -p`), the claim is taken
 * over first, so `pool status` shows it claimed by a live process while it is removed. A removal that
 * fails keeps the marker with its error (`status` says so once this process is gone; the next refill
 * or `prune` removes the worker) and throws.
 */
export async function releaseWorker(ctx: EngineContext, claim: { pool: string; worker: string; claimedBy?: number }): Promise<void> {
  const claimed = poolPaths(ctx, claim.pool).claimed;
  const own = join(claimed, claimMarker(claim.worker, process.pid));
  if (claim.claimedBy !== undefined && claim.claimedBy !== process.pid) await moveMarker(join(claimed, claimMarker(claim.worker, claim.claimedBy)), own);
  try {
    await killWorker(ctx, { name: claim.worker, purge: true });
  } catch (error) {
    if (UmbelError.isInstance(error) && error.code === UmbelErrorCode.WorktreeHasWork) {
      // Kill semantics: work is never thrown away. The worker leaves the pool as an ordinary killed
      // worker whose worktree and branch umbel/<worker> keep its work (the error says where).
      await killWorker(ctx, { name: claim.worker, purge: false });
      await rm(own, { force: true });
      throw error;
    }
    if (!(UmbelError.isInstance(error) && error.code === UmbelErrorCode.WorkerNotFound)) {
      // 'r+': written only into a marker that is there (a stopped pool is never re-created).
      await writeFile(own, `${messageOf(error)}\n`, { flag: 'r+' }).catch(() => undefined);
      throw error;
    }
  }
  await rm(own, { force: true });
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').slice(0, 1000);
}

/** `pool stop [NAME]`: every pool (and what an interrupted stop left) when no name is given. */
export async function stopPools(ctx: EngineContext, name?: string): Promise<PoolStopResult[]> {
  const out: PoolStopResult[] = [];
  for (const pool of name === undefined ? poolNames(ctx) : [name]) {
    const moved = join(poolsDir(ctx), `.stopping-${pool}-${randomBytes(4).toString('hex')}`);
    try {
      // One rename takes the pool away from every claim and refill at once.
      await rename(join(poolsDir(ctx), pool), moved);
    } catch (error) {
      if ((error as { code?: string }).code !== 'ENOENT') throw error;
      if (name !== undefined && !leftovers(ctx, pool).length) throw new PoolNotFoundError(pool);
      continue;
    }
    out.push({ pool, removed: await removeAll(ctx, poolPaths(ctx, pool, moved)) });
  }
  for (const dir of leftovers(ctx, name)) {
    const pool = /^\.(?:stopping|new)-(.+)-[0-9a-f]{8}$/.exec(dir)?.[1] ?? dir;
    const removed = await removeAll(ctx, poolPaths(ctx, pool, join(poolsDir(ctx), dir)));
    const known = out.find((r) => r.pool === pool);
    if (known) known.removed.push(...removed);
    else if (removed.length) out.push({ pool, removed });
  }
  return out;
}

/** A start's directory younger than this may still be renamed into place. */
const NEW_POOL_GRACE_MS = 60_000;

/** Directories of stops (and starts) that were interrupted. */
function leftovers(ctx: EngineContext, name?: string): string[] {
  const root = poolsDir(ctx);
  const old = (n: string) => {
    try {
      return ctx.now() - statSync(join(root, n)).mtimeMs > NEW_POOL_GRACE_MS;
    } catch {
      return false;
    }
  };
  try {
    return readdirSync(root).filter((n) =>
      name === undefined ? n.startsWith('.stopping-') || (n.startsWith('.new-') && old(n)) : n.startsWith(`.stopping-${name}-`),
    );
  } catch {
    return [];
  }
}

/** Wait for a refill at work to cancel its spawns, then remove every member and the directory. */
async function removeAll(ctx: EngineContext, paths: PoolPaths): Promise<string[]> {
  for (const until = Date.now() + STOP_WAIT_MS; lockOwner(paths) !== undefined && Date.now() < until; ) await sleep(50);
  const members = membersOf(paths);
  await mapLimit(members, 8, (member) => removeMember(ctx, member));
  await rm(paths.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  return members.map((m) => m.worker);
}

/** For prune: the claimed workers whose teardown failed or whose claimer is gone (a `-p`, or its detached teardown, killed). */
export function abandonedClaims(ctx: EngineContext): Set<string> {
  const out = new Set<string>();
  for (const pool of poolNames(ctx)) {
    for (const m of membersOf(poolPaths(ctx, pool))) {
      if (m.kind === 'claimed' && (m.failure !== undefined || (m.claimedBy !== undefined && !pidAlive(m.claimedBy)))) out.add(m.worker);
    }
  }
  return out;
}

/** For prune: drop the markers of workers it removed (their pool would otherwise show them dead until the next refill). */
export async function forgetPoolWorkers(ctx: EngineContext, workers: readonly string[]): Promise<void> {
  if (workers.length === 0) return;
  const gone = new Set(workers);
  for (const pool of poolNames(ctx)) {
    for (const member of membersOf(poolPaths(ctx, pool))) if (gone.has(member.worker)) await rm(member.marker, { force: true });
  }
}
