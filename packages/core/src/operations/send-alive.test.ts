// A send asks the host whether its worker lives before it types (a dead worker takes no prompt and
// opens no turn). Right after this engine had the host's word — the spawn saw the ready screen, or
// a pool claim found the pane alive — that answer stands: one tmux client less on
// every `umbel -p` (spawn or claim, then send). Later, or from another engine, the host is asked.
// The window is a lower bound here (the test waits it out), never a measured time.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Substrate } from '../contract/substrate.js';
import { createUmbel } from '../engine/engine.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';
import { ALIVE_FRESH_MS } from '../engine/alive.js';

let home: string;
let work: string;
let memory: MemorySubstrate;
let inspected: string[];
let substrate: Substrate;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-send-alive-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-send-alive-work-'));
  memory = createMemorySubstrate();
  inspected = [];
  substrate = {
    ...memory,
    inspect: async (session) => {
      inspected.push(session);
      return memory.inspect(session);
    },
  };
});
afterEach(async () => {
  for (const name of await memory.list()) await memory.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

const engine = () => createUmbel({ substrate, providers: [createMockProvider()], home, env: { PATH: process.env.PATH }, stopSettleMs: 300 });

describe('a send and the liveness of its worker', () => {
  it('right after the spawn that saw it ready, the send does not ask the host again', async () => {
    const umbel = engine();
    await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
    inspected.length = 0;
    expect(await umbel.send({ name: 'w1', prompt: 'ECHO one' })).toMatchObject({ turn: 1 });
    expect(inspected).toEqual([]);
    expect(await umbel.wait({ name: 'w1', turn: 1, timeout: '10s' })).toMatchObject({ reason: 'completed', result: 'one' });
  });

  it('right after a pool claim found its worker alive, the send does not ask again (another engine than the one that spawned it)', async () => {
    await engine().pool.start({ provider: 'mock', cwd: work, size: 1 });
    const other = engine();
    const got = await other.pool.claim({ provider: 'mock', cwd: work });
    expect(got.reason).toBe('claimed');
    inspected.length = 0;
    await other.send({ name: String(got.worker), prompt: 'ECHO one' });
    expect(inspected).toEqual([]);
  });

  it('once the word is older than the window, the send asks the host', async () => {
    const umbel = engine();
    await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
    await new Promise((resolve) => setTimeout(resolve, ALIVE_FRESH_MS + 50));
    inspected.length = 0;
    await umbel.send({ name: 'w1', prompt: 'ECHO one' });
    expect(inspected.length).toBeGreaterThanOrEqual(1);
  });

  it('another engine (another process) has no word of its own: it asks, and finds a dead worker dead', async () => {
    await engine().spawn({ name: 'w1', provider: 'mock', cwd: work });
    inspected.length = 0;
    await engine().send({ name: 'w1', prompt: 'ECHO one' });
    expect(inspected.length).toBeGreaterThanOrEqual(1);
    const session = (await memory.list())[0] as string;
    await memory.crash(session, { status: 3 });
    await expect(engine().send({ name: 'w1', prompt: 'ECHO two' })).rejects.toMatchObject({ code: 'UMBEL_WORKER_DEAD' });
  });

  it('a session that vanished inside the window (its tmux session killed under it): the send fails as dead', async () => {
    const umbel = engine();
    await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
    for (const session of await memory.list()) await memory.kill(session);
    await expect(umbel.send({ name: 'w1', prompt: 'ECHO one' })).rejects.toMatchObject({ code: 'UMBEL_WORKER_DEAD' });
  });

  it('a failed delivery to a live worker keeps its own error, also when the host cannot say whether it lives', async () => {
    const umbel = engine();
    await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
    substrate.pasteAndPress = async () => {
      throw new Error('paste broke');
    };
    substrate.inspect = async () => {
      throw new Error('the host did not answer');
    };
    await expect(umbel.send({ name: 'w1', prompt: 'ECHO one' })).rejects.toThrow('paste broke');
  });

  it('a killed worker: the send fails as dead, word or no word', async () => {
    const umbel = engine();
    await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
    await umbel.kill({ name: 'w1' });
    await expect(umbel.send({ name: 'w1', prompt: 'ECHO one' })).rejects.toMatchObject({ code: 'UMBEL_WORKER_DEAD' });
  });
});
