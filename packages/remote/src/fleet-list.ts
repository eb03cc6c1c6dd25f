/**
 * list and prune across the fleet: this machine and every configured host, the hosts asked in
 * parallel (a bounded number at once). A host that does not answer is reported with its reason,
 * and the workers recorded on it are `unreachable` — never dead, never pruned.
 */
import { type FleetList, type HostReport, type PruneOptions, type PruneResult, UmbelError, type WorkerStatus } from '@umbel/core';
import { call, type FleetContext, hostFailed, reasonOf, unreachableStatus, withHost } from './fleet-context.js';
import { listRecords, type RemoteRecord, removeRecord } from './records.js';

/** Run `fn` over items with at most `limit` in flight, results in order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(Math.max(1, limit), items.length) }, async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i] as T);
  });
  await Promise.all(lanes);
  return out;
}

type HostListing = { readonly report: HostReport; readonly workers: WorkerStatus[] };

/** The reason of a host failure, or rethrow what is not one. */
function failureReason(error: unknown): string {
  if (hostFailed(error)) return reasonOf(error);
  if (UmbelError.isInstance(error)) return error.message;
  throw error;
}

async function listHost(ctx: FleetContext, host: string, records: readonly RemoteRecord[]): Promise<HostListing> {
  const mine = records.filter((r) => r.host === host);
  try {
    const statuses = await call<WorkerStatus[]>(ctx, host, 'list', undefined);
    const byName = new Map(mine.map((r) => [r.name, r]));
    const workers = statuses.map((s) => withHost(s, host, byName.get(s.name)));
    return { report: { host, reachable: true, workers: workers.length }, workers };
  } catch (error) {
    const reason = failureReason(error);
    return { report: { host, reachable: false, reason, workers: mine.length }, workers: mine.map((r) => unreachableStatus(r, reason)) };
  }
}

/** Records naming a host the config no longer has: shown as unreachable, with why. */
function orphanListings(ctx: FleetContext, records: readonly RemoteRecord[]): HostListing[] {
  const lost = [...new Set(records.filter((r) => !ctx.hosts[r.host]).map((r) => r.host))];
  return lost.map((host) => {
    const reason = `host '${host}' is not in the config file`;
    const workers = records.filter((r) => r.host === host).map((r) => unreachableStatus(r, reason));
    return { report: { host, reachable: false, reason, workers: workers.length }, workers };
  });
}

/** Every worker of the fleet, and how each host answered. */
export async function fleetList(ctx: FleetContext): Promise<FleetList> {
  const [local, records] = await Promise.all([ctx.local.list(), listRecords(ctx.home)]);
  const listings = await mapLimit(Object.keys(ctx.hosts), ctx.concurrency, (host) => listHost(ctx, host, records));
  const all = [...listings, ...orphanListings(ctx, records)];
  return { workers: [...local, ...all.flatMap((l) => l.workers)], hosts: all.map((l) => l.report) };
}

type HostPrune = { readonly removed: string[]; readonly kept: number } | { readonly unreachable: { host: string; reason: string } };

/** Prune one host, then drop the records of its workers that are gone there. */
async function pruneHost(ctx: FleetContext, host: string, options: PruneOptions, records: readonly RemoteRecord[]): Promise<HostPrune> {
  try {
    const result = await call<PruneResult>(ctx, host, 'prune', options);
    const left = new Set((await call<WorkerStatus[]>(ctx, host, 'list', undefined)).map((s) => s.name));
    for (const record of records) if (record.host === host && !left.has(record.name)) await removeRecord(ctx.home, record.name);
    return { removed: result.removed, kept: result.kept };
  } catch (error) {
    return { unreachable: { host, reason: failureReason(error) } };
  }
}

/** `prune` here and on every host that answers. */
export async function fleetPrune(ctx: FleetContext, options: PruneOptions = {}): Promise<PruneResult> {
  const local = await ctx.local.prune(options);
  const hosts = Object.keys(ctx.hosts);
  if (hosts.length === 0) return local;
  const records = await listRecords(ctx.home);
  const results = await mapLimit(hosts, ctx.concurrency, (host) => pruneHost(ctx, host, options, records));
  const removed = [...local.removed];
  let kept = local.kept;
  const unreachable: { host: string; reason: string }[] = [];
  for (const r of results) {
    if ('unreachable' in r) unreachable.push(r.unreachable);
    else {
      removed.push(...r.removed);
      kept += r.kept;
    }
  }
  return { removed, kept, ...(unreachable.length ? { unreachable } : {}) };
}
