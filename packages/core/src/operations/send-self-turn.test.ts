/**
 * A send while the CLI runs a turn of its own that fired no prompt hook (issue 33: Qwen Code's
 * `<task-notification>` turn after a background agent ended; BACKGROUND-FACTS.md §4). The CLI queues
 * the typed prompt and confirms it with its prompt hook only after its own turn's bare Stop. For a
 * provider that declares every prompt it takes fires that hook (`promptHook: 'every-prompt'`), the
 * send succeeds as the next turn and that turn's wait returns its own answer, never the CLI's own
 * turn's — whether that turn ends within send's confirmation windows or after them.
 */
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createUmbel } from '../engine/engine.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-send-self-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-send-self-work-'));
  substrate = createMemorySubstrate();
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

/** Poll `probe` until it holds (a generous deadline; nothing asserts on time). */
async function until(what: string, probe: () => Promise<boolean>): Promise<void> {
  for (const end = Date.now() + 20_000; Date.now() < end; await new Promise((r) => setTimeout(r, 25))) if (await probe()) return;
  throw new Error(`timed out waiting for ${what}`);
}

// the CLI's own turn answers 600 ms (within send's confirmation windows: 3 × 400 ms) or 2500 ms (after them) after it starts
it.each([600, 2500])('a send while the CLI runs a turn of its own (%i ms, no prompt hook): turn 2, its own answer', async (ms) => {
  const umbel = createUmbel({ substrate, providers: [createMockProvider({ everyPromptHooked: true })], home, env: { PATH: process.env.PATH } });
  await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work, env: { MOCK_CLI_QUEUE_WHILE_BUSY: '1' } });
  expect((await umbel.send({ name: 'w1', prompt: `SELFTURN 50 DELAY ${ms} ECHO its own` })).turn).toBe(1);
  expect(await umbel.wait({ name: 'w1', timeout: '20s' })).toMatchObject({ turn: 1, reason: 'completed', result: 'self-turn later' });
  const argv = substrate.launches[0]?.argv ?? [];
  const transcript = argv[argv.indexOf('--transcript') + 1] as string;
  await until("the CLI's own turn to start", async () => (await readFile(transcript, 'utf8')).includes('"meta":true'));
  const sent = await umbel.send({ name: 'w1', prompt: 'ECHO two' });
  expect(sent.turn).toBe(2);
  expect(await umbel.wait({ name: 'w1', timeout: '20s' })).toMatchObject({ turn: 2, reason: 'completed', result: 'two' });
  expect(await umbel.read({ name: 'w1', turn: 1 })).toMatchObject({ result: 'self-turn later' });
  expect((await umbel.send({ name: 'w1', prompt: 'ECHO three' })).turn).toBe(3);
  expect(await umbel.wait({ name: 'w1', timeout: '20s' })).toMatchObject({ turn: 3, reason: 'completed', result: 'three' });
});

it('a prompt left in the input box (swallowed Enter presses) is still not submitted: only an empty box means the CLI took it', async () => {
  const umbel = createUmbel({ substrate, providers: [createMockProvider({ everyPromptHooked: true })], home, env: { PATH: process.env.PATH } });
  await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work, env: { MOCK_CLI_DROP_ENTERS: '10' } });
  await expect(umbel.send({ name: 'w1', prompt: 'ECHO never' })).rejects.toMatchObject({ code: 'UMBEL_SEND_NOT_SUBMITTED' });
});
