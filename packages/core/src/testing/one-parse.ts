/**
 * A check for providers with a parsed transcript reader (`doParseTranscript`): reading a turn and
 * its messages from the one parse the engine hands over gives what reading the text gives.
 */
import type { ProviderV1, ProviderV1ReadTurnOptions } from '@umbel/provider';
import { expect } from 'vitest';

/** Expect `provider` to read `options`' turn (and messages) from one parse of its content alone. */
export function expectReadsFromOneParse(provider: ProviderV1, options: ProviderV1ReadTurnOptions): void {
  expect(provider.doParseTranscript, `${provider.providerId} has no doParseTranscript`).toBeTypeOf('function');
  const parsed = provider.doParseTranscript?.({ content: options.content, transcriptPath: options.transcriptPath });
  const fromParse = { ...options, content: '', parsed };
  const read = provider.doReadTurn(options);
  expect(read.status).not.toBe('missing');
  expect(provider.doReadTurn(fromParse)).toEqual(read);
  expect(provider.doReadMessages?.(fromParse)).toEqual(provider.doReadMessages?.(options));
}
