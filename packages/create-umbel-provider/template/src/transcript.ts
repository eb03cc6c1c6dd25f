/**
 * The transcript reader, the one real piece of code of a provider (pure: umbel does the I/O).
 * {{bin}} writes one JSON object per line: `session`, then per turn `user`, then `assistant` +
 * `turn_end`, or `error`, or `interrupted`, each with the `turn_id` its hook payloads carry. A line
 * that does not parse (the one being written) is skipped.
 */
import type { ProviderV1ReadTurnOptions, ProviderV1TurnRead } from '@umbel/provider';

interface Entry {
  readonly type: string;
  readonly turn_id?: string;
  readonly text?: string;
  readonly message?: string;
  readonly usage?: { readonly input_tokens?: number; readonly output_tokens?: number };
}

export function parseTranscript(content: string): Entry[] {
  const out: Entry[] = [];
  for (const line of content.split('\n')) {
    try {
      const value = JSON.parse(line) as unknown;
      if (value && typeof value === 'object' && typeof (value as Entry).type === 'string') out.push(value as Entry);
    } catch {
      // blank, or still being written
    }
  }
  return out;
}

/** The entries of one turn: by its id, else the `ordinal`-th prompt of the transcript. */
function turnEntries(entries: readonly Entry[], options: ProviderV1ReadTurnOptions): Entry[] | undefined {
  const id = options.turnKey ?? entries.filter((e) => e.type === 'user')[options.ordinal - 1]?.turn_id;
  const turn = entries.filter((e) => id !== undefined && e.turn_id === id);
  return turn.some((e) => e.type === 'user') ? turn : undefined;
}

export function readTurn(options: ProviderV1ReadTurnOptions): ProviderV1TurnRead {
  const turn = turnEntries(parseTranscript(options.content), options);
  if (!turn) return { status: 'missing' };
  const error = turn.find((e) => e.type === 'error');
  if (error) return { status: 'failed', message: error.message ?? '{{bin}} reported an error' };
  if (turn.some((e) => e.type === 'interrupted')) return { status: 'interrupted' };
  const end = turn.find((e) => e.type === 'turn_end');
  if (!end) return { status: 'running' }; // no end marker yet: never an answer
  const answer = turn
    .filter((e) => e.type === 'assistant')
    .map((e) => e.text ?? '')
    .join('\n');
  const usage = end.usage;
  return { status: 'completed', answer, ...(usage ? { tokenUsage: { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0 } } : {}) };
}
