// `kill --purge` and `prune` on a worker dir that cannot be removed (read-only, EACCES/EPERM/EROFS:
// simulated, since root ignores modes) are typed errors naming the dir, never UMBEL_INTERNAL.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { UmbelError } from '../contract/errors.js';
import { errorExitCode } from '../contract/exit-codes.js';
import type { createUmbel as CreateUmbel } from '../engine/engine.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';

const refused = vi.hoisted(() => ({ dirs: new Set<string>() }));
vi.mock('node:fs/promises', async (original) => {
  const fs = await original<typeof import('node:fs/promises')>();
  const guardedRm: typeof fs.rm = async (path, options) => {
    if (refused.dirs.has(String(path))) throw Object.assign(new Error(`EACCES: permission denied, rmdir '${String(path)}'`), { code: 'EACCES' });
    return fs.rm(path, options);
  };
  return { ...fs, rm: guardedRm, default: { ...fs, rm: guardedRm } };
});

// The unit projects share modules between files (isolate: false): the engine is loaded afresh, after
// the mock, so its fs calls meet it however many files loaded the engine before this one.
let createUmbel: typeof CreateUmbel;
beforeAll(async () => {
  vi.resetModules();
  ({ createUmbel } = await import('../engine/engine.js'));
});

let home: string;
let work: string;
let substrate: MemorySubstrate;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-kill-ro-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-kill-ro-work-'));
  substrate = createMemorySubstrate();
});
afterEach(async () => {
  refused.dirs.clear();
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

async function failure(promise: Promise<unknown>): Promise<UmbelError> {
  try {
    await promise;
  } catch (error) {
    if (UmbelError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a typed error');
}

describe('a worker dir that cannot be removed', () => {
  it('kill --purge is StateUnwritableError naming it (the session is ended all the same)', async () => {
    const umbel = createUmbel({ substrate, providers: [createMockProvider()], home, env: { PATH: process.env.PATH } });
    await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
    const dir = join(home, 'workers', 'w1');
    refused.dirs.add(dir);
    const error = await failure(umbel.kill({ name: 'w1', purge: true }));
    expect(error).toMatchObject({ code: 'UMBEL_STATE_UNWRITABLE' });
    expect(error.message).toContain(dir);
    expect(errorExitCode(error)).toBe(1);
    expect(await substrate.list()).toEqual([]);
  });

  it('prune is StateUnwritableError naming it', async () => {
    const umbel = createUmbel({ substrate, providers: [createMockProvider()], home, env: { PATH: process.env.PATH } });
    await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
    await umbel.kill({ name: 'w1' });
    const dir = join(home, 'workers', 'w1');
    refused.dirs.add(dir);
    const error = await failure(umbel.prune());
    expect(error).toMatchObject({ code: 'UMBEL_STATE_UNWRITABLE' });
    expect(error.message).toContain(dir);
  });
});
