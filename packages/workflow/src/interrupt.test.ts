/**
 * An interrupted run is never "completed" (issue 38, item 4): SIGINT during `umbel run` printed
 * "workflow completed", exit 0, with most steps pending, when it landed between two steps (a step
 * not started yet saw the abort and quietly did nothing). Here the interrupt is injected at every
 * progress event of a run, the racy points between steps included.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUmbel, type Umbel } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseWorkflow, type RunStatus, resumeWorkflow, runWorkflow, runWorkflowFile, type WorkflowEvent } from './index.js';

let home: string;
let dir: string;
let substrate: MemorySubstrate;
let engine: Umbel;
const callerEnv = { PATH: process.env.PATH, HOME: '/nonexistent-home' };

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-wf-home-'));
  dir = await mkdtemp(join(tmpdir(), 'umbel-wf-dir-'));
  substrate = createMemorySubstrate();
  engine = createUmbel({ substrate, providers: [createMockProvider()], home, env: callerEnv });
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(dir, { recursive: true, force: true });
});

const WORKFLOW = `
workers:
  w: {provider: mock}
  v: {provider: mock}
steps:
  - {id: a, worker: w, prompt: ECHO one}
  - {id: b, worker: w, prompt: "ECHO two {{ steps.a.output }}"}
  - {id: c, worker: v, prompt: ECHO three}
  - {id: d, worker: v, needs: [b], prompt: "ECHO four {{ steps.c.output }} {{ steps.b.output }}"}
`;

const runStatus = async (runId: string) => JSON.parse(await readFile(join(home, 'runs', runId, 'status.json'), 'utf8')) as RunStatus;
const describeEvent = (e: WorkflowEvent) => (e.kind === 'step' ? `${e.step}:${e.state}` : `run:${e.state}`);

/** Run the workflow, aborting at its `at`-th progress event (never, when it has fewer). */
async function interruptedAt(at: number, runId: string) {
  const controller = new AbortController();
  const events: WorkflowEvent[] = [];
  const summary = await runWorkflow(engine, parseWorkflow(WORKFLOW, { file: join(dir, 'wf.yaml') }), {
    runId,
    env: callerEnv,
    signal: controller.signal,
    keepWorkers: true,
    onEvent: (e) => {
      events.push(e);
      if (events.length === at) controller.abort();
    },
  });
  return { summary, events, aborted: controller.signal.aborted };
}

describe('SIGINT during a run', () => {
  it('at every point: a run is completed only when every step was accepted; else interrupted (130) and resumable', async () => {
    const { events: all } = await interruptedAt(0, 'full');
    expect(all.at(-1)).toMatchObject({ kind: 'run', state: 'completed' });
    // The last event is the run's own end: after it, nothing can be interrupted.
    for (let at = 1; at < all.length; at++) {
      const runId = `at-${at}`;
      const { summary, events } = await interruptedAt(at, runId);
      const where = `interrupted at ${describeEvent(events[at - 1] as WorkflowEvent)} (event ${at})`;
      const status = await runStatus(runId);
      const allAccepted = summary.steps.every((s) => s.status === 'accepted');
      if (summary.ok) {
        expect(allAccepted, where).toBe(true);
        expect(status.status, where).toBe('completed');
      } else {
        expect(summary, where).toMatchObject({ exitCode: 130, status: 'failed', failedStep: { reason: expect.stringMatching(/^(aborted|UMBEL_ABORTED)$/) } });
        expect(status, where).toMatchObject({ status: 'failed', exitCode: 130 });
        expect(
          summary.steps.some((s) => s.status !== 'accepted'),
          where,
        ).toBe(true);
        const resumed = await resumeWorkflow(engine, runId, { env: callerEnv });
        expect(resumed, `${where}, then resumed`).toMatchObject({ ok: true, exitCode: 0 });
        expect(resumed.outputs.d?.output, where).toBe('four three two one');
      }
    }
  });

  it('between two steps (the racy point): exit 130 naming the step that never started, its steps pending → cancelled', async () => {
    const controller = new AbortController();
    const summary = await runWorkflow(
      engine,
      parseWorkflow('workers: {w: {provider: mock}}\nsteps: [{id: a, worker: w, prompt: ECHO one}, {id: b, worker: w, prompt: ECHO two}]\n', {
        file: join(dir, 'wf.yaml'),
      }),
      {
        runId: 'between',
        env: callerEnv,
        signal: controller.signal,
        onEvent: (e) => {
          if (e.kind === 'step' && e.step === 'a' && e.state === 'done') controller.abort();
        },
      },
    );
    expect(summary).toMatchObject({ ok: false, status: 'failed', exitCode: 130, failedStep: { id: 'b', reason: 'aborted' } });
    expect(summary.steps.map((s) => [s.id, s.status])).toEqual([
      ['a', 'accepted'],
      ['b', 'cancelled'],
    ]);
    // The same race on --resume: interrupted right after the accepted step is reused.
    const again = new AbortController();
    const resumed = await resumeWorkflow(engine, 'between', {
      env: callerEnv,
      signal: again.signal,
      onEvent: (e) => {
        if (e.kind === 'step' && e.state === 'reused') again.abort();
      },
    });
    expect(resumed).toMatchObject({ ok: false, exitCode: 130, failedStep: { id: 'b', reason: 'aborted' } });
    expect(await resumeWorkflow(engine, 'between', { env: callerEnv })).toMatchObject({ ok: true, outputs: { b: { output: 'two' } } });
  });

  it('a run interrupted before its first step (umbel run): exit 130, the first step failed as aborted, none accepted', async () => {
    const file = join(dir, 'wf.yaml');
    await writeFile(file, WORKFLOW);
    const controller = new AbortController();
    controller.abort('SIGINT'); // before the first step: the racy point, every time
    const summary = await runWorkflowFile({ engine, file, env: callerEnv, runId: 'cli', signal: controller.signal });
    expect(summary).toMatchObject({
      ok: false,
      exitCode: 130,
      failedStep: { id: 'a', workerName: 'cli-w', message: 'the run was interrupted before this step started' },
    });
    expect(summary.steps.filter((s) => s.status === 'accepted')).toEqual([]);
  });
});
