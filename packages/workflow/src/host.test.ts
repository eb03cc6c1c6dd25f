/**
 * `host:` on a workflow worker: it reaches spawn as given (a fleet routes it), with its cwd as a
 * path on that host (not resolved against the workflow file, not checked on this machine). What a
 * step on a host cannot use — a schema file or a file: output, both files of this machine — is
 * refused before anything starts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUmbel, type SpawnOptions, type Umbel } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseWorkflow, runWorkflow } from './index.js';

let home: string;
let dir: string;
let substrate: MemorySubstrate;
let spawned: SpawnOptions[];
let engine: Umbel;
const callerEnv = { PATH: process.env.PATH, HOME: '/nonexistent-home' };

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-wf-host-home-'));
  dir = await mkdtemp(join(tmpdir(), 'umbel-wf-host-dir-'));
  substrate = createMemorySubstrate();
  const real = createUmbel({ substrate, providers: [createMockProvider()], home, env: callerEnv });
  spawned = [];
  // A stand-in for a fleet: records what spawn was asked, then runs the worker here.
  engine = Object.assign(Object.create(real) as Umbel, {
    spawn: async (options: SpawnOptions, context?: Parameters<Umbel['spawn']>[1]) => {
      spawned.push(options);
      const { host: _host, cwd: _cwd, ...rest } = options;
      return real.spawn({ ...rest, cwd: dir }, context);
    },
  });
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(dir, { recursive: true, force: true });
});

const load = (text: string) => parseWorkflow(text, { file: join(dir, 'wf.yaml') });

describe('workers on a host', () => {
  it('spawn gets the host and the cwd as written (a path there, never checked here)', async () => {
    const wf = load(`
workers:
  far: {provider: mock, host: gpu, cwd: /srv/on-the-host}
  near: {provider: mock}
steps:
  - {id: a, worker: far, prompt: ECHO from far}
  - {id: b, worker: near, prompt: ECHO from near}
`);
    const summary = await runWorkflow(engine, wf, { runId: 'h1', env: callerEnv });
    expect(summary).toMatchObject({ ok: true, exitCode: 0, outputs: { a: { output: 'from far' }, b: { output: 'from near' } } });
    const byName = Object.fromEntries(spawned.map((s) => [s.name, s]));
    expect(byName['h1-far']).toMatchObject({ host: 'gpu', cwd: '/srv/on-the-host' });
    expect(byName['h1-near']).toMatchObject({ cwd: dir });
    expect(byName['h1-near']).not.toHaveProperty('host');
  });

  it("refuses a schema file or a file: output on a host's step, before anything starts", async () => {
    const wf = load(`
workers:
  far: {provider: mock, host: gpu}
steps:
  - id: a
    worker: far
    prompt: ECHO x
    schema: schema.json
    outputs: {report: "file:report.md"}
`);
    const summary = await runWorkflow(engine, wf, { runId: 'h2', env: callerEnv }).catch((error: unknown) => error);
    expect(JSON.stringify(summary)).toMatch(/runs on host 'gpu', where this schema file is not/);
    expect(JSON.stringify(summary)).toMatch(/its files are not on this machine/);
    expect(spawned).toEqual([]);
  });

  it('a host name is checked by the schema', () => {
    expect(() => load('workers:\n  w: {provider: mock, host: "no spaces"}\nsteps:\n  - {id: a, worker: w, prompt: x}\n')).toThrow(/host/);
  });
});
