/**
 * The event files of one worker (`events/<ns>-<pid>-<kind>.json`), read as they are on disk: name,
 * time, kind and parsed payload, oldest first. A name that does not parse, a timestamp out of range
 * or a payload that is not JSON is a problem naming the file, never an exception.
 *
 * An event file never changes once it is visible (the sink, the engine and the launch wrapper all
 * write a temp file and rename it), so each is read once per store — one store per engine (its
 * ledger's, ./ledger-cache.ts); a name that leaves the dir leaves the cache. Bounded: the oldest
 * dirs are forgotten first.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_NS_MAX, EVENT_NS_MIN } from '../engine/clock.js';
import { StateInvalidError } from '../contract/errors.js';
import { readStateFileSync } from '../engine/state-file.js';

/** One event file as read. */
export interface RawEvent {
  /** File name within the events dir. */
  readonly file: string;
  readonly at: bigint;
  readonly kind: string;
  /** Parsed JSON, or undefined for an empty file (or one that is not JSON: see the problem). */
  readonly payload: unknown;
}

/** A state file that was skipped or only partly understood. */
export interface StateProblem {
  readonly file: string;
  readonly message: string;
}

/** What one read of an events dir found. */
export interface EventDirRead {
  /** False when the dir does not exist (or cannot be listed). */
  readonly exists: boolean;
  readonly events: readonly RawEvent[];
  readonly problems: readonly StateProblem[];
}

/** An event file is a hook payload or one of umbel's own records: kilobytes. */
const EVENT_FILE_MAX_BYTES = 4 * 1024 * 1024;

const NAME_RE = /^(\d+)-(\d+)-([a-z][a-z-]*)\.json$/;

type Parsed = { readonly event: RawEvent; readonly problem?: string };
/** Per dir: what its last listing held, and the read made of it (handed out again while the listing is the same). */
type DirCache = Map<string, { readonly names?: readonly string[]; readonly files: Map<string, Parsed>; readonly read: EventDirRead }>;
const CACHE_DIRS = 256;

/** The event dirs one engine read: each file is read once, each unchanged listing answered from memory. */
export interface EventStore {
  /** Read every event file of `dir`, oldest first. Dot files (temp files of a write in progress) are ignored. */
  read(dir: string): EventDirRead;
}

/** A store with nothing read yet. */
export function createEventStore(): EventStore {
  const cache: DirCache = new Map();
  return { read: (dir) => readEventDir(cache, dir) };
}

function parseName(file: string): { at: bigint; kind: string } | string {
  const m = NAME_RE.exec(file);
  if (!m) return 'not an event file name (<ns>-<pid>-<kind>.json)';
  const at = BigInt(m[1] as string);
  if (at < EVENT_NS_MIN || at > EVENT_NS_MAX) return `timestamp ${m[1]} is out of range`;
  return { at, kind: m[3] as string };
}

/** The payload of one event file; `refused` when it is no regular file (a named pipe never blocks the read). */
function readPayload(path: string): { readonly payload: unknown; readonly problem?: string } | { readonly refused: string } | undefined {
  let text: string;
  try {
    // Event files are small: a synchronous read costs microseconds, where the promise API pays
    // several thread-pool round trips per file (a cold `umbel status` reads hundreds).
    text = readStateFileSync(path, EVENT_FILE_MAX_BYTES);
  } catch (error) {
    if (error instanceof StateInvalidError) return { refused: error.message };
    return undefined; // vanished or unreadable this time: not remembered
  }
  if (text.trim() === '') return { payload: undefined };
  try {
    return { payload: JSON.parse(text) };
  } catch (error) {
    return { payload: undefined, problem: `payload is not JSON (${(error as Error).message})` };
  }
}

function readEventDir(cache: DirCache, dir: string): EventDirRead {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    cache.delete(dir);
    return { exists: false, events: [], problems: [] };
  }
  const last = cache.get(dir);
  if (last?.names && sameNames(last.names, names)) return last.read;
  const known = last?.files ?? new Map<string, Parsed>();
  const fresh = new Map<string, Parsed>();
  const events: RawEvent[] = [];
  const problems: StateProblem[] = [];
  let complete = true;
  for (const file of names) {
    if (file.startsWith('.')) continue;
    let parsed = known.get(file);
    if (!parsed) {
      const name = parseName(file);
      if (typeof name === 'string') {
        problems.push({ file: join(dir, file), message: name });
        continue;
      }
      const read = readPayload(join(dir, file));
      if (!read) {
        complete = false;
        continue;
      }
      if ('refused' in read) {
        problems.push({ file: join(dir, file), message: read.refused });
        continue;
      }
      parsed = { event: { file, at: name.at, kind: name.kind, payload: read.payload }, ...(read.problem ? { problem: read.problem } : {}) };
    }
    fresh.set(file, parsed);
    if (parsed.problem) problems.push({ file: join(dir, file), message: parsed.problem });
    events.push(parsed.event);
  }
  events.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.file < b.file ? -1 : 1));
  const read = { exists: true, events, problems };
  cache.delete(dir);
  // (a listing with a file that could not be read this time is read again next time)
  cache.set(dir, { ...(complete ? { names } : {}), files: fresh, read });
  if (cache.size > CACHE_DIRS) cache.delete(cache.keys().next().value as string);
  return read;
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}
