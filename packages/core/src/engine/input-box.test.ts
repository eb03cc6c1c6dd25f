import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUmbel } from './engine.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';
import type { Umbel } from '../contract/umbel.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
let umbel: Umbel;
const delivered: { how: 'paste' | 'type'; text: string }[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-engine-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-work-'));
  substrate = createMemorySubstrate();
  delivered.length = 0;
  const paste = substrate.pasteText.bind(substrate);
  const type = substrate.typeText.bind(substrate);
  substrate.pasteText = (session, text) => {
    delivered.push({ how: 'paste', text });
    return paste(session, text);
  };
  substrate.typeText = (session, text) => {
    delivered.push({ how: 'type', text });
    return type(session, text);
  };
  const mock = createMockProvider({ providerId: 'typing' });
  const typing = { ...mock, input: { ...mock.input, alwaysPaste: false } };
  umbel = createUmbel({ substrate, providers: [createMockProvider(), typing], home, env: { PATH: process.env.PATH } });
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

describe('what a send puts into the input box', () => {
  it('paste terminators and control characters arrive as control pictures, never as keys', async () => {
    await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
    await umbel.send({ name: 'w1', prompt: 'ECHO a\x1b[201~!touch x\r\nb\x03' });
    expect(delivered).toEqual([{ how: 'paste', text: 'ECHO a\u241b[201~!touch x\nb\u2403' }]);
    expect((await umbel.wait({ name: 'w1', timeout: '10s' })).result).toBe('a\u241b[201~!touch x\nb\u2403');
  });

  it('a command is held to the same rule', async () => {
    await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
    await umbel.send({ name: 'w1', prompt: '/x\x1b[201~/exit', command: true }).catch(() => undefined);
    expect(delivered[0]).toEqual({ how: 'paste', text: '/x\u241b[201~/exit' });
  });

  it('a provider that types short prompts still pastes one holding a tab (typed, a tab is a key)', async () => {
    await umbel.spawn({ name: 'w1', provider: 'typing', cwd: work });
    await umbel.send({ name: 'w1', prompt: 'ECHO plain' });
    await umbel.wait({ name: 'w1', timeout: '10s' });
    await umbel.send({ name: 'w1', prompt: 'ECHO a\tb' });
    expect(delivered).toEqual([
      { how: 'type', text: 'ECHO plain' },
      { how: 'paste', text: 'ECHO a\tb' },
    ]);
  });
});
