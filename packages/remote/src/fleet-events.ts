/**
 * `events` across the fleet: this machine's stream and each configured host's, merged. A host's
 * events come as pages over the wire (the `events` request, core's `eventPage`); following, each
 * request sleeps on the host until its next event is written (a long poll: no interval anyone sees).
 * A host that stops answering is a `host-unreachable` event for each worker recorded on it, and
 * `host-back` when it answers again (it is asked again every few seconds meanwhile).
 */
import { compareEvents, type EventPage, type EventsOptions, EventsOptionsSchema, type FleetEvent, nowNs, stampEvent, usageFromZod } from '@umbel/core';
import { call, type FleetContext, hostFailed, reasonOf } from './fleet-context.js';
import { listRecords, type RemoteRecord } from './records.js';

/** Events per request to a host. */
const PAGE = 500;
/** How long one request sleeps on the host for the next event (below the transport's grace). */
const HOST_WAIT_MS = 50_000;
/** How soon a host that did not answer is asked again. */
export const HOST_RETRY_MS = 2_000;

type Parsed = { readonly names?: string[]; readonly since?: string; readonly limit?: number; readonly follow?: boolean };

/** Which workers to ask where: this machine (undefined: all of it) and each host (its records). */
function placesOf(ctx: FleetContext, records: readonly RemoteRecord[], names: string[] | undefined) {
  const remote = new Map(records.map((r) => [r.name, r]));
  const hosts = Object.keys(ctx.hosts).map((host) => {
    const mine = records.filter((r) => r.host === host && (!names || names.includes(r.name)));
    return { host, records: mine, names: names ? mine.map((r) => r.name) : undefined };
  });
  const local = names?.filter((n) => !remote.has(n));
  return { local, hosts: hosts.filter((h) => !names || h.records.length > 0) };
}

/** One event per worker recorded on a host that went away or came back. */
function hostEvents(kind: 'host-unreachable' | 'host-back', host: string, records: readonly RemoteRecord[], message?: string): FleetEvent[] {
  const at = nowNs();
  return records.map((r) => stampEvent(at, { kind, worker: r.name, provider: r.provider, host, ...(message ? { message } : {}) }));
}

function page(ctx: FleetContext, host: string, options: { names?: string[]; since?: string; wait?: number }, signal?: AbortSignal): Promise<EventPage> {
  const wait = options.wait ?? 0;
  return call<EventPage>(ctx, host, 'events', { ...options, limit: PAGE }, { ...(signal ? { signal } : {}), deadlineMs: wait + ctx.waitGraceMs });
}

/** Everything a host holds past `since` (a page at a time); a host that does not answer: its workers' `host-unreachable`. */
async function hostHistory(ctx: FleetContext, place: ReturnType<typeof placesOf>['hosts'][number], since?: string): Promise<FleetEvent[]> {
  const out: FleetEvent[] = [];
  let cursor = since;
  try {
    for (;;) {
      const got = await page(ctx, place.host, { ...(place.names ? { names: place.names } : {}), ...(cursor ? { since: cursor } : {}) });
      out.push(...got.events.map((e) => ({ ...e, host: place.host })));
      cursor = got.cursor ?? cursor;
      if (!got.more) return out;
    }
  } catch (error) {
    if (!hostFailed(error)) throw error;
    return [...out, ...hostEvents('host-unreachable', place.host, place.records, reasonOf(error))];
  }
}

/** A host's events as they come, until `signal`: long-polled pages, its going away and coming back. */
async function* hostFollow(ctx: FleetContext, place: ReturnType<typeof placesOf>['hosts'][number], since: string | undefined, signal: AbortSignal) {
  let cursor = since;
  let down: string | undefined;
  let more = true;
  while (!signal.aborted) {
    try {
      const options = { ...(place.names ? { names: place.names } : {}), ...(cursor ? { since: cursor } : {}), ...(more ? {} : { wait: HOST_WAIT_MS }) };
      const got = await page(ctx, place.host, options, signal);
      if (down !== undefined) yield* hostEvents('host-back', place.host, place.records);
      down = undefined;
      for (const e of got.events) yield { ...e, host: place.host };
      cursor = got.cursor ?? cursor;
      more = got.more;
    } catch (error) {
      if (signal.aborted) return;
      if (!hostFailed(error)) throw error;
      if (down === undefined) yield* hostEvents('host-unreachable', place.host, place.records, (down = reasonOf(error)));
      await new Promise((resolve) => setTimeout(resolve, HOST_RETRY_MS).unref?.());
    }
  }
}

/** Several streams as one, each one's order kept; ending (or breaking off) ends them all. */
async function* merged<T>(sources: (signal: AbortSignal) => AsyncIterable<T>[], outer?: AbortSignal): AsyncGenerator<T> {
  const stop = new AbortController();
  const cancel = () => stop.abort(outer?.reason);
  outer?.addEventListener('abort', cancel, { once: true });
  const iterators = sources(stop.signal).map((s) => s[Symbol.asyncIterator]());
  const pending = new Map<number, Promise<{ i: number; r: IteratorResult<T> }>>();
  const pull = (i: number) =>
    pending.set(
      i,
      (iterators[i] as AsyncIterator<T>).next().then((r) => ({ i, r })),
    );
  for (let i = 0; i < iterators.length; i++) pull(i);
  try {
    while (pending.size > 0) {
      const { i, r } = await Promise.race(pending.values());
      if (r.done) pending.delete(i);
      else {
        pull(i);
        yield r.value;
      }
    }
  } finally {
    outer?.removeEventListener('abort', cancel);
    stop.abort();
    await Promise.allSettled([...pending.values()]);
  }
}

/** The fleet's `events`: here and on every configured host. */
export async function* fleetEvents(ctx: FleetContext, input: EventsOptions | undefined, signal?: AbortSignal): AsyncGenerator<FleetEvent> {
  const parsed = EventsOptionsSchema.safeParse(input ?? {});
  if (!parsed.success) throw usageFromZod(parsed.error, 'events options');
  const options: Parsed = input ?? {};
  if (Object.keys(ctx.hosts).length === 0) return yield* ctx.local.events(options, signal ? { signal } : {});
  const places = placesOf(ctx, await listRecords(ctx.home), options.names);
  const localOptions = { ...options, ...(places.local ? { names: places.local } : {}) };
  const askLocal = !places.local || places.local.length > 0;
  if (!options.follow) {
    const lists = await Promise.all([
      askLocal ? collect(ctx.local.events({ ...localOptions, limit: undefined })) : [],
      ...places.hosts.map((p) => hostHistory(ctx, p, options.since)),
    ]);
    yield* lists.flat().sort(compareEvents).slice(0, options.limit);
    return;
  }
  let count = 0;
  const streams = (stop: AbortSignal) => [
    ...(askLocal ? [ctx.local.events({ ...localOptions, limit: undefined }, { signal: stop })] : []),
    ...places.hosts.map((p) => hostFollow(ctx, p, options.since, stop)),
  ];
  for await (const event of merged(streams, signal)) {
    yield event;
    if (options.limit !== undefined && ++count >= options.limit) return;
  }
}

async function collect(iterable: AsyncIterable<FleetEvent>): Promise<FleetEvent[]> {
  const out: FleetEvent[] = [];
  for await (const event of iterable) out.push(event);
  return out;
}
