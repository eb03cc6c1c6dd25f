// `completed.background` (issue 33): a turn whose CLI stopped while background work it started was
// still running says so, from the CLI's own stop record (the provider's `background` event info;
// Claude's Stop `background_tasks`, test-fixtures/real/REVIVE-FACTS.md §4), never from the screen.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutcomeSchema } from '../contract/schemas.js';
import type { Umbel } from '../contract/umbel.js';
import { createUmbel } from '../engine/engine.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';

let home: string;
let substrate: MemorySubstrate;
let umbel: Umbel;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-background-'));
  substrate = createMemorySubstrate();
  umbel = createUmbel({ substrate, providers: [createMockProvider()], home, env: { PATH: process.env.PATH, HOME: '/nonexistent-home' }, stopSettleMs: 300 });
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
});

describe('completed.background', () => {
  it('lists the background work the stop record names while some of it still runs', async () => {
    await umbel.spawn({ name: 'w', provider: 'mock', cwd: home });
    await umbel.send({ name: 'w', prompt: 'BACKGROUND bg-1 started it' });
    const outcome = await umbel.wait({ name: 'w', timeout: '20s' });
    expect(outcome).toMatchObject({ reason: 'completed', result: 'started it', background: [{ kind: 'shell', id: 'bg-1', running: true }] });
    expect(OutcomeSchema.parse(outcome).background).toEqual([{ kind: 'shell', id: 'bg-1', running: true }]);
  });

  it('has no background when the stop names none, or only finished work', async () => {
    await umbel.spawn({ name: 'w', provider: 'mock', cwd: home });
    await umbel.send({ name: 'w', prompt: 'ECHO plain' });
    expect(await umbel.wait({ name: 'w', timeout: '20s' })).not.toHaveProperty('background');
    await umbel.send({ name: 'w', prompt: 'BACKGROUND-DONE bg-2 finished' });
    const outcome = await umbel.wait({ name: 'w', timeout: '20s' });
    expect(outcome).toMatchObject({ reason: 'completed', result: 'finished' });
    expect(outcome).not.toHaveProperty('background');
  });

  it("lists what the transcript records as running at the turn's end when the stop record names nothing (Codex's background terminals)", async () => {
    const mock = createMockProvider();
    // a CLI whose stop hook lists nothing, its transcript reader the terminals that outlived the turn
    const provider = {
      ...mock,
      doReadTurn: (o: Parameters<typeof mock.doReadTurn>[0]) => {
        const read = mock.doReadTurn(o);
        return read.status === 'completed' && read.answer.startsWith('started')
          ? { ...read, background: [{ kind: 'terminal', id: '51120', running: true }] }
          : read;
      },
    };
    const engine = createUmbel({ substrate, providers: [provider], home, env: { PATH: process.env.PATH, HOME: '/nonexistent-home' }, stopSettleMs: 300 });
    await engine.spawn({ name: 't', provider: 'mock', cwd: home });
    await engine.send({ name: 't', prompt: 'ECHO started a terminal' });
    expect(await engine.wait({ name: 't', timeout: '20s' })).toMatchObject({
      reason: 'completed',
      background: [{ kind: 'terminal', id: '51120', running: true }],
    });
    // the stop record's list wins
    await engine.send({ name: 't', prompt: 'BACKGROUND bg-3 started too' });
    expect(await engine.wait({ name: 't', timeout: '20s' })).toMatchObject({ background: [{ kind: 'shell', id: 'bg-3', running: true }] });
    await engine.send({ name: 't', prompt: 'ECHO plain' });
    expect(await engine.wait({ name: 't', timeout: '20s' })).not.toHaveProperty('background');
  });
});
