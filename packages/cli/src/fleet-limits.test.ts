// `--max-workers` on spawn, -p and pool start: past the limit each refuses with exit 117 and a
// message naming the limit and the live count; `umbel --help` lists the code.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUmbel, type Umbel } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo } from './io.js';
import { run } from './run.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
let engine: Umbel;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-cli-limits-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-cli-limits-work-'));
  substrate = createMemorySubstrate();
  engine = createUmbel({ substrate, providers: [createMockProvider()], home, env: { PATH: process.env.PATH } });
});
afterEach(async () => {
  for (const s of await substrate.list()) await substrate.kill(s);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

async function cli(argv: string[]) {
  const out = { stdout: '', stderr: '' };
  const io: CliIo = {
    stdout: { write: (t: string) => (out.stdout += t) },
    stderr: { write: (t: string) => (out.stderr += t) },
    readStdin: async () => undefined,
    env: { PATH: process.env.PATH },
    cwd: work,
    createEngine: () => engine,
    onSignal: () => () => undefined,
  };
  const code = await run(argv, io);
  return { code, ...out };
}

describe('--max-workers', () => {
  it('spawn, -p and pool start refuse past it with exit 117, naming the limit and the live count', async () => {
    expect(await cli(['spawn', 'w1', '--provider', 'mock', '--max-workers', '1'])).toMatchObject({ code: 0, stdout: 'w1\n' });
    const spawn = await cli(['spawn', 'w2', '--provider', 'mock', '--max-workers', '1']);
    expect(spawn.code).toBe(117);
    expect(spawn.stderr).toMatch(/maxWorkers 1 is reached: 1 workers live/);
    const print = await cli(['-p', 'ECHO hi', '--provider', 'mock', '--max-workers', '1']);
    expect(print.code).toBe(117);
    expect(print.stderr).toMatch(/maxWorkers 1/);
    const pool = await cli(['pool', 'start', '--provider', 'mock', '--size', '1', '--max-workers', '1']);
    expect(pool.code).toBe(117);
    expect((await engine.list()).map((w) => w.name)).toEqual(['w1']);
    // Within the limit, the same calls work.
    expect(await cli(['-p', 'ECHO hi', '--provider', 'mock', '--max-workers', '2'])).toMatchObject({ code: 0, stdout: 'hi\n' });
  });

  it('is a whole number of at least 1', async () => {
    expect(await cli(['spawn', 'w1', '--provider', 'mock', '--max-workers', 'many'])).toMatchObject({ code: 2 });
    expect(await cli(['spawn', 'w1', '--provider', 'mock', '--max-workers', '0'])).toMatchObject({ code: 2 });
  });

  it('umbel --help lists exit code 117', async () => {
    expect((await cli(['--help'])).stdout).toMatch(/117 {2}spawn, revive, -p, pool start, run: a fleet limit/);
  });
});
