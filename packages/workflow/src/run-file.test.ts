import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUmbel, errorExitCode, type Umbel } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseVarArgs, renderProgressLine, runWorkflowFile } from './index.js';

let home: string;
let dir: string;
let substrate: MemorySubstrate;
let engine: Umbel;
const env = { PATH: process.env.PATH, HOME: '/nonexistent-home' };

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-wfc-home-'));
  dir = await mkdtemp(join(tmpdir(), 'umbel-wfc-dir-'));
  substrate = createMemorySubstrate();
  engine = createUmbel({ substrate, providers: [createMockProvider()], home, env });
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

describe('runWorkflowFile: a typed result, nothing printed (the CLI prints it)', () => {
  it('runs the file with its vars and env and returns the summary', async () => {
    const path = await file('ok.yaml', 'workers: {w: {provider: mock}}\nsteps: [{id: a, worker: w, prompt: "ECHO {{ vars.word }} {{ env.WHO }}"}]\n');
    const events: string[] = [];
    const summary = await runWorkflowFile({
      engine,
      file: path,
      vars: ['word=hello'],
      env: { ...env, WHO: 'you' },
      runId: 'c1',
      onEvent: (e) => events.push(e.kind),
    });
    expect(summary).toMatchObject({ runId: 'c1', ok: true, exitCode: 0, runDir: join(home, 'runs', 'c1'), outputs: { a: { output: 'hello you' } } });
    expect(events).toContain('step');
  });

  it("a failing step: the summary has that outcome's code; a resume returns the same", async () => {
    const path = await file(
      'bad.yaml',
      'workers: {w: {provider: mock}}\nsteps: [{id: a, worker: w, prompt: ECHO x, check: "echo too short; exit 1", retries: 0}]\n',
    );
    expect(await runWorkflowFile({ engine, file: path, env, runId: 'c4' })).toMatchObject({
      ok: false,
      exitCode: 127,
      failedStep: { id: 'a', reason: 'guardrail-halted' },
    });
    expect(await runWorkflowFile({ engine, resume: 'c4', env })).toMatchObject({ runId: 'c4', ok: false, exitCode: 127, failedStep: { id: 'a' } });
  });

  it('invalid files and arguments throw typed usage errors before anything is spawned', async () => {
    const path = await file('invalid.yaml', 'workers: {w: {provider: mock}}\nsteps:\n  - {id: a, worker: nobody, prompt: hi}\n');
    await expect(runWorkflowFile({ engine, file: path, env })).rejects.toMatchObject({
      code: 'UMBEL_WORKFLOW_INVALID',
      message: expect.stringContaining(`invalid workflow: ${path}:3:21: step 'a' uses worker 'nobody'`),
    });
    for (const options of [
      { file: join(dir, 'missing.yaml') },
      { file: path, vars: ['novalue'] },
      {},
      { resume: 'nothing-here' },
      { file: path, resume: 'x' },
    ]) {
      const error = await runWorkflowFile({ engine, env, ...options }).catch((e: unknown) => e);
      expect(errorExitCode(error), JSON.stringify(options)).toBe(2);
    }
    expect(substrate.launches).toEqual([]);
  });
});

describe('helpers', () => {
  it('parseVarArgs: K=V, later wins, = in values kept', () => {
    expect(parseVarArgs(['a=1', 'b=x=y', 'a=2'])).toEqual({ a: '2', b: 'x=y' });
    expect(() => parseVarArgs(['=1'])).toThrow(/--var NAME=VALUE/);
  });

  it('renderProgressLine', () => {
    const base = { kind: 'step', runId: 'r', step: 's', worker: 'w', workerName: 'r-w' } as const;
    expect(renderProgressLine({ ...base, state: 'waiting', waitingFor: ['a', 'b'], elapsedMs: 0 })).toBe('[r] s on w: waiting for a, b');
    expect(renderProgressLine({ ...base, state: 'running', attempt: 2, turn: 3, elapsedMs: 12_345 })).toBe('[r] s on w: running (attempt 2), turn 3 12.3s');
    expect(renderProgressLine({ ...base, state: 'failed', reason: 'timeout', message: 'no answer', elapsedMs: 90_000 })).toBe(
      '[r] s on w: failed: timeout — no answer after 1m30s',
    );
    expect(renderProgressLine({ kind: 'run', runId: 'r', state: 'failed', failedStep: 's', exitCode: 124, elapsedMs: 500 })).toBe(
      "[r] failed at step 's' after 500ms (exit 124)",
    );
  });
});
