/**
 * One bounded page of an engine's event stream, for the faces that cannot hold a stream open (an
 * MCP call, a request to another host): at most `limit` events past `since`, a cursor to continue,
 * whether more are waiting; with `wait`, a page that would be empty first sleeps until the next
 * event is written (or `wait` passes, or the call is cancelled).
 */
import type { FleetEvent } from '../contract/schemas.js';
import type { Umbel } from '../contract/umbel.js';

/** What a page asks for. */
export interface EventPageOptions {
  readonly names?: string[];
  readonly since?: string;
  readonly limit: number;
  /** Milliseconds to sleep for the next event when there is none yet. */
  readonly wait?: number;
}

/** One page of events. */
export interface EventPage {
  readonly events: FleetEvent[];
  readonly cursor?: string;
  readonly more: boolean;
}

async function collect(iterable: AsyncIterable<FleetEvent>): Promise<FleetEvent[]> {
  const out: FleetEvent[] = [];
  for await (const event of iterable) out.push(event);
  return out;
}

/** Read one page of `engine`'s events. */
export async function eventPage(engine: Pick<Umbel, 'events'>, input: EventPageOptions, signal?: AbortSignal): Promise<EventPage> {
  const { limit, wait, ...options } = input;
  const read = () => collect(engine.events({ ...options, limit: limit + 1 }));
  let found = await read();
  if (found.length === 0 && wait) {
    const bounded = AbortSignal.any([...(signal ? [signal] : []), AbortSignal.timeout(wait)]);
    for await (const _ of engine.events({ ...options, follow: true, limit: 1 }, { signal: bounded })) break;
    found = await read();
  }
  const events = found.slice(0, limit);
  const cursor = events.at(-1)?.cursor ?? options.since;
  return { events, ...(cursor ? { cursor } : {}), more: found.length > limit };
}
