/**
 * A send into a busy CLI that drops input typed while it works (issue 36.4): a provider that
 * declares it (`input.whileBusy: 'drop'`) gets a send refused at once, before anything is typed
 * and before a turn number is taken — so the next `wait` is about the running turn, and the next
 * send after it opens the very next number. A CLI that queues (the default) still queues.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createUmbel } from '../engine/engine.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-send-busy-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-send-busy-work-'));
  substrate = createMemorySubstrate();
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

it('refuses a send into a busy CLI that drops input, typing nothing and taking no turn number', async () => {
  const umbel = createUmbel({ substrate, providers: [createMockProvider({ dropsInputWhileBusy: true })], home, env: { PATH: process.env.PATH } });
  await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work, env: { MOCK_CLI_DROP_WHILE_BUSY: '1' } });
  expect((await umbel.send({ name: 'w1', prompt: 'DELAY 1500 ECHO one' })).turn).toBe(1);
  await expect(umbel.send({ name: 'w1', prompt: 'ECHO two' })).rejects.toMatchObject({
    code: 'UMBEL_SEND_BUSY',
    message: expect.stringMatching(/still running turn 1.*drops input.*nothing was typed/),
  });
  expect(await umbel.capture({ name: 'w1' })).not.toContain('ECHO two');
  // the next wait is about the turn that exists, and the next send opens turn 2
  expect(await umbel.wait({ name: 'w1', timeout: '20s' })).toMatchObject({ turn: 1, reason: 'completed', result: 'one' });
  expect((await umbel.send({ name: 'w1', prompt: 'ECHO two' })).turn).toBe(2);
  expect(await umbel.wait({ name: 'w1', timeout: '20s' })).toMatchObject({ turn: 2, reason: 'completed', result: 'two' });
});

it('refuses a send into a busy CLI that may merge input into the running turn, typing nothing', async () => {
  const umbel = createUmbel({ substrate, providers: [createMockProvider({ mergesInputWhileBusy: true })], home, env: { PATH: process.env.PATH } });
  await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
  expect((await umbel.send({ name: 'w1', prompt: 'DELAY 1500 ECHO one' })).turn).toBe(1);
  await expect(umbel.send({ name: 'w1', prompt: 'ECHO two' })).rejects.toMatchObject({
    code: 'UMBEL_SEND_BUSY',
    message: expect.stringMatching(/still running turn 1.*may take input typed while it works into that turn.*nothing was typed/),
  });
  expect(await umbel.capture({ name: 'w1' })).not.toContain('ECHO two');
  expect(await umbel.wait({ name: 'w1', timeout: '20s' })).toMatchObject({ turn: 1, reason: 'completed', result: 'one' });
  expect((await umbel.send({ name: 'w1', prompt: 'ECHO two' })).turn).toBe(2);
});
