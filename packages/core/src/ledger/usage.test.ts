import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUmbel } from '../engine/engine.js';
import type { ProviderV1, ProviderV1TurnRead } from '@umbel/provider';
import { createMemorySubstrate, createMockProvider, readMockTurn, type MemorySubstrate } from '../testing/index.js';
import { outcomeUsage } from './usage.js';

describe('outcomeUsage: one mapping of a turn read to the outcome usage', () => {
  it('takes the typed shape as it is', () => {
    expect(outcomeUsage({ tokenUsage: { inputTokens: 7, outputTokens: 2, cacheReadTokens: 1, reasoningTokens: 3 } })).toEqual({
      inputTokens: 7,
      outputTokens: 2,
      cacheReadTokens: 1,
      reasoningTokens: 3,
    });
  });

  it("maps a legacy record's Claude names, passing other numbers through", () => {
    expect(
      outcomeUsage({ usage: { input_tokens: 5, output_tokens: 1, cache_read_input_tokens: 2, cache_creation_input_tokens: 0, cost_usd: 0.5, odd: 9 } }),
    ).toEqual({
      inputTokens: 5,
      outputTokens: 1,
      cacheReadTokens: 2,
      cacheCreationTokens: 0,
      costUsd: 0.5,
      odd: 9,
    });
  });

  it('prefers the typed shape over the legacy record, and is undefined without either', () => {
    expect(outcomeUsage({ usage: { input: 7 }, tokenUsage: { inputTokens: 7 } })).toEqual({ inputTokens: 7 });
    expect(outcomeUsage({})).toBeUndefined();
    expect(outcomeUsage({ tokenUsage: {} })).toBeUndefined();
  });
});

describe('a completed outcome carries the neutral usage', () => {
  let home: string;
  let work: string;
  let substrate: MemorySubstrate;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'umbel-usage-'));
    work = await mkdtemp(join(tmpdir(), 'umbel-usage-work-'));
    substrate = createMemorySubstrate();
  });
  afterEach(async () => {
    for (const name of await substrate.list()) await substrate.kill(name);
    await rm(home, { recursive: true, force: true, maxRetries: 5 });
    await rm(work, { recursive: true, force: true });
  });

  it('from a provider that reports raw token names beside the typed shape (Gemini: input_tokens 0 beside input 7)', async () => {
    const mock = createMockProvider();
    const provider: ProviderV1 = {
      ...mock,
      doReadTurn(options): ProviderV1TurnRead {
        const read = readMockTurn(options);
        return read.status === 'completed' ? { ...read, usage: { input: 7, output: 2, total: 9 }, tokenUsage: { inputTokens: 7, outputTokens: 2 } } : read;
      },
    };
    const umbel = createUmbel({ substrate, providers: [provider], home, env: { PATH: process.env.PATH } });
    await umbel.spawn({ name: 'u1', provider: 'mock', cwd: work });
    await umbel.send({ name: 'u1', prompt: 'ECHO counted' });
    const outcome = await umbel.wait({ name: 'u1', timeout: '20s' });
    expect(outcome).toMatchObject({ reason: 'completed', result: 'counted' });
    expect(outcome.usage).toEqual({ inputTokens: 7, outputTokens: 2 });
  });
});
