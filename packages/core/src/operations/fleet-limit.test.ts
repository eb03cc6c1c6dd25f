// Fleet limits: a spawn that would pass `limits.maxWorkers` (or `maxWorkers` of the call) or go
// below `limits.minFreeMemoryMB` is refused with FleetLimitError (exit 117) naming the limit and the
// live count; concurrent spawns never overshoot; a spawn that may queue waits for a slot.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUmbel } from '../engine/engine.js';
import { UmbelErrorCode } from '../contract/errors.js';
import { errorExitCode } from '../contract/exit-codes.js';
import type { FleetLimits } from '../contract/schemas.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
const env = { PATH: process.env.PATH };

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-limit-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-limit-work-'));
  substrate = createMemorySubstrate();
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

const engineWith = (limits?: FleetLimits) => createUmbel({ substrate, home, env, providers: [createMockProvider()], ...(limits ? { limits } : {}) });
const spawnOptions = (name: string) => ({ name, provider: 'mock', cwd: work });

async function liveCount(engine: ReturnType<typeof engineWith>): Promise<number> {
  return (await engine.list()).filter((w) => w.alive).length;
}

describe('fleet limits', () => {
  it('20 parallel spawns against maxWorkers 5: exactly 5 live, 15 refused with exit 117 naming the limit and the count', async () => {
    const engine = engineWith({ maxWorkers: 5 });
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => engine.spawn(spawnOptions(`w${i}`))));
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error & { code?: string }] : []));
    expect(ok).toHaveLength(5);
    expect(refused).toHaveLength(15);
    for (const error of refused) {
      expect(error.code).toBe(UmbelErrorCode.FleetLimit);
      expect(errorExitCode(error)).toBe(117);
      expect(error.message).toMatch(/maxWorkers 5/);
      expect(error.message).toMatch(/5 workers live/);
    }
    expect(await liveCount(engine)).toBe(5);
    expect((await substrate.list()).length).toBe(5);
  });

  it('maxWorkers of one call overrides the config; dead workers free their slot', async () => {
    const engine = engineWith({ maxWorkers: 10 });
    await engine.spawn(spawnOptions('a1'));
    await engine.spawn(spawnOptions('a2'));
    await expect(engine.spawn({ ...spawnOptions('a3'), maxWorkers: 2 })).rejects.toMatchObject({ code: UmbelErrorCode.FleetLimit });
    await engine.kill({ name: 'a1' });
    await expect(engine.spawn({ ...spawnOptions('a3'), maxWorkers: 2 })).resolves.toMatchObject({ name: 'a3' });
  });

  it('without a limit nothing is refused', async () => {
    const engine = engineWith();
    for (const name of ['b1', 'b2', 'b3']) await engine.spawn({ ...spawnOptions(name) });
    expect(await liveCount(engine)).toBe(3);
  });

  it('minFreeMemoryMB above what is free refuses, naming the free memory', async () => {
    const engine = engineWith({ minFreeMemoryMB: 1e9 });
    const error = await engine.spawn(spawnOptions('m1')).catch((e: unknown) => e as Error & { code?: string });
    expect(error).toMatchObject({ code: UmbelErrorCode.FleetLimit });
    expect((error as Error).message).toMatch(/minFreeMemoryMB 1000000000/);
    expect((error as Error).message).toMatch(/MB free/);
    expect(await substrate.list()).toEqual([]);
  });

  it('a claimed worker whose spawn was killed before its launch does not hold a slot', async () => {
    const engine = engineWith({ maxWorkers: 1 });
    // What a spawn killed between its claim and its launch leaves: a starting worker of a dead pid.
    const dir = join(home, 'workers', 'ghost');
    await mkdir(join(dir, 'events'), { recursive: true, mode: 0o700 });
    const meta = {
      version: 1,
      name: 'ghost',
      provider: 'mock',
      cwd: work,
      unattended: false,
      anonymous: false,
      createdAt: new Date().toISOString(),
      substrateSession: 'umbel-ghost',
      providerFiles: [],
      envNames: [],
      readyBy: new Date(Date.now() + 600_000).toISOString(),
      spawnPid: 2 ** 22 + 7, // above pid_max: never alive
    };
    await writeFile(join(dir, 'meta.json'), JSON.stringify(meta), { mode: 0o600 });
    await expect(engine.spawn(spawnOptions('c1'))).resolves.toMatchObject({ name: 'c1' });
  });

  it('a lock left by a killed spawn is broken', async () => {
    const engine = engineWith({ maxWorkers: 2 });
    await mkdir(join(home, 'fleet.lock'), { recursive: true, mode: 0o700 });
    await writeFile(join(home, 'fleet.lock', 'owner'), JSON.stringify({ pid: 2 ** 22 + 7, at: Date.now() }), { mode: 0o600 });
    await expect(engine.spawn(spawnOptions('d1'))).resolves.toMatchObject({ name: 'd1' });
  });

  it('with queue, a spawn that may queue waits for a slot instead of failing', async () => {
    const engine = engineWith({ maxWorkers: 1, queue: true });
    await engine.spawn(spawnOptions('q1'));
    let settled = false;
    const queued = engine.spawn(spawnOptions('q2'), { queue: true }).finally(() => {
      settled = true;
    });
    // Without queue the same call is refused at once.
    await expect(engine.spawn(spawnOptions('q3'))).rejects.toMatchObject({ code: UmbelErrorCode.FleetLimit });
    expect(settled).toBe(false);
    await engine.kill({ name: 'q1' });
    await expect(queued).resolves.toMatchObject({ name: 'q2' });
  });

  it('a queued spawn is cancelled by its signal', async () => {
    const engine = engineWith({ maxWorkers: 1, queue: true });
    await engine.spawn(spawnOptions('s1'));
    const controller = new AbortController();
    const queued = engine.spawn(spawnOptions('s2'), { queue: true, signal: controller.signal });
    controller.abort();
    await expect(queued).rejects.toMatchObject({ code: UmbelErrorCode.Aborted });
  });

  it('pool start refuses past the limit (config or maxWorkers of the call), and leaves no pool behind', async () => {
    const engine = engineWith({ maxWorkers: 3 });
    await engine.spawn(spawnOptions('p0'));
    await expect(engine.pool.start({ name: 'pa', provider: 'mock', cwd: work, size: 3 })).rejects.toMatchObject({ code: UmbelErrorCode.FleetLimit });
    expect(await engine.pool.status()).toEqual([]);
    await expect(engine.pool.start({ name: 'pb', provider: 'mock', cwd: work, size: 2, maxWorkers: 2 })).rejects.toMatchObject({
      code: UmbelErrorCode.FleetLimit,
    });
    expect(await engine.pool.status()).toEqual([]);
    expect(await liveCount(engine)).toBeLessThanOrEqual(3);
  });
});
