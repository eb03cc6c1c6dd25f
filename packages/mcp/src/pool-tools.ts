/**
 * The MCP face of warm pools: `umbel_pool_start`, `umbel_pool_status`, `umbel_pool_stop`, and
 * `umbel_spawn`'s `pool` option (./server.ts): a spawn that takes a matching idle pool worker, ready
 * at once, instead of waiting for the CLI to start. The server is a long-lived process, so it refills
 * the pool itself, in the background, after each claim; a refill still running when the server shuts
 * down is cancelled and its spawns unwind before the process exits.
 */
import {
  type EnvMap,
  PoolNameSchema,
  PoolRefSchema,
  PoolStartOptionsSchema,
  PoolStatusSchema,
  PoolStopResultSchema,
  SpawnOptionsSchema,
  type SpawnOptions,
  type Umbel,
  UsageError,
  type WorkerStatus,
} from '@umbel/core';
import * as z from 'zod';
import type { RegisterTool } from './register.js';

/** The pool tools, in registration order. */
export { POOL_TOOL_NAMES } from './tool-names.js';

/** Output of `umbel_pool_status`. */
export const PoolStatusOutputSchema = z.object({ pools: z.array(PoolStatusSchema) });
/** Output of `umbel_pool_stop`. */
export const PoolStopOutputSchema = z.object({ stopped: z.array(PoolStopResultSchema) });

/** Input of `umbel_spawn`: core's spawn options plus the pool to take a warm worker from. */
export const SpawnInputSchema = SpawnOptionsSchema.extend({
  pool: z
    .union([z.literal('auto'), PoolNameSchema])
    .optional()
    .describe(
      "Take an idle worker of a warm pool instead of starting one: 'auto' (any pool whose options match these exactly) or a pool name. Ready at once; kill it after its task (a pool worker is never reused). No match or an empty pool: a normal spawn. Not with name.",
    ),
}).strict();

/** What the pool tools need from the server. */
export interface PoolToolContext {
  /** Cancelled when the server shuts down. */
  readonly closing: AbortSignal;
  /** Keep the server alive for background work (its drain waits for it). */
  background(work: Promise<unknown>): void;
}

/** `umbel_spawn`: from a pool when asked and one matches, else a normal spawn. */
export async function spawnFromInput(
  engine: Umbel,
  input: z.output<typeof SpawnInputSchema>,
  signal: AbortSignal,
  context: PoolToolContext,
): Promise<WorkerStatus> {
  const { pool, ...options } = input;
  if (pool === undefined) return engine.spawn(options, { signal });
  if (options.name !== undefined) throw new UsageError('pool takes a fresh worker from a pool; name starts one of your own', { hint: 'use one or the other' });
  const { name: _name, startupTimeout: _timeout, maxWorkers: _limit, ...spawn } = options as SpawnOptions;
  const claim = await engine.pool.claim({ ...spawn, ...(pool !== 'auto' ? { pool } : {}) });
  if (claim.pool && claim.refill) refillLater(engine, claim.pool, spawn.env, context);
  if (claim.worker) return engine.status({ name: claim.worker });
  return engine.spawn(options, { signal });
}

function refillLater(engine: Umbel, pool: string, env: EnvMap | undefined, context: PoolToolContext): void {
  if (context.closing.aborted) return;
  context.background(engine.pool.refill({ name: pool, ...(env ? { env } : {}) }, { signal: context.closing }).catch(() => undefined));
}

/** Register the pool tools. */
export function registerPoolTools(tool: RegisterTool, engine: Umbel): void {
  tool(
    'umbel_pool_start',
    {
      title: 'Start a warm pool',
      description:
        'Keep `size` workers (default 2) at their ready prompt with these spawn options, so umbel_spawn with pool \'auto\' (and `umbel -p` on the command line) gets one at once. Returns when the pool is full. Starting it again with the same options resizes it. env values are literals or {"fromEnv": "NAME"}; they are never stored.',
      input: PoolStartOptionsSchema,
      output: PoolStatusSchema,
    },
    (input, extra) => engine.pool.start(input, { signal: extra.signal }),
  );
  tool(
    'umbel_pool_status',
    {
      title: 'Warm pools',
      description:
        'Every warm pool (or the one named) with each worker: starting, ready, claimed or dead (a dead one is never handed out; the next refill replaces it).',
      input: PoolRefSchema,
      output: PoolStatusOutputSchema,
      readOnly: true,
    },
    async (input) => ({ pools: await engine.pool.status(input) }),
  );
  tool(
    'umbel_pool_stop',
    {
      title: 'Stop warm pools',
      description: 'Remove a warm pool (every pool when no name is given): all its workers, also one in use, and its files.',
      input: PoolRefSchema,
      output: PoolStopOutputSchema,
      destructive: true,
    },
    async (input) => ({ stopped: await engine.pool.stop(input) }),
  );
}
