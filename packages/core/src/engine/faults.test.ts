// Fault injection at the engine: a prune racing a spawn, a full disk under the state root, a host
// whose liveness probe fails while the worker's own signals say it is fine. Each leaves nothing
// lost and says what happened with a typed error.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUmbel } from './engine.js';
import { UmbelError } from '../contract/errors.js';
import type { ProviderV1 } from '@umbel/provider';
import type { Substrate } from '../contract/substrate.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
const env = { PATH: process.env.PATH, HOME: '/nonexistent-home' };

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-faults-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-faults-work-'));
  substrate = createMemorySubstrate();
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

async function failure(promise: Promise<unknown>): Promise<UmbelError> {
  try {
    await promise;
  } catch (error) {
    if (UmbelError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a typed error, got success');
}

/** The mock provider, with a launch that takes `ms` to build (a window before the session exists). */
function slowLaunch(ms: number, before?: () => Promise<void>): ProviderV1 {
  const base = createMockProvider();
  return {
    ...base,
    async doBuildLaunch(options) {
      await before?.();
      await new Promise((r) => setTimeout(r, ms));
      return base.doBuildLaunch(options);
    },
  };
}

describe('prune racing spawn', () => {
  it('never removes a worker whose spawn is still starting (its session not up yet)', async () => {
    const umbel = createUmbel({ substrate, providers: [slowLaunch(400)], home, env });
    const other = createUmbel({ substrate, providers: [createMockProvider()], home, env });
    const spawning = umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
    const pruned: string[] = [];
    for (let i = 0; i < 8; i++) {
      await new Promise((r) => setTimeout(r, 60));
      pruned.push(...(await other.prune()).removed);
    }
    expect(await spawning).toMatchObject({ name: 'w1', state: 'ready' });
    expect(pruned).toEqual([]);
    await umbel.send({ name: 'w1', prompt: 'ECHO alive' });
    expect(await umbel.wait({ name: 'w1', timeout: '10s' })).toMatchObject({ reason: 'completed', result: 'alive' });
  });
});

describe('a host that stops answering its liveness probe', () => {
  it('never decides the outcome while the worker answers (the probe is retried)', async () => {
    let failing = true;
    const flaky: Substrate = {
      ...substrate,
      inspect: async (session) => {
        if (failing) throw new Error('the terminal host did not answer within 5s (list-panes)');
        return substrate.inspect(session);
      },
    };
    const umbel = createUmbel({ substrate: { ...flaky, inspect: substrate.inspect.bind(substrate) }, providers: [createMockProvider()], home, env });
    await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
    const { turn } = await umbel.send({ name: 'w1', prompt: 'DELAY 1200 ECHO late but fine' });
    const waiting = createUmbel({ substrate: flaky, providers: [createMockProvider()], home, env });
    const outcome = await waiting.wait({ name: 'w1', turn, timeout: '20s' });
    failing = false;
    expect(outcome).toMatchObject({ reason: 'completed', result: 'late but fine' });
  });
});

/** A tmpfs of `kb` KiB at a fresh mount point (CI runs as root; the test fails loudly otherwise). */
async function smallDisk(kb: number): Promise<{ dir: string; fill: () => Promise<void>; free: () => Promise<void>; unmount: () => void }> {
  const dir = await mkdtemp(join(tmpdir(), 'umbel-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${kb}k,mode=0700`, 'tmpfs', dir]);
  const filler = join(dir, 'filler');
  return {
    dir,
    async fill() {
      const handle = await open(filler, 'w');
      try {
        for (;;) await handle.write(Buffer.alloc(4096, 1));
      } catch (error) {
        if ((error as { code?: string }).code !== 'ENOSPC') throw error;
      } finally {
        await handle.close().catch(() => undefined);
      }
    },
    free: () => rm(filler, { force: true }),
    unmount: () => {
      execFileSync('umount', ['-l', dir]);
      execFileSync('rmdir', [dir]);
    },
  };
}

describe('a full disk under the state root', () => {
  it('spawn and send say "no space left on the state root", with no stack trace and nothing half-written', async () => {
    const disk = await smallDisk(512);
    try {
      const root = join(disk.dir, 'state');
      await mkdir(root);
      const umbel = createUmbel({ substrate, providers: [createMockProvider()], home: root, env });
      await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
      await disk.fill();
      const spawnError = await failure(umbel.spawn({ name: 'w2', provider: 'mock', cwd: work }));
      expect(spawnError.code).toBe('UMBEL_STATE_UNWRITABLE');
      expect(spawnError.message).toContain('no space left on the state root');
      const sendError = await failure(umbel.send({ name: 'w1', prompt: 'ECHO nothing fits' }));
      expect(sendError.code).toBe('UMBEL_STATE_UNWRITABLE');
      await disk.free();
      expect((await umbel.list()).map((w) => [w.name, w.state])).toEqual([['w1', 'ready']]);
      await umbel.send({ name: 'w1', prompt: 'ECHO room again' });
      expect(await umbel.wait({ name: 'w1', timeout: '10s' })).toMatchObject({ reason: 'completed', result: 'room again', turn: 1 });
    } finally {
      for (const name of await substrate.list()) await substrate.kill(name);
      disk.unmount();
    }
  });

  it('a spawn whose hooks cannot write says so within seconds instead of waiting for its ready prompt', async () => {
    const disk = await smallDisk(512);
    try {
      const root = join(disk.dir, 'state');
      await mkdir(root);
      const umbel = createUmbel({ substrate, providers: [slowLaunch(0, () => disk.fill())], home: root, env });
      const error = await failure(umbel.spawn({ name: 'w1', provider: 'mock', cwd: work, startupTimeout: '60s' }));
      expect(error.code).toBe('UMBEL_STATE_UNWRITABLE');
      expect(error.message).toContain('no space left');
      await disk.free();
      expect(await umbel.list()).toEqual([]);
      expect(await substrate.list()).toEqual([]);
    } finally {
      disk.unmount();
    }
  });
});
