/**
 * A transcript reader in its first, unparsed form: each function parses `options.content` itself.
 * For callers and tests that hold only a transcript's text; `defineProvider` takes the parsed form
 * (`{parse, turn, messages}`) and parses each text once. Pure.
 */
import type { ProviderV1ReadTurnOptions, ProviderV1TurnRead } from '../spec.js';

/** `turn` and `messages` of the text in `options.content`, parsed by `parse` on each call. */
export function unparsedReader<T, M>(reader: {
  parse(content: string, transcriptPath: string): T;
  turn(parsed: T, options: ProviderV1ReadTurnOptions): ProviderV1TurnRead;
  messages(parsed: T, options: ProviderV1ReadTurnOptions): M;
}): { read(options: ProviderV1ReadTurnOptions): ProviderV1TurnRead; messages(options: ProviderV1ReadTurnOptions): M } {
  const parsed = (options: ProviderV1ReadTurnOptions) => reader.parse(options.content, options.transcriptPath);
  return { read: (options) => reader.turn(parsed(options), options), messages: (options) => reader.messages(parsed(options), options) };
}
