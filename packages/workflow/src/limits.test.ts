// Fleet limits in workflows: past the limit a run fails its step with exit 117; with
// `limits.queue` its spawns wait for a slot instead; `maxWorkers` of the run is its own limit.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUmbel, type FleetLimits, type Umbel } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseWorkflow, runWorkflow, runWorkflowFile } from './index.js';

let home: string;
let dir: string;
let substrate: MemorySubstrate;
const callerEnv = { PATH: process.env.PATH, HOME: '/nonexistent-home' };

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-wf-limits-'));
  dir = await mkdtemp(join(tmpdir(), 'umbel-wf-limits-dir-'));
  substrate = createMemorySubstrate();
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(dir, { recursive: true, force: true });
});

const engineWith = (limits?: FleetLimits): Umbel =>
  createUmbel({ substrate, providers: [createMockProvider()], home, env: callerEnv, ...(limits ? { limits } : {}) });

const oneWorker = () =>
  parseWorkflow(
    `
workers:
  a: {provider: mock}
steps:
  - id: one
    worker: a
    prompt: ECHO one
`,
    { file: join(dir, 'wf.yaml') },
  );

describe('fleet limits in a workflow', () => {
  it('a spawn past the limit fails the run with exit 117', async () => {
    const engine = engineWith({ maxWorkers: 1 });
    await engine.spawn({ name: 'other', provider: 'mock', cwd: dir });
    const summary = await runWorkflow(engine, oneWorker(), { runId: 'r1', env: callerEnv });
    expect(summary).toMatchObject({ ok: false, exitCode: 117 });
  });

  it('maxWorkers of the run is its limit', async () => {
    const engine = engineWith();
    await engine.spawn({ name: 'other', provider: 'mock', cwd: dir });
    const summary = await runWorkflow(engine, oneWorker(), { runId: 'r2', env: callerEnv, maxWorkers: 1 });
    expect(summary).toMatchObject({ ok: false, exitCode: 117 });
  });

  it('with limits.queue, a spawn waits for a slot: the run completes once another worker ends', async () => {
    const engine = engineWith({ maxWorkers: 1, queue: true });
    await engine.spawn({ name: 'other', provider: 'mock', cwd: dir });
    // Every look at the fleet's panes after the run's spawn began: a queued spawn looks again and again.
    let spawningSeen = false;
    let looks = 0;
    const inspectAll = substrate.inspectAll?.bind(substrate);
    if (!inspectAll) throw new Error('the memory substrate looks at the fleet with inspectAll');
    substrate.inspectAll = async () => {
      if (spawningSeen) looks++;
      return inspectAll();
    };
    let settled = false;
    const run = runWorkflow(engine, oneWorker(), {
      runId: 'r3',
      env: callerEnv,
      onEvent: (event) => {
        if (event.kind === 'step' && event.state === 'spawning') spawningSeen = true;
      },
    }).finally(() => {
      settled = true;
    });
    // Two looks after the spawn began: the first was refused, and the spawn looked again instead of failing.
    while (looks < 2 && !settled) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    expect(await substrate.list()).toHaveLength(1);
    await engine.kill({ name: 'other' });
    const summary = await run;
    expect(summary).toMatchObject({ ok: true, exitCode: 0 });
  });

  it('runWorkflowFile (umbel run --max-workers): the step fails with 117, its message naming the limit', async () => {
    const engine = engineWith();
    await engine.spawn({ name: 'other', provider: 'mock', cwd: dir });
    const file = join(dir, 'wf.yaml');
    await writeFile(file, 'workers:\n  a: {provider: mock}\nsteps:\n  - id: one\n    worker: a\n    prompt: ECHO one\n');
    const summary = await runWorkflowFile({ engine, file, env: callerEnv, maxWorkers: 1, runId: 'r4' });
    expect(summary).toMatchObject({ ok: false, exitCode: 117, failedStep: { message: expect.stringMatching(/maxWorkers 1 is reached: 1 workers live/) } });
  });
});
