/**
 * What the transcript says about a turn: the one place the engine reads a transcript file and
 * hands it to its provider's reader (behind the guard). The answer always comes from here (or from
 * the CLI's own stop payload), never from the screen.
 */
import { closeSync, fstatSync, readSync, statSync } from 'node:fs';
import { openStateFileSync, readStateFile, readStateFileSync, TRANSCRIPT_MAX_BYTES } from '../engine/state-file.js';
import { isAbsolute, join } from 'node:path';
import type { TurnView, UsableView } from './ledger-types.js';
import type { Provider, ProviderV1Message, ProviderV1ReadTurnOptions, ProviderV1SideRecord, ProviderV1TurnRead } from '@umbel/provider';
import { guarded } from '../engine/provider-guard.js';

/** A transcript read for one turn. */
export interface TurnRead {
  readonly read: ProviderV1TurnRead;
  /** The options the provider was given (absent when no transcript could be read). */
  readonly options?: ProviderV1ReadTurnOptions;
  /** Size of the transcript text (for activity tracking). */
  readonly size: number;
  /** When the transcript was last modified (ms), when it could be read. */
  readonly mtimeMs?: number;
}

/** The reader's options for `turn` over transcript `content`. */
export function readOptionsFor(turn: TurnView, content: string, transcriptPath: string): ProviderV1ReadTurnOptions {
  return {
    content,
    transcriptPath,
    ...(turn.turnKey ? { turnKey: turn.turnKey } : {}),
    prompt: turn.prompt,
    ordinal: turn.turn,
    stopSeen: turn.stopSeen,
    ...(turn.stopMessage !== undefined ? { stopMessage: turn.stopMessage } : {}),
  };
}

/**
 * The provider's own parse of a transcript text (behind the guard), made once for every reader of
 * that text: `{ parsed }` to spread into the reader's options, `{}` for a provider that parses in
 * its readers.
 */
export function parsedTranscript(provider: Provider, content: string, transcriptPath: string): { parsed?: unknown } {
  if (!provider.doParseTranscript) return {};
  return { parsed: guarded(provider, 'doParseTranscript', () => provider.doParseTranscript?.({ content, transcriptPath })) };
}

/** Transcripts up to this size are read synchronously: far cheaper than the promise API's round trips. */
const SYNC_READ_MAX = 8 << 20;

/** The transcript's text and modification time, or undefined when it cannot be read. */
async function readTranscript(path: string): Promise<{ content: string; mtimeMs: number } | undefined> {
  try {
    const { size, mtimeMs } = statSync(path);
    return { content: size <= SYNC_READ_MAX ? readStateFileSync(path, TRANSCRIPT_MAX_BYTES) : await readStateFile(path, TRANSCRIPT_MAX_BYTES), mtimeMs };
  } catch {
    return undefined;
  }
}

/** The last `maxBytes` of a file (all of it when shorter or unbounded), or undefined when it cannot be read. */
function readTail(path: string, maxBytes: number | undefined): string | undefined {
  let fd: number | undefined;
  try {
    fd = openStateFileSync(path, Number.MAX_SAFE_INTEGER);
    const size = fstatSync(fd).size;
    const start = maxBytes !== undefined && size > maxBytes ? size - maxBytes : 0;
    const buffer = Buffer.alloc(size - start);
    const n = readSync(fd, buffer, 0, buffer.length, start);
    return buffer.subarray(0, n).toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The provider's side records by name (paths inside the worker's provider dir only), each read when
 * the reader first asks for it and kept for this read: a turn the transcript settles reads none.
 */
export function readSideRecords(dir: string, records: readonly ProviderV1SideRecord[] | undefined): Record<string, string> | undefined {
  if (!records?.length) return undefined;
  const out: Record<string, string> = {};
  for (const record of records) {
    if (isAbsolute(record.path) || record.path.split(/[\\/]/).includes('..')) continue;
    let text: string | undefined;
    let read = false;
    Object.defineProperty(out, record.name, {
      enumerable: true,
      get: () => {
        if (!read) [text, read] = [readTail(join(dir, record.path), record.maxBytes), true];
        return text;
      },
    });
  }
  return out;
}

const MISSING: TurnRead = { read: { status: 'missing' }, size: -1 };

/** Read `turn` from the worker's transcript (and its provider's side records). A missing or unreadable transcript is `missing`. */
export async function readTurn(view: UsableView, turn: TurnView, transcriptPath = view.transcript.path): Promise<TurnRead> {
  return (await readTurns(view, [turn], transcriptPath))[0] as TurnRead;
}

/** Read each of `turns` from one read of the transcript and of the side records (`actions` of every turn). */
export async function readTurns(view: UsableView, turns: readonly TurnView[], transcriptPath = view.transcript.path): Promise<TurnRead[]> {
  const file = transcriptPath ? await readTranscript(transcriptPath) : undefined;
  if (!transcriptPath || !file) return turns.map(() => MISSING);
  const sideRecords = readSideRecords(view.paths.provider, view.provider.sideRecords);
  const parsed = parsedTranscript(view.provider, file.content, transcriptPath);
  return turns.map((turn) => {
    const options = { ...readOptionsFor(turn, file.content, transcriptPath), ...(sideRecords ? { sideRecords } : {}), ...parsed };
    const read = guarded(view.provider, 'doReadTurn', () => view.provider.doReadTurn(options));
    return { read, options, size: file.content.length, mtimeMs: file.mtimeMs };
  });
}

/** The messages of a turn for stream output (empty without a transcript or a reader). */
export function readMessages(view: UsableView, options: ProviderV1ReadTurnOptions | undefined): readonly ProviderV1Message[] {
  const provider = view.provider;
  if (!options || !provider.doReadMessages) return [];
  return guarded(provider, 'doReadMessages', () => provider.doReadMessages?.(options) ?? []);
}
