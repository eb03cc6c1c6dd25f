/**
 * The engine's registry checks a provider with the same complete shape check as the loader of
 * provider packages (`providerShapeIssues` of @umbel/provider), not only its specification literal.
 */
import { describe, expect, it } from 'vitest';
import { createUmbel } from './engine.js';
import { createMemorySubstrate, createMockProvider } from '../testing/index.js';

const withProvider = (provider: unknown) => () =>
  createUmbel({ substrate: createMemorySubstrate(), providers: [provider as never], home: '/nonexistent-umbel-home', env: {} });

describe('createUmbel refuses a provider that is not a ProviderV1', () => {
  it.each([
    ['a required member missing', { doReadTurn: undefined }, 'doReadTurn: expected a function'],
    ['an optional member of the wrong type', { doParseTranscript: 'read it' }, 'doParseTranscript: expected a function'],
    ['another specification', { specificationVersion: 'umbel-provider-v2' }, "implements 'umbel-provider-v2'"],
  ])('%s', (_what, change, issue) => {
    const create = withProvider({ ...createMockProvider(), ...change });
    expect(create).toThrow(expect.objectContaining({ code: 'UMBEL_PROVIDER_INVALID', message: expect.stringContaining(issue) }));
  });

  it('takes a valid one', () => {
    expect(withProvider(createMockProvider())().providerIds).toEqual(['mock']);
  });
});
