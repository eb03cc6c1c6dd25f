/**
 * Provider packages the runtime could not load (`unloadedProviders`): the engine works for every
 * other provider, and wherever a worker's provider is missing — its status, a refusal, doctor —
 * the package that failed and why are named (issue 36.1).
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
const env = { PATH: process.env.PATH, HOME: '/nonexistent-home' };
const unloaded = [{ package: 'umbel-provider-mock (UMBEL_PROVIDERS)', reason: 'importing /x/index.js failed: Error: boom at import' }];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-unloaded-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-unloaded-work-'));
  substrate = createMemorySubstrate();
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

it("names the package that failed to load in a worker's status, in refusals and in doctor; kill still works", async () => {
  const before = createUmbel({ substrate, providers: [createMockProvider()], home, env });
  await before.spawn({ name: 'w1', provider: 'mock', cwd: work });
  const umbel = createUmbel({ substrate, providers: [], home, env, unloadedProviders: unloaded });

  const status = await umbel.status({ name: 'w1' });
  expect(status.problems?.map((p) => p.message).join('\n')).toMatch(/provider 'mock' is not loaded.*umbel-provider-mock \(UMBEL_PROVIDERS\).*boom at import/);
  await expect(umbel.send({ name: 'w1', prompt: 'hi' })).rejects.toThrow(/unknown provider 'mock'.*umbel-provider-mock.*boom at import/);
  await expect(umbel.spawn({ name: 'w2', provider: 'mock', cwd: work })).rejects.toThrow(/umbel-provider-mock.*boom at import/);

  const report = await umbel.doctor({});
  expect(report.ok).toBe(false);
  expect(report.unloaded).toEqual(unloaded);

  await umbel.kill({ name: 'w1' });
  expect((await umbel.status({ name: 'w1' })).state).toBe('killed');
});
