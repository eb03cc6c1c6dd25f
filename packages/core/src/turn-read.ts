/**
 * What the transcript says about a turn: the one place the engine reads a transcript file and
 * hands it to its provider's reader (behind the guard). The answer always comes from here (or from
 * the CLI's own stop payload), never from the screen.
 */
import { readFile, stat } from 'node:fs/promises';
import type { TurnView, UsableView } from './ledger-types.js';
import type { ProviderV1Message, ProviderV1ReadTurnOptions, ProviderV1TurnRead } from './provider.js';
import { guarded } from './provider-guard.js';

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

/** Read `turn` from the worker's transcript. A missing or unreadable transcript is `missing`. */
export async function readTurn(view: UsableView, turn: TurnView, transcriptPath = view.transcript.path): Promise<TurnRead> {
  if (!transcriptPath) return { read: { status: 'missing' }, size: -1 };
  const content = await readFile(transcriptPath, 'utf8').catch(() => undefined);
  if (content === undefined) return { read: { status: 'missing' }, size: -1 };
  const options = readOptionsFor(turn, content, transcriptPath);
  const read = guarded(view.provider, 'doReadTurn', () => view.provider.doReadTurn(options));
  const mtimeMs = await stat(transcriptPath).then(
    (s) => s.mtimeMs,
    () => undefined,
  );
  return { read, options, size: content.length, ...(mtimeMs !== undefined ? { mtimeMs } : {}) };
}

/** The messages of a turn for stream output (empty without a transcript or a reader). */
export function readMessages(view: UsableView, options: ProviderV1ReadTurnOptions | undefined): readonly ProviderV1Message[] {
  const provider = view.provider;
  if (!options || !provider.doReadMessages) return [];
  return guarded(provider, 'doReadMessages', () => provider.doReadMessages?.(options) ?? []);
}
