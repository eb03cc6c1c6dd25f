/**
 * A CLI slow under load (opencode on a loaded CI box). One that takes the prompt out of its input box
 * at once but fires its prompt hook late — later than send's confirmation windows: an empty box after
 * the Enter presses means the CLI took the text, and the send waits as long again for the turn. One
 * slow to take the prompt at all (the box still holds it): as many presses again. Either way the
 * answer is that turn's. A prompt never taken still fails, its error saying what the box showed and
 * showing the screen as the send gave up, without its blank lines.
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
  home = await mkdtemp(join(tmpdir(), 'umbel-send-late-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-send-late-work-'));
  substrate = createMemorySubstrate();
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

const engine = () => createUmbel({ substrate, providers: [createMockProvider()], home, env: { PATH: process.env.PATH } });

// the mock's windows: 3 presses × 400 ms; its hook comes 1800 ms after the box emptied
it('the box emptied at once, the prompt hook after every confirmation window: turn 1, its answer', async () => {
  const umbel = engine();
  await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work, env: { MOCK_CLI_SUBMIT_LATE_MS: '1800' } });
  expect(await umbel.send({ name: 'w1', prompt: 'ECHO late' })).toEqual({ worker: 'w1', turn: 1 });
  expect(await umbel.wait({ name: 'w1', timeout: '20s' })).toMatchObject({ turn: 1, reason: 'completed', result: 'late' });
});

it('a prompt the CLI never starts still fails as not submitted: the error says the box was emptied, the screen has no blank lines', async () => {
  const umbel = engine();
  await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work, env: { MOCK_CLI_SUBMIT_LATE_MS: '60000' } });
  const error = await umbel.send({ name: 'w1', prompt: 'ECHO never' }).catch((e: unknown) => e);
  expect(error).toMatchObject({ code: 'UMBEL_SEND_NOT_SUBMITTED' });
  const { message, paneTail } = error as { message: string; paneTail?: string };
  expect(message).toMatch(/input box is empty/);
  expect(paneTail).toBeTruthy();
  expect(paneTail?.split('\n').filter((l) => l.trim() === '')).toEqual([]);
});

// the mock's presses: 3, each window 400 ms; a CLI slow to take the prompt leaves it in its box meanwhile
it('a box that still holds the prompt when the presses are spent gets as many again: the CLI takes it at the fifth, turn 1', async () => {
  const umbel = engine();
  await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work, env: { MOCK_CLI_DROP_ENTERS: '4' } });
  expect(await umbel.send({ name: 'w1', prompt: 'ECHO slow to take' })).toEqual({ worker: 'w1', turn: 1 });
  expect(await umbel.wait({ name: 'w1', timeout: '20s' })).toMatchObject({ turn: 1, reason: 'completed', result: 'slow to take' });
});

it('a prompt left in the box is not submitted; the error says so and shows the screen as it gave up (before the box was cleared)', async () => {
  const umbel = engine();
  await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work, env: { MOCK_CLI_DROP_ENTERS: '10' } });
  const error = await umbel.send({ name: 'w1', prompt: 'ECHO never' }).catch((e: unknown) => e);
  expect(error).toMatchObject({ code: 'UMBEL_SEND_NOT_SUBMITTED' });
  expect((error as Error).message).toMatch(/still held the prompt/);
  expect((error as { paneTail?: string }).paneTail).toContain('ECHO never');
  expect(await umbel.capture({ name: 'w1' })).not.toContain('ECHO never');
  // the turn's record says it too: wait's error carries it
  const waited = await umbel.wait({ name: 'w1', timeout: '5s' }).catch((e: unknown) => e);
  expect(waited).toMatchObject({ code: 'UMBEL_TURN_NOT_SUBMITTED' });
  expect((waited as Error).message).toMatch(/after 6 Enter presses; its input box still held the prompt\)/);
});
