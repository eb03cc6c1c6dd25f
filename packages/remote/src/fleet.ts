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

/** A verb of one worker: here, or on its host. */
function routed<I extends { name: string }, R>(ctx: FleetContext, op: Parameters<typeof call>[2], here: (input: I) => Promise<R>) {
  return async (input: I): Promise<R> => {
    const place = await placeOf(ctx, input?.name);
    if (place.local) return here(input);
    hostOf(ctx, place.record);
    return call<R>(ctx, place.record.host, op, input);
  };
}

function fleetEngine(ctx: FleetContext): Umbel {
  const { local } = ctx;
  return {
    home: local.home,
    providerIds: local.providerIds,
    provider: (id) => local.provider(id),
    // Pools are local: their workers live on this machine (a --host call never claims from one).
    pool: local.pool,
    // doctor checks this machine's CLIs (a host's umbel has its own doctor).
    doctor: (input, context) => local.doctor(input, context),
    spawn: (input, context) => fleetSpawn(ctx, input, context),
    async send(input, context) {
      const place = await placeOf(ctx, input?.name);
      if (place.local) return local.send(input, context);
      hostOf(ctx, place.record);
      return call(ctx, place.record.host, 'send', input, { signal: context?.signal });
    },
    keys: routed(ctx, 'keys', (input) => local.keys(input)),
    async wait(input, context = {}) {
      const place = await placeOf(ctx, input?.name);
      return place.local ? local.wait(input, context) : remoteWait(ctx, place.record, input, context);
    },
    read: routed(ctx, 'read', (input) => local.read(input)),
    events: (input, context) => fleetEvents(ctx, input, context?.signal),
    async status(name) {
      const place = await placeOf(ctx, name);
      return place.local ? local.status(name) : remoteStatus(ctx, place.record);
    },
    list: async () => (await fleetList(ctx)).workers,
    listFleet: () => fleetList(ctx),
    kill: (input) => fleetKill(ctx, input),
    // on the worker's host: its umbel resolves the env names from its own environment
    async revive(input, context) {
      const place = await placeOf(ctx, input?.name);
      if (place.local) return local.revive(input, context);
      hostOf(ctx, place.record);
      return withHost(await call<WorkerStatus>(ctx, place.record.host, 'revive', input, { signal: context?.signal }), place.record.host, place.record);
    },
    prune: (input) => fleetPrune(ctx, input),
    capture: routed(ctx, 'capture', (input) => local.capture(input)),
    async logs(name) {
      const place = await placeOf(ctx, name);
      if (place.local) return local.logs(name);
      hostOf(ctx, place.record);
      return call(ctx, place.record.host, 'logs', { name });
    },
    async messages(name, turn) {
      const place = await placeOf(ctx, name);
      if (place.local) return local.messages(name, turn);
      hostOf(ctx, place.record);
      return call(ctx, place.record.host, 'messages', { name, ...(turn === undefined ? {} : { turn }) });
    },
    actions: routed(ctx, 'actions', (input) => local.actions(input)),
    diff: routed(ctx, 'diff', (input) => local.diff(input)),
    async attachCommand(name) {
      const place = await placeOf(ctx, name);
      if (place.local) return local.attachCommand(name);
      const host = hostOf(ctx, place.record);
      const args = sshArgv(host, { controlDir: controlDir(ctx.home), words: ['attach', workerName(name)], tty: true });
      return { file: ctx.sshBin, args, env: sshEnv(ctx.env) };
    },
  };
}
