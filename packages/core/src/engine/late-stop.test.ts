/**
 * A turn's Stop hook that lands after the next prompt was sent (its hook process ran late, as on a
 * loaded machine) belongs to its own turn: the next turn is not ended by it. Seen in CI as a `wait`
 * on `DIE 3` that answered 0 with the previous turn's answer instead of 125.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createUmbel } from './engine.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-late-stop-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-late-stop-work-'));
  substrate = createMemorySubstrate();
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

it("a late Stop of turn 1 does not end turn 2: the CLI's death is turn 2's outcome", async () => {
  const umbel = createUmbel({ substrate, providers: [createMockProvider()], home, env: { PATH: process.env.PATH }, stopSettleMs: 0 });
  await umbel.spawn({ name: 'w', provider: 'mock', cwd: work, env: { MOCK_CLI_STOP_LATE_MS: '400' } });
  await umbel.send({ name: 'w', prompt: 'ECHO first' });
  const first = await umbel.wait({ name: 'w' });
  expect(first).toMatchObject({ reason: 'completed', result: 'first', turn: 1 });
  // the Stop of turn 1 is still to come: send turn 2, which kills the CLI after the late Stop landed
  await umbel.send({ name: 'w', prompt: 'DELAY 800 DIE 3' });
  const second = await umbel.wait({ name: 'w', timeout: 20_000 });
  expect(second).toMatchObject({ reason: 'dead', turn: 2 });
});
