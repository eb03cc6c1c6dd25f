/**
 * Once `umbel -p` has printed its answer it only exits (issue #37): the worker's removal and the
 * pool's refill are handed to the detached process before the answer goes out, never after it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUmbel, type Umbel } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { CliIo } from './io.js';
import { run } from './run.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
let engine: Umbel;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-cli-handover-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-cli-handover-work-'));
  substrate = createMemorySubstrate();
  engine = createUmbel({ substrate, providers: [createMockProvider()], home, env: { PATH: process.env.PATH } });
});
afterEach(async () => {
  for (const s of await substrate.list()) await substrate.kill(s);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

/** An io whose stdout writes and detached starts are logged in one sequence. */
function logged() {
  const seq: string[] = [];
  const jobs: unknown[] = [];
  const io: CliIo = {
    stdout: { write: (t: string) => seq.push(`stdout ${t.trim()}`) > 0 },
    stderr: { write: () => true },
    readStdin: async () => undefined,
    env: { PATH: process.env.PATH },
    cwd: work,
    createEngine: () => engine,
    onSignal: () => () => undefined,
    spawnDetached: async (args, stdin) => {
      seq.push(`detached ${args.join(' ')}`);
      jobs.push(JSON.parse(stdin));
      return process.pid;
    },
  };
  return { io, seq, jobs };
}

it.each(['text', 'json'])('the teardown is handed over before the answer is printed (%s)', async (format) => {
  const { io, seq, jobs } = logged();
  const code = await run(['-p', 'ECHO the answer', '--provider', 'mock', '--output-format', format], io);
  expect(code).toBe(0);
  expect(seq).toHaveLength(2);
  expect(seq[0]).toBe('detached pool finish --detached');
  expect(seq[1]).toContain('the answer');
  expect(jobs).toEqual([{ worker: expect.stringMatching(/^anon-/) }]);
});

it('a warm call hands its worker and its pool refill over before the answer', async () => {
  const { io, seq, jobs } = logged();
  const pool = await engine.pool.start({ provider: 'mock', cwd: work, size: 1 });
  const code = await run(['-p', 'ECHO warm', '--provider', 'mock', '--pool', pool.name], io);
  expect(code).toBe(0);
  expect(seq).toEqual(['detached pool finish --detached', 'stdout warm']);
  expect(jobs).toEqual([expect.objectContaining({ pool: pool.name, claimedBy: process.pid, refill: expect.objectContaining({ name: pool.name }) })]);
});
