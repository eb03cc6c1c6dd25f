/**
 * spawn in a fleet. Without a host: here, unless a host record holds the name. With a host: the
 * name is claimed locally first (a record), env references are resolved here (from umbel's own
 * environment) into literal values that travel inside the request, and the host's umbel spawns.
 * Any failure removes the claim.
 */
import { randomBytes } from 'node:crypto';
import {
  type SpawnContext,
  HostUnknownError,
  resolveExplicitEnv,
  type SpawnOptions,
  SpawnOptionsSchema,
  UmbelErrorCode,
  usageFromZod,
  WorkerExistsError,
  type WorkerStatus,
} from '@umbel/core';
import { call, type FleetContext, localExists, withHost } from './fleet-context.js';
import { claimRecord, readRecord, type RemoteRecord, removeRecord, writeRecord } from './records.js';
import { RemoteError } from './wire.js';

function anonymousName(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return `anon-${Array.from(randomBytes(6), (b) => alphabet[b % 36]).join('')}`;
}

/**
 * Whether `record` is stale: its host answers that it has no such worker (removed there by hand,
 * or by a prune there). A host that does not answer keeps the record.
 */
async function stale(ctx: FleetContext, record: RemoteRecord): Promise<boolean> {
  if (!ctx.hosts[record.host]) return false;
  try {
    await call(ctx, record.host, 'status', { name: record.name });
    return false;
  } catch (error) {
    return error instanceof RemoteError && error.code === UmbelErrorCode.WorkerNotFound;
  }
}

/** Refuse a name a host record holds (a stale record is dropped). An unreadable record refuses too. */
async function assertNoRecord(ctx: FleetContext, name: string): Promise<void> {
  const record = await readRecord(ctx.home, name);
  if (!record) return;
  if (!(await stale(ctx, record))) throw new WorkerExistsError(name);
  await removeRecord(ctx.home, name);
}

/** Claim `record.name` for a remote spawn: no local worker, no live record of another spawn. */
async function claim(ctx: FleetContext, record: RemoteRecord): Promise<void> {
  if (localExists(ctx, record.name)) throw new WorkerExistsError(record.name);
  if (!(await claimRecord(ctx.home, record))) {
    await assertNoRecord(ctx, record.name);
    if (!(await claimRecord(ctx.home, record))) throw new WorkerExistsError(record.name);
  }
  // A local spawn that claimed the name meanwhile wins: ours steps back.
  if (localExists(ctx, record.name)) {
    await removeRecord(ctx.home, record.name);
    throw new WorkerExistsError(record.name);
  }
}

/** `spawn`, routed by its `host`. */
export async function fleetSpawn(ctx: FleetContext, input: SpawnOptions, context: SpawnContext = {}): Promise<WorkerStatus> {
  const parsed = SpawnOptionsSchema.safeParse(input);
  if (!parsed.success) throw usageFromZod(parsed.error, 'spawn options');
  const { host, ...options } = parsed.data;
  if (host === undefined) {
    if (options.name !== undefined) await assertNoRecord(ctx, options.name);
    return ctx.local.spawn(options, context);
  }
  if (!ctx.hosts[host]) throw new HostUnknownError(host, Object.keys(ctx.hosts));
  // Resolved here, before anything goes out: an unset variable fails at once, and only values travel.
  const env = options.env === undefined ? undefined : resolveExplicitEnv(options.env, ctx.env);
  const name = options.name ?? anonymousName();
  const record: RemoteRecord = {
    version: 1,
    name,
    host,
    provider: options.provider,
    createdAt: new Date().toISOString(),
    anonymous: options.name === undefined,
  };
  await claim(ctx, record);
  try {
    const status = await call<WorkerStatus>(ctx, host, 'spawn', { ...options, name, ...(env ? { env } : {}) }, { signal: context.signal });
    const done: RemoteRecord = { ...record, provider: status.provider, cwd: status.cwd, createdAt: status.createdAt };
    await writeRecord(ctx.home, done);
    return withHost(status, host, done);
  } catch (error) {
    await removeRecord(ctx.home, name);
    throw error;
  }
}
