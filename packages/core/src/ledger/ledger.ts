/**
 * The worker ledger: load a worker's state files once into a typed view. Its meta.json is
 * validated (and must name this directory and its session), umbel's own events are parsed with
 * their schemas, each hook event is read by the worker's provider exactly once, behind one guard,
 * and everything that could not be used is a problem naming its file. Nothing here throws for bad
 * state; operations decide what a corrupt or half-readable worker means for them.
 */
import { readdirSync, statSync } from 'node:fs';
import { readStateFileSync } from '../engine/state-file.js';
import type { EngineContext } from '../engine/context.js';
import { ProviderUnknownError, unloadedText, WorkerCorruptError, WorkerNotFoundError } from '../contract/errors.js';
import type { EventDirRead, RawEvent, StateProblem } from './event-store.js';
import type { LedgerCache, MetaRead, TypedEvent, TypedEvents } from './ledger-cache.js';
import type { DeathRecord, LedgerEvent, UsableView, WorkerView } from './ledger-types.js';
import { isOwnKind, type OwnEvent, parseOwnEvent } from './own-events.js';
import { sessionName } from '../engine/paths.js';
import type { Provider, ProviderV1EventInfo, ProviderV1Quota, ProviderV1QuotaWindow } from '@umbel/provider';
import { type Quota, type QuotaWindow, type WorkerMeta, WorkerMetaSchema } from '../contract/schemas.js';
import { isoOf } from '../engine/clock.js';
import { assignTurns } from './turns.js';

/** A meta.json is a few kilobytes; a bigger one is not umbel's. */
const META_MAX_BYTES = 1024 * 1024;

/** Read and check meta.json of the worker in directory `name` (the check is kept while its text is the same). */
function readMeta(metaReads: LedgerCache['metas'], path: string, name: string): MetaRead | undefined {
  let text: string;
  try {
    // Small file: a synchronous read is far cheaper than the promise API's thread-pool round trips.
    text = readStateFileSync(path, META_MAX_BYTES);
  } catch (error) {
    return (error as { code?: string }).code === 'ENOENT' ? undefined : { corrupt: `meta.json cannot be read (${(error as Error).message})` };
  }
  const known = metaReads.get(path);
  if (known?.text === text && known.name === name) return known.read;
  const read = checkMeta(text, name);
  if (metaReads.size > 4096) metaReads.clear();
  metaReads.set(path, { text, name, read });
  return read;
}

function checkMeta(text: string, name: string): MetaRead {
  if (text.trim() === '') return { corrupt: 'meta.json is empty' };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { corrupt: 'meta.json is not JSON (half-written or overwritten)' };
  }
  const raw = json !== null && typeof json === 'object' ? (json as Record<string, unknown>) : undefined;
  const parsed = WorkerMetaSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { corrupt: `meta.json does not match its schema (${issue?.path.join('.') || 'root'}: ${issue?.message ?? 'invalid'})`, raw };
  }
  const meta = parsed.data;
  if (meta.name !== name) return { corrupt: `meta.json names worker '${meta.name}', not '${name}'`, raw };
  if (meta.substrateSession !== sessionName(name)) return { corrupt: `meta.json names session '${meta.substrateSession}', not '${sessionName(name)}'`, raw };
  return { meta };
}

/**
 * Typed events, per provider and file: an event file never changes once visible, so each is parsed
 * (own kinds by their schema, hook kinds by the provider) once per engine, and the same object is
 * handed to every later view. Bounded: forgotten wholesale past 50,000 files.
 */
const NO_PROVIDER = {};

function typeEvent(provider: Provider | undefined, raw: RawEvent): Omit<TypedEvent, 'payload'> {
  if (isOwnKind(raw.kind)) {
    const parsed = parseOwnEvent(raw.kind, raw.payload);
    return 'problem' in parsed ? { problem: parsed.problem } : { event: { ...raw, own: parsed.event, info: {} } };
  }
  if (!provider) return { event: { ...raw, info: {} } };
  try {
    return { event: { ...raw, info: provider.doParseEvent({ kind: raw.kind, at: raw.at, payload: raw.payload }) ?? {} } };
  } catch (error) {
    const problem = `provider '${provider.providerId}' failed in doParseEvent: ${(error as Error)?.message ?? String(error)}`;
    return { event: { ...raw, info: {} }, problem };
  }
}

/**
 * Type raw events: own ones by their schemas, hook ones by the provider (once each per `cache`: the
 * engine's; without one, each is typed anew). Exported for tests.
 */
export function ledgerEvents(
  provider: Provider | undefined,
  dir: string,
  raws: readonly RawEvent[],
  problems: StateProblem[],
  cache: TypedEvents = new WeakMap(),
): LedgerEvent[] {
  const owner = provider ?? NO_PROVIDER;
  let known = cache.get(owner);
  if (!known) cache.set(owner, (known = new Map()));
  const out: LedgerEvent[] = [];
  for (const raw of raws) {
    const file = `${dir}/${raw.file}`;
    let typed = known.get(file);
    // (the event store hands out the same payload object until the file leaves the dir)
    if (!typed || typed.payload !== raw.payload) {
      typed = { payload: raw.payload, ...typeEvent(provider, raw) };
      if (known.size > 50_000) known.clear();
      known.set(file, typed);
    }
    if (typed.problem) problems.push({ file, message: typed.problem });
    if (typed.event) out.push(typed.event);
  }
  return out;
}

/** The events of each process the worker had, oldest first: a `revived` record starts the next (and is its first event). */
export function livesOf(events: readonly LedgerEvent[]): LedgerEvent[][] {
  const lives: LedgerEvent[][] = [[]];
  for (const event of events) {
    if (event.own?.kind === 'revived') lives.push([]);
    (lives[lives.length - 1] as LedgerEvent[]).push(event);
  }
  return lives;
}

/** The events of the current process: from the last `revived` record (all when never revived). */
function currentLife(events: readonly LedgerEvent[]): readonly LedgerEvent[] {
  const i = events.findLastIndex((e) => e.own?.kind === 'revived');
  return i < 0 ? events : events.slice(i);
}

/** The current process's life: when it was revived, when it was ready, whether its CLI announced a session. */
export function lifeOf(events: readonly LedgerEvent[]): Pick<WorkerView, 'revivedAt' | 'readyAt' | 'sessionSeen'> {
  const revived = events.findLast((e) => e.own?.kind === 'revived');
  const life = currentLife(events);
  const ready = life.find((e) => e.own?.kind === 'ready');
  return { ...(revived ? { revivedAt: revived.at } : {}), ...(ready ? { readyAt: ready.at } : {}), sessionSeen: life.some((e) => e.kind === 'session') };
}

/** The exit and death records of the current process (a revive starts a new life). */
export function deathOf(events: readonly LedgerEvent[]): DeathRecord {
  return deathIn(currentLife(events));
}

/** The exit and death records among the events of one life. */
export function deathIn(events: readonly LedgerEvent[]): DeathRecord {
  let exit: DeathRecord['exit'];
  let dead: DeathRecord['dead'];
  for (const event of events) {
    if (!exit && event.own?.kind === 'exit') exit = { ...event.own.data, at: event.at };
    if (!dead && event.own?.kind === 'dead') dead = { ...event.own.data, at: event.at };
  }
  return { ...(exit ? { exit } : {}), ...(dead ? { dead } : {}) };
}

/** The newest event that names a transcript wins (a /clear switches files); meta holds the first known. */
function transcriptOf(meta: WorkerMeta | undefined, events: readonly LedgerEvent[]): WorkerView['transcript'] {
  let path = meta?.transcriptPath;
  let sessionId = meta?.sessionId;
  for (const event of events) {
    if (event.own) continue;
    if (event.info.transcriptPath) path = event.info.transcriptPath;
    if (event.info.sessionId) sessionId = event.info.sessionId;
  }
  return { ...(path ? { path } : {}), ...(sessionId ? { sessionId } : {}) };
}

function shownOf(read: MetaRead | undefined, dir: string): WorkerView['shown'] {
  if (read && 'meta' in read) return read.meta;
  const raw = read && 'raw' in read ? (read.raw ?? {}) : {};
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  let createdAt = str(raw.createdAt);
  if (!createdAt) {
    try {
      createdAt = statSync(dir).mtime.toISOString();
    } catch {
      createdAt = new Date(0).toISOString();
    }
  }
  return { provider: str(raw.provider) ?? 'unknown', cwd: str(raw.cwd) ?? '', createdAt, anonymous: raw.anonymous === true, model: str(raw.model) };
}

/** Load the worker in directory `name`; undefined when there is no such directory. */
export function loadWorker(ctx: EngineContext, name: string): WorkerView | undefined {
  const paths = ctx.paths.worker(name);
  const read = readMeta(ctx.ledger.metas, paths.meta, name);
  const events = ctx.ledger.events.read(paths.events);
  if (!read && !events.exists && !dirExists(paths.dir)) return undefined;
  // Nothing changed since the last look (the same meta text, the same event files): the same view.
  const known = ctx.ledger.views;
  const last = known.get(name);
  if (last && last.read === read && last.events === events && read && 'meta' in read) return last.view;
  const view = buildView(ctx, name, paths, read, events);
  if (known.size > 4096) known.clear();
  known.set(name, { read, events, view });
  return view;
}

function buildView(ctx: EngineContext, name: string, paths: WorkerView['paths'], read: MetaRead | undefined, events: EventDirRead): WorkerView {
  const meta = read && 'meta' in read ? read.meta : undefined;
  const problems: StateProblem[] = [...events.problems];
  const corrupt = meta ? undefined : { reason: read && 'corrupt' in read ? read.corrupt : 'meta.json is missing', path: paths.meta };
  const provider = meta ? ctx.providers.find(meta.provider) : undefined;
  if (meta && !provider)
    problems.push({
      file: paths.meta,
      message: `provider '${meta.provider}' is not loaded (known: ${ctx.providers.ids.join(', ') || 'none'})${unloadedText(ctx.providers.unloaded)}`,
    });
  const typed = ledgerEvents(provider, paths.events, events.events, problems, ctx.ledger.typed);
  // billing: the first ready's (a revived worker bills as it did)
  const ready = typed.find((e) => e.own?.kind === 'ready');
  return {
    name,
    paths,
    session: sessionName(name),
    ...(meta ? { meta } : {}),
    ...(corrupt ? { corrupt } : {}),
    shown: shownOf(read, paths.dir),
    ...(provider ? { provider } : {}),
    events: typed,
    turns: assignTurns(typed, provider ?? {}),
    problems,
    ...lifeOf(typed),
    ...billingOf(ready?.own),
    ...quotaOf(typed),
    death: deathOf(typed),
    transcript: transcriptOf(meta, typed),
    ...(typed.length ? { lastEventAt: typed[typed.length - 1]?.at } : {}),
  };
}

/** The billing spawn recorded in the `ready` event (older workers have none). */
function billingOf(own: OwnEvent | undefined): Pick<WorkerView, 'billing'> {
  if (own?.kind !== 'ready' || own.data.billing === undefined) return {};
  const { billing, billingEvidence, endpoint } = own.data;
  return { billing: { billing, ...(billingEvidence ? { evidence: billingEvidence } : {}), ...(endpoint ? { endpoint } : {}) } };
}

const isoOfSeconds = (s: number | undefined) => (s === undefined || !Number.isFinite(s) ? undefined : new Date(s * 1000).toISOString());

function windowOf(w: ProviderV1QuotaWindow | undefined): QuotaWindow | undefined {
  if (!w || !Number.isFinite(w.usedPercent)) return undefined;
  const resetsAt = isoOfSeconds(w.resetsAt);
  return { usedPercent: w.usedPercent, ...(resetsAt ? { resetsAt } : {}) };
}

/** A plan usage reading of an event at `at`, in the status shape; undefined when it names no usable window. */
export function quotaAt(q: ProviderV1Quota, at: bigint): Quota | undefined {
  const fiveHour = windowOf(q.fiveHour);
  const sevenDay = windowOf(q.sevenDay);
  if (!fiveHour && !sevenDay) return undefined;
  return { ...(fiveHour ? { fiveHour } : {}), ...(sevenDay ? { sevenDay } : {}), at: isoOf(at) };
}

/** The newest quota any event reported (a hook's: Claude's statusLine input; or a wait's `quota` record of a turn's), in the status shape. */
function quotaOf(typed: readonly LedgerEvent[]): Pick<WorkerView, 'quota'> {
  for (let i = typed.length - 1; i >= 0; i--) {
    const event = typed[i] as LedgerEvent;
    const q = event.own?.kind === 'quota' ? event.own.data : event.info.quota;
    const quota = q ? quotaAt(q, event.at) : undefined;
    if (quota) return { quota };
  }
  return {};
}

function dirExists(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Load a worker that must exist. */
export function requireWorker(ctx: EngineContext, name: string): WorkerView {
  const view = loadWorker(ctx, name);
  if (!view) throw new WorkerNotFoundError(name);
  return view;
}

/** Load a worker an operation will act on: it must exist, be readable and have its provider loaded. */
export function usableWorker(ctx: EngineContext, name: string): UsableView {
  const view = requireWorker(ctx, name);
  if (!view.meta) throw new WorkerCorruptError(name, view.corrupt?.reason ?? 'meta.json is unusable', view.corrupt?.path ?? view.paths.meta);
  if (!view.provider) throw new ProviderUnknownError(view.meta.provider, ctx.providers.ids, ctx.providers.unloaded);
  return view as UsableView;
}

/** What the provider read from a worker's hook events (of one kind, or all), oldest first (none when there is no such worker). */
export function hookEventsOf(ctx: EngineContext, name: string, kind?: string): ProviderV1EventInfo[] {
  return (loadWorker(ctx, name)?.events ?? []).filter((e) => !e.own && (kind === undefined || e.kind === kind)).map((e) => e.info);
}

/** The names of every worker directory under the state root, sorted (claims in progress excluded). */
export function workerNames(ctx: EngineContext): string[] {
  try {
    return readdirSync(ctx.paths.workersDir)
      .filter((n) => !n.startsWith('.'))
      .sort();
  } catch {
    return [];
  }
}
