/**
 * The transcript reader: echo-agent writes one JSON object per line to
 * `<home>/sessions/<session-id>.jsonl` — `session`, then per turn `user`, then `assistant` +
 * `turn_end`, or `error`, or `interrupted`, each with the turn's `turn_id` (the `turn_id` of the
 * hook payloads). A line that does not parse (the one being written) is skipped.
 */
import type { ProviderV1Message, ProviderV1ReadTurnOptions, ProviderV1TurnRead } from '@umbel/core';

interface Entry {
  readonly type: string;
  readonly turn_id?: string;
  readonly text?: string;
  readonly message?: string;
  readonly usage?: Record<string, number>;
  readonly session_id?: string;
  readonly model?: string;
}

export function parseTranscript(content: string): Entry[] {
  const out: Entry[] = [];
  for (const line of content.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value = JSON.parse(line) as unknown;
      if (value && typeof value === 'object' && typeof (value as Entry).type === 'string') out.push(value as Entry);
    } catch {
      // a line still being written
    }
  }
  return out;
}

/** The entries of one turn: by its id, else the `ordinal`-th prompt of the transcript. */
function turnEntries(entries: readonly Entry[], options: ProviderV1ReadTurnOptions): Entry[] | undefined {
  const id = options.turnKey ?? entries.filter((e) => e.type === 'user')[options.ordinal - 1]?.turn_id;
  if (id === undefined) return undefined;
  const turn = entries.filter((e) => e.turn_id === id);
  return turn.some((e) => e.type === 'user') ? turn : undefined;
}

export function readTurn(options: ProviderV1ReadTurnOptions): ProviderV1TurnRead {
  const entries = parseTranscript(options.content);
  const turn = turnEntries(entries, options);
  if (!turn) return { status: 'missing' };
  const error = turn.find((e) => e.type === 'error');
  if (error) return { status: 'failed', message: error.message ?? 'echo-agent reported an error' };
  if (turn.some((e) => e.type === 'interrupted')) return { status: 'interrupted' };
  const end = turn.find((e) => e.type === 'turn_end');
  if (!end) return { status: 'running' };
  const session = entries.find((e) => e.type === 'session');
  return {
    status: 'completed',
    answer: turn
      .filter((e) => e.type === 'assistant')
      .map((e) => e.text ?? '')
      .join('\n'),
    ...(end.usage ? { usage: end.usage } : {}),
    ...(session?.session_id ? { sessionId: session.session_id } : {}),
    ...(session?.model ? { model: session.model } : {}),
  };
}

/** The turn's prompt and answer in the stream-json message shape. */
export function readMessages(options: ProviderV1ReadTurnOptions): ProviderV1Message[] {
  const turn = turnEntries(parseTranscript(options.content), options) ?? [];
  return turn
    .filter((e) => e.type === 'user' || e.type === 'assistant')
    .map((e) => {
      const role = e.type as 'user' | 'assistant';
      return { type: role, message: { role, content: [{ type: 'text', text: e.text ?? '' }] } };
    });
}
