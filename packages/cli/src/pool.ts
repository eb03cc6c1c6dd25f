/**
 * `umbel pool start|status|stop` and the warm path of `umbel -p`: a matching idle pool worker is
 * claimed instead of a cold spawn, and after the answer a short-lived detached `umbel pool finish
 * --detached` (./print-teardown.ts) removes it and replaces it, off the call's critical path. The
 * refill gets the call's explicit env values on its stdin pipe (never on a command line, in an
 * environment or on disk) and exits once the pool is full; a signal cancels its spawns, which unwind
 * completely.
 */
import { type PoolClaimResult, type PoolStatus, type PoolStopResult, resolveExplicitEnv, type Umbel, UsageError } from '@umbel/core';
import type { Argv } from 'yargs';
import { type Args, envFromArgs, num, spawnFromArgs, str } from './args.js';
import type { CliIo } from './io.js';
import { printJson } from './output.js';
import { parseJob, runFinish } from './print-teardown.js';

/** The actions of `umbel pool` (`finish --detached` is internal: what `-p` starts detached after its answer). */
const ACTIONS = ['start', 'status', 'stop', 'refill', 'finish'] as const;

/** The options of `umbel pool`, for the parser. */
export function poolOptions(y: Argv): Argv {
  return y
    .positional('action', { type: 'string', describe: 'start, status or stop' })
    .positional('pool', { type: 'string', describe: 'Pool name (status, stop; default: every pool)' })
    .option('name', { type: 'string', describe: 'Pool name (start: default <provider>-<8 hex>, one per set of options)' })
    .option('size', { type: 'string', describe: 'start: idle workers to keep ready (1-32; default 2, or the pool’s current size)' })
    .option('startup-timeout', { type: 'string', describe: 'start: how long one worker may take to reach its ready prompt (default 60s)' })
    .option('detached', { type: 'boolean', hidden: true })
    .epilogue(
      'umbel -p (without --name/--resume) takes an idle worker of a pool whose options match its own exactly (provider, cwd, model, permission mode, allowed tools, --worktree and its base commit, --sandbox and its widenings, the worker environment), removes it after the answer and starts a replacement in the background; no match or an empty pool is a cold start. umbel -p --pool NAME picks the pool, --pool none never uses one. A pool is its workers and its files: no daemon runs.',
    );
}

/** `umbel pool ACTION [NAME]`. */
export async function runPool(args: Args, io: CliIo, engine: Umbel, signal: AbortSignal): Promise<number> {
  const action = str(args.action) as (typeof ACTIONS)[number];
  if (!ACTIONS.includes(action)) throw new UsageError(`unknown pool action '${String(args.action)}'`, { hint: 'umbel pool start|status|stop' });
  const json = args.json === true;
  const name = poolName(args);
  if (action === 'refill') return refill(args, io, engine, signal, name);
  if (action === 'finish') {
    if (args.detached !== true) throw new UsageError('pool finish is what umbel -p starts after its answer (--detached)');
    return runFinish(engine, parseJob(await io.readStdin()), signal);
  }
  if (action === 'start') {
    const pool = await engine.pool.start(
      { ...spawnFromArgs(args, io.cwd), name, size: num(args.size, 'size'), startupTimeout: str(args.startupTimeout) },
      { signal },
    );
    if (json) printJson(io.stdout, pool);
    else io.stdout.write(poolText(pool));
    return 0;
  }
  if (action === 'status') {
    const pools = await engine.pool.status({ name });
    if (json) printJson(io.stdout, pools);
    else io.stdout.write(pools.length ? pools.map(poolText).join('\n') : 'No pools.\n');
    return 0;
  }
  const stopped = await engine.pool.stop({ name });
  if (json) printJson(io.stdout, stopped);
  else io.stdout.write(stopText(stopped));
  return 0;
}

function poolName(args: Args): string | undefined {
  const positional = str(args.pool);
  const flag = str(args.name);
  if (positional !== undefined && flag !== undefined && positional !== flag) {
    throw new UsageError(`two pool names given: '${positional}' and --name '${flag}'`);
  }
  return positional ?? flag;
}

/** `pool refill NAME [--env …]`: bring the pool back to its size now. */
async function refill(args: Args, io: CliIo, engine: Umbel, signal: AbortSignal, name: string | undefined): Promise<number> {
  if (name === undefined) throw new UsageError('pool refill needs the pool: umbel pool refill NAME [--env …]');
  const env = envFromArgs(args.env);
  const result = await engine.pool.refill({ name, ...(env ? { env } : {}) }, { signal });
  if (args.json === true) printJson(io.stdout, result);
  else
    io.stdout.write(
      `pool ${result.pool}: ${result.busy ? 'another refill is at work' : `${result.started.length} started, ${result.removed.length} removed`}\n`,
    );
  if (result.error) io.stderr.write(`umbel: ${result.error}\n`);
  return result.error ? 1 : 0;
}

function poolText(pool: PoolStatus): string {
  const what = [pool.provider, pool.model, pool.permissionMode && `permission-mode ${pool.permissionMode}`, pool.allowedTools && `tools '${pool.allowedTools}'`]
    .filter(Boolean)
    .join(', ');
  const env = pool.envNames.length ? `; env ${pool.envNames.join(', ')}` : '';
  const isolated = [pool.worktree && `worktrees from ${pool.worktree.base}`, pool.sandbox && 'sandboxed'].filter(Boolean).join(', ');
  const c = pool.counts;
  const lines = [
    `pool ${pool.name} (${what}) in ${pool.cwd}${env}${isolated ? `; ${isolated}` : ''}`,
    `  ${c.ready}/${pool.size} ready, ${c.starting} starting, ${c.claimed} claimed, ${c.dead} dead${pool.refilling ? ' — refilling' : ''}`,
    ...pool.workers.map((w) => `  ${w.worker.padEnd(48)} ${w.state}${w.claimedBy ? ` (by pid ${w.claimedBy})` : ''}${w.reason ? ` — ${w.reason}` : ''}`),
    ...(pool.lastError ? [`  last refill error: ${pool.lastError}`] : []),
  ];
  return `${lines.join('\n')}\n`;
}

function stopText(stopped: readonly PoolStopResult[]): string {
  if (stopped.length === 0) return 'No pools.\n';
  return stopped.map((s) => `stopped pool ${s.pool} (${s.removed.length} worker${s.removed.length === 1 ? '' : 's'} removed)\n`).join('');
}

/** The warm worker of one `-p` call, and what to do after it. */
export interface PrintClaim {
  readonly claim: PoolClaimResult;
  /** The refill to start after the call when the pool wants one (the call's --env values with it). */
  readonly refill?: { readonly name: string; readonly env: Record<string, string> };
}

/** For `umbel -p` without --name/--resume: claim a warm worker unless `--pool none`. */
export async function claimForPrint(args: Args, io: CliIo, engine: Umbel): Promise<PrintClaim | undefined> {
  const choice = str(args.pool);
  if (choice === 'none') return undefined;
  const { maxWorkers: _limit, ...spawn } = spawnFromArgs(args, io.cwd);
  const claim = await engine.pool.claim({ ...spawn, ...(choice !== undefined ? { pool: choice } : {}) });
  if (claim.reason === 'no-match' || claim.pool === undefined) return undefined;
  // The values of the call's own --env, resolved here: the refill must give its workers the same.
  return { claim, ...(claim.refill ? { refill: { name: claim.pool, env: resolveExplicitEnv(spawn.env, io.env) } } : {}) };
}
