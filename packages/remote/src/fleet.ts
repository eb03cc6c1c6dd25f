/**
 * `createFleet`: an `Umbel` over this machine's engine and the hosts of the config file. Not a new
 * engine: `spawn` with a `host` runs the worker there (the host's own umbel does the work, over
 * SSH), every other verb finds where the worker lives (a local record) and routes there, `list`
 * and `prune` ask every host. Every face takes an `Umbel`, so the CLI, MCP and workflows route
 * without knowing.
 */
import {
  type HostConfig,
  type KillOptions,
  type KillResult,
  type Outcome,
  outcomeOf,
  type Umbel,
  UmbelError,
  UmbelErrorCode,
  usageFromZod,
  type WaitContext,
  type WaitOptions,
  WaitOptionsCheckedSchema,
  type CallContext,
  type VerbOfRoute,
  verbsOfRoute,
  type WaitProgress,
  type WorkerStatus,
} from '@umbel/core';
import type { RemoteEnv } from './env.js';
import { call, type FleetContext, hostFailed, hostOf, placeOf, reasonOf, unreachableStatus, withHost, workerName } from './fleet-context.js';
import { fleetEvents } from './fleet-events.js';
import { fleetList, fleetPrune } from './fleet-list.js';
import { fleetSpawn } from './fleet-spawn.js';
import { recordsDir, type RemoteRecord, removeRecord } from './records.js';
import { controlDir, sshArgv, sshEnv } from './ssh.js';
import { sshTransport, type Transport } from './ssh-transport.js';
import { RemoteError } from './wire.js';

/** Options of {@link createFleet}. */
export interface FleetOptions {
  /** This machine's engine. */
  readonly local: Umbel;
  /** The config file's `hosts`. */
  readonly hosts?: Readonly<Record<string, HostConfig>>;
  /** umbel's own environment: `--env NAME` values of remote spawns come from it; ssh gets a few variables of it. */
  readonly env?: RemoteEnv;
  /** The local state root (default the local engine's): the host records and the SSH control sockets live under it. */
  readonly home?: string;
  /** How requests reach a host (default: `ssh`, one shared connection per host). */
  readonly transport?: Transport;
  /** Hosts asked at once by list and prune (default 8). */
  readonly concurrency?: number;
  /** Extra time a remote wait gets beyond its timeout before the host counts as gone (default 60 s). */
  readonly waitGraceMs?: number;
}

/** The outcome of a remote wait that ended here: the host stopped answering, or the caller cancelled. */
function localOutcome(record: RemoteRecord, options: WaitOptions, reason: 'host-unreachable' | 'aborted', message: string, started: number): Outcome {
  return outcomeOf(reason, { worker: record.name, provider: record.provider, turn: options.turn ?? 0, durationMs: Date.now() - started, message });
}

async function remoteWait(ctx: FleetContext, record: RemoteRecord, input: WaitOptions, context: WaitContext): Promise<Outcome> {
  const parsed = WaitOptionsCheckedSchema.safeParse(input);
  if (!parsed.success) throw usageFromZod(parsed.error, 'wait options');
  hostOf(ctx, record);
  const started = Date.now();
  // Progress always comes: its first line names the turn awaited, which a dropped wait reports.
  let turn = input.turn;
  const onProgress = (p: WaitProgress) => {
    turn = p.turn;
    if (p.elapsedMs > 0 || p.activity || p.messages?.length) context.onProgress?.(p);
  };
  try {
    return await call<Outcome>(ctx, record.host, 'wait', input, {
      signal: context.signal,
      onProgress,
      progress: true,
      deadlineMs: parsed.data.timeout + ctx.waitGraceMs,
    });
  } catch (error) {
    const at = { ...input, ...(turn === undefined ? {} : { turn }) };
    if (UmbelError.isInstance(error) && error.code === UmbelErrorCode.Aborted && !(error instanceof RemoteError)) {
      return localOutcome(record, at, 'aborted', 'the wait was cancelled; the worker keeps running on its host', started);
    }
    if (hostFailed(error) && error.code === UmbelErrorCode.HostUnreachable) {
      const message = `host '${record.host}' stopped answering (${reasonOf(error)}); the worker may still be running there: wait again once the host is back`;
      return localOutcome(record, at, 'host-unreachable', message, started);
    }
    throw error;
  }
}

async function remoteStatus(ctx: FleetContext, record: RemoteRecord): Promise<WorkerStatus> {
  hostOf(ctx, record);
  try {
    return withHost(await call<WorkerStatus>(ctx, record.host, 'status', { name: record.name }), record.host, record);
  } catch (error) {
    if (hostFailed(error)) return unreachableStatus(record, reasonOf(error));
    throw error;
  }
}

async function remoteKill(ctx: FleetContext, record: RemoteRecord, input: KillOptions): Promise<KillResult> {
  hostOf(ctx, record);
  try {
    const result = await call<KillResult>(ctx, record.host, 'kill', input);
    // Purged there (--purge, or --discard-worktree, which purges): the record goes too.
    if (result.purged) await removeRecord(ctx.home, record.name);
    return result;
  } catch (error) {
    // Gone on the host: the record is all that is left of it.
    if ((input.purge || input.discardWorktree) && UmbelError.isInstance(error) && error.code === UmbelErrorCode.WorkerNotFound)
      await removeRecord(ctx.home, record.name);
    throw error;
  }
}

/** `kill`: here or on the worker's host; `purge` also removes an unreadable host record (nothing else can). */
async function fleetKill(ctx: FleetContext, input: KillOptions): Promise<KillResult> {
  let place: Awaited<ReturnType<typeof placeOf>>;
  try {
    place = await placeOf(ctx, input?.name);
  } catch (error) {
    const path = (error as { path?: unknown }).path;
    const ours =
      UmbelError.isInstance(error) && error.code === UmbelErrorCode.WorkerCorrupt && typeof path === 'string' && path.startsWith(recordsDir(ctx.home));
    if (!ours || !input.purge) throw error;
    await removeRecord(ctx.home, input.name);
    return { worker: input.name, killed: false, purged: true };
  }
  return place.local ? ctx.local.kill(input) : remoteKill(ctx, place.record, input);
}

/** Create the fleet. */
export function createFleet(options: FleetOptions): Umbel {
  const env = options.env ?? process.env;
  const home = options.home ?? options.local.home;
  const hosts = options.hosts ?? {};
  const ctx: FleetContext = {
    local: options.local,
    home,
    env,
    hosts,
    transport: options.transport ?? sshTransport({ hosts, env, home }),
    concurrency: options.concurrency ?? 8,
    waitGraceMs: options.waitGraceMs ?? 60_000,
    sshBin: env.UMBEL_SSH_BIN ?? 'ssh',
  };
  return fleetEngine(ctx);
}

/** The verbs of one worker that the table serves over the rpc (every one but attach). */
type RoutedVerb = Exclude<VerbOfRoute<'worker'>, 'attachCommand'>;

/** A verb of one worker: here, or on its host (the same options, the same verb). */
function routed<V extends RoutedVerb>(ctx: FleetContext, verb: V): Umbel[V] {
  const run = async (input: { name?: unknown }, context?: CallContext) => {
    const place = await placeOf(ctx, input?.name);
    if (place.local) return (ctx.local[verb] as (input: unknown, context?: CallContext) => unknown).call(ctx.local, input, context);
    hostOf(ctx, place.record);
    return call(ctx, place.record.host, verb, input, context?.signal ? { signal: context.signal } : {});
  };
  return run as unknown as Umbel[V];
}

/** The verbs of one worker whose remote side is more than the same request (the rest are {@link routed}). */
function ownVerbs(ctx: FleetContext): Pick<Umbel, 'wait' | 'status' | 'kill' | 'revive' | 'attachCommand'> {
  const { local } = ctx;
  return {
    async wait(input, context = {}) {
      const place = await placeOf(ctx, input?.name);
      return place.local ? local.wait(input, context) : remoteWait(ctx, place.record, input, context);
    },
    async status(input, context) {
      const place = await placeOf(ctx, input?.name);
      return place.local ? local.status(input, context) : remoteStatus(ctx, place.record);
    },
    kill: (input) => fleetKill(ctx, input),
    // on the worker's host: its umbel resolves the env names from its own environment
    async revive(input, context) {
      const place = await placeOf(ctx, input?.name);
      if (place.local) return local.revive(input, context);
      hostOf(ctx, place.record);
      return withHost(await call<WorkerStatus>(ctx, place.record.host, 'revive', input, { signal: context?.signal }), place.record.host, place.record);
    },
    // never a request: a terminal on the host, over ssh -t
    async attachCommand(input, context) {
      const place = await placeOf(ctx, input?.name);
      if (place.local) return local.attachCommand(input, context);
      const host = hostOf(ctx, place.record);
      const args = sshArgv(host, { controlDir: controlDir(ctx.home), words: ['attach', workerName(input.name)], tty: true });
      return { file: ctx.sshBin, args, env: sshEnv(ctx.env) };
    },
  };
}

/** Every verb of one worker: its own handling, else the same request on its host. */
function workerVerbs(ctx: FleetContext): Pick<Umbel, VerbOfRoute<'worker'>> {
  const own = ownVerbs(ctx);
  const verbs = verbsOfRoute('worker').map((verb) => [verb, verb in own ? own[verb as keyof typeof own] : routed(ctx, verb as RoutedVerb)]);
  return Object.fromEntries(verbs) as Pick<Umbel, VerbOfRoute<'worker'>>;
}

function fleetEngine(ctx: FleetContext): Umbel {
  const { local } = ctx;
  // spawn: on the host its options name, else here
  const byHost: Pick<Umbel, VerbOfRoute<'host'>> = { spawn: (input, context) => fleetSpawn(ctx, input, context) };
  const here: Pick<Umbel, VerbOfRoute<'here'>> = { doctor: (input, context) => local.doctor(input, context) };
  const every: Pick<Umbel, VerbOfRoute<'every'>> = {
    events: (input, context) => fleetEvents(ctx, input, context?.signal),
    list: async () => (await fleetList(ctx)).workers,
    prune: (input) => fleetPrune(ctx, input),
  };
  return {
    home: local.home,
    providerIds: local.providerIds,
    provider: (id) => local.provider(id),
    // Pools are local: their workers live on this machine (a --host call never claims from one).
    pool: local.pool,
    ...byHost,
    ...workerVerbs(ctx),
    ...every,
    // doctor checks this machine's CLIs (a host's umbel has its own doctor).
    ...here,
    listFleet: () => fleetList(ctx),
  };
}
