/**
 * `events`: the fleet's lifecycle (./../ledger/fleet-events.ts) as one ordered stream. Without
 * `follow`, what the ledgers hold past `since`, then the end. With `follow`, then every new event as
 * it is written: the stream sleeps on file-system notifications of the workers dir and of each
 * worker's dir and `events/` (the watcher of `wait`), never on a poll a user could see.
 */
import { statSync } from 'node:fs';
import { mkdirPrivate } from '@umbel/provider';
import { UsageError, WorkerNotFoundError } from '../contract/errors.js';
import type { EventsOptions, FleetEvent } from '../contract/schemas.js';
import type { EngineContext } from '../engine/context.js';
import { compareStamped, isAfter, mergeEvents, parseSince, type SincePoint, type StampedEvent, workerEvents } from '../ledger/fleet-events.js';
import { loadWorker, workerNames } from '../ledger/ledger.js';
import { type DirWatcher, watchDir } from '../wait/watch.js';

/** A safety look when nothing woke the stream for this long (a missed notification costs at most this). */
const RESCAN_MS = 60_000;

type Parsed = Omit<EventsOptions, 'since'> & { readonly since?: SincePoint };

function sinceOf(ctx: EngineContext, options: EventsOptions): Parsed {
  if (options.since === undefined) return { ...options, since: undefined };
  const since = parseSince(options.since, ctx.now());
  if (!since) throw new UsageError(`since '${options.since}' is neither a cursor, an ISO time nor a duration (10m)`);
  return { ...options, since };
}

/** The events the ledgers hold now, past `since`, oldest first (at most `limit`). */
export function readEvents(ctx: EngineContext, input: EventsOptions): FleetEvent[] {
  const options = sinceOf(ctx, input);
  const names = options.names ?? workerNames(ctx);
  const perWorker = names.map((name) => {
    const view = loadWorker(ctx, name);
    if (!view) throw new WorkerNotFoundError(name);
    return workerEvents(view, ctx.ledger.lifecycles);
  });
  const events = mergeEvents(perWorker, options.since).map((e) => e.event);
  return options.limit === undefined ? events : events.slice(0, options.limit);
}

/** Resolve on the watcher's next change, the rescan time, or the cancel. */
function nextChange(watcher: DirWatcher, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      signal?.removeEventListener('abort', done);
      resolve();
    };
    signal?.addEventListener('abort', done, { once: true });
    void watcher.next(RESCAN_MS).then(done);
  });
}

/** The follower's state: which dirs it watches, which events it handed out. */
function follower(ctx: EngineContext, watcher: DirWatcher, since: SincePoint | undefined) {
  /** The inode of each dir watched: a worker purged and spawned again under its name is a new dir to watch. */
  const watched = new Map<string, number>();
  const emitted = new Map<string, Set<string>>();
  const watch = (dir: string) => {
    try {
      const ino = statSync(dir).ino;
      if (watched.get(dir) === ino) return;
      watcher.addDir(dir);
      watched.set(dir, ino);
    } catch {
      // not there (yet): the parent's watch sees it appear
      watched.delete(dir);
    }
  };
  return {
    /** Watch the worker (before reading it, so no change in between is missed) and take its new events. */
    take(name: string): StampedEvent[] {
      const paths = ctx.paths.worker(name);
      watch(paths.dir);
      watch(paths.events);
      const view = loadWorker(ctx, name);
      if (!view) return [];
      let seen = emitted.get(name);
      if (!seen) emitted.set(name, (seen = new Set()));
      const fresh: StampedEvent[] = [];
      for (const e of workerEvents(view, ctx.ledger.lifecycles)) {
        if (seen.has(e.event.cursor) || !isAfter(e, since)) continue;
        seen.add(e.event.cursor);
        fresh.push(e);
      }
      return fresh;
    },
  };
}

/** Every event past `since`, then (follow) each new one as it is written, until cancelled. */
export async function* streamEvents(ctx: EngineContext, input: EventsOptions, signal?: AbortSignal): AsyncGenerator<FleetEvent> {
  if (!input.follow) {
    yield* readEvents(ctx, input);
    return;
  }
  const options = sinceOf(ctx, input);
  await mkdirPrivate(ctx.paths.workersDir);
  const watcher = await watchDir(ctx.paths.workersDir);
  const state = follower(ctx, watcher, options.since);
  let count = 0;
  try {
    while (!signal?.aborted) {
      const batch = (options.names ?? workerNames(ctx)).flatMap((name) => state.take(name)).sort(compareStamped);
      for (const e of batch) {
        yield e.event;
        count += 1;
        if (options.limit !== undefined && count >= options.limit) return;
      }
      await nextChange(watcher, signal);
    }
  } finally {
    await watcher.close();
  }
}
