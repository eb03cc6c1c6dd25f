/**
 * Two engines in one process share nothing they cached: each reads the state root through its own
 * ledger (event dirs, metas, typed events, views) and its own pool key.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createUmbel } from './engine.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
const env = { PATH: process.env.PATH, HOME: '/nonexistent-home' };
const engine = () => createUmbel({ substrate, providers: [createMockProvider()], home, env });

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-instances-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-instances-work-'));
  substrate = createMemorySubstrate();
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

it("a second engine reads the worker's files itself, never what the first one cached", async () => {
  const first = engine();
  await first.spawn({ name: 'w1', provider: 'mock', cwd: work });
  expect((await first.status({ name: 'w1' })).billing).not.toBe('api');
  // An event file never changes once visible, so an engine reads each once; rewriting one in
  // place shows whose read the second engine gets.
  const events = join(home, 'workers', 'w1', 'events');
  const ready = (await readdir(events)).find((f) => f.endsWith('-ready.json')) as string;
  const payload = JSON.parse(await readFile(join(events, ready), 'utf8')) as Record<string, unknown>;
  await writeFile(join(events, ready), JSON.stringify({ ...payload, billing: 'api', billingEvidence: 'rewritten' }));
  expect(await engine().status({ name: 'w1' })).toMatchObject({ billing: 'api', billingEvidence: 'rewritten' });
});

it('an engine on a state root made again at the same path makes its own pool key', async () => {
  const first = engine();
  await first.pool.start({ provider: 'mock', cwd: work, size: 1 });
  expect(existsSync(join(home, 'pools', '.key'))).toBe(true);
  await first.pool.stop();
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await mkdir(home, { mode: 0o700 });
  const second = engine();
  await second.pool.start({ provider: 'mock', cwd: work, size: 1 });
  // the pool's digests are under the key on disk, which every other process reads
  expect(existsSync(join(home, 'pools', '.key'))).toBe(true);
});
