/**
 * What the fleet's modules share: the local engine, the configured hosts, the transport, and the
 * answer to "where does this worker live?" (its local record, else here).
 */
import { existsSync } from 'node:fs';
import {
  type HostConfig,
  HostUnknownError,
  HostUnreachableError,
  statePaths,
  UmbelError,
  UmbelErrorCode,
  type Umbel,
  usageFromZod,
  WorkerNameSchema,
  type WorkerStatus,
} from '@umbel/core';
import type { RemoteEnv } from './env.js';
import { readRecord, type RemoteRecord } from './records.js';
import type { CallOptions, Transport } from './ssh-transport.js';
import { RemoteError, RPC_VERSION, type RpcOp } from './wire.js';

/** The fleet's state. */
export interface FleetContext {
  readonly local: Umbel;
  readonly home: string;
  readonly env: RemoteEnv;
  readonly hosts: Readonly<Record<string, HostConfig>>;
  readonly transport: Transport;
  /** Hosts asked at once by list and prune. */
  readonly concurrency: number;
  /** Extra time a remote wait gets beyond its own timeout before its host counts as gone. */
  readonly waitGraceMs: number;
  readonly sshBin: string;
}

/** Where a worker lives. */
export type Place = { readonly local: true } | { readonly local: false; readonly record: RemoteRecord };

/** A worker name, validated before it reaches a path (a usage error otherwise). */
export function workerName(name: unknown): string {
  const parsed = WorkerNameSchema.safeParse(name);
  if (!parsed.success) throw usageFromZod(parsed.error, 'worker name');
  return parsed.data;
}

/** Whether this machine has a worker directory of that name. */
export function localExists(ctx: FleetContext, name: string): boolean {
  return existsSync(statePaths(ctx.home).worker(name).dir);
}

/** Where `name` lives: a local worker directory wins, then a host record, else here (whose answer is "not found"). */
export async function placeOf(ctx: FleetContext, rawName: unknown): Promise<Place> {
  const name = workerName(rawName);
  if (localExists(ctx, name)) return { local: true };
  const record = await readRecord(ctx.home, name);
  return record ? { local: false, record } : { local: true };
}

/** The configuration of the host a record names (HostUnknownError when the config lost it). */
export function hostOf(ctx: FleetContext, record: RemoteRecord): HostConfig {
  const host = ctx.hosts[record.host];
  if (!host) {
    throw new HostUnknownError(record.host, Object.keys(ctx.hosts), `worker '${record.name}' lives on host '${record.host}', which is not in the config file`);
  }
  return host;
}

/** One request to a host. */
export function call<T>(ctx: FleetContext, host: string, op: RpcOp, options: unknown, callOptions: CallOptions & { progress?: boolean } = {}): Promise<T> {
  const { progress, ...rest } = callOptions;
  return ctx.transport(host, { v: RPC_VERSION, op, ...(options === undefined ? {} : { options }), ...(progress ? { progress } : {}) }, rest) as Promise<T>;
}

/**
 * Whether an error says the host could not be used at all (it did not answer, cannot run umbel,
 * or does not speak this protocol), as opposed to an answer of the host (its typed errors come
 * back as RemoteError, whatever their code).
 */
export function hostFailed(error: unknown): error is UmbelError {
  if (!UmbelError.isInstance(error)) return false;
  if (error instanceof RemoteError) return error.code === UmbelErrorCode.HostIncompatible;
  const own: readonly string[] = [UmbelErrorCode.HostUnreachable, UmbelErrorCode.HostCommandMissing, UmbelErrorCode.HostIncompatible];
  return own.includes(error.code) || error.name === 'HostFailedError';
}

/** The reason to show for a host that failed. */
export function reasonOf(error: UmbelError): string {
  if (error instanceof HostUnreachableError) return error.reason;
  return error.message;
}

/** A remote worker's status as the fleet reports it: its host, and what this machine recorded. */
export function withHost(status: WorkerStatus, host: string, record?: RemoteRecord): WorkerStatus {
  return { ...status, host, ...(record ? { anonymous: record.anonymous } : {}) };
}

/** The status of a recorded worker whose host does not answer: unreachable, never dead. */
export function unreachableStatus(record: RemoteRecord, reason: string): WorkerStatus {
  return {
    name: record.name,
    provider: record.provider,
    state: 'unreachable',
    alive: false,
    cwd: record.cwd ?? '',
    createdAt: record.createdAt,
    turn: 0,
    completedTurn: 0,
    // What the host knows of its billing cannot be asked while it does not answer.
    billing: 'unknown',
    anonymous: record.anonymous,
    host: record.host,
    unreachable: { reason },
  };
}
