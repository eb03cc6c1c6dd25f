import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUmbel, type Umbel } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseWorkflow, type RunStatus, resumeWorkflow, runWorkflow, type WorkflowEvent } from './index.js';

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

/** Parse YAML as if it lived in the test's workflow directory. */
const load = (text: string) => parseWorkflow(text, { file: join(dir, 'wf.yaml') });

/** The mock CLI's transcript of a worker: every user prompt and assistant answer, in order. */
async function transcript(worker: string): Promise<{ type: string; key: string; text?: string }[]> {
  const text = await readFile(join(home, 'workers', worker, 'provider', 'transcript.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; key: string; text?: string });
}

async function runStatus(runId: string): Promise<RunStatus> {
  return JSON.parse(await readFile(join(home, 'runs', runId, 'status.json'), 'utf8')) as RunStatus;
}

const launchesOf = (worker: string) => substrate.launches.filter((l) => l.session === `umbel-${worker}`).length;

describe('guardrails through the YAML face', () => {
  it('a check that fails once then passes: accepted on attempt 2, the feedback visible in the worker transcript', async () => {
    const wf = load(`
workers:
  w: {provider: mock, env: {MOCK_CLI_FIX: "good answer"}}
steps:
  - id: answer
    worker: w
    prompt: ECHO bad answer
    check: 'grep -q good || { echo "not good: $(cat "$UMBEL_ANSWER_FILE")"; exit 1; }'
    retries: 2
`);
    const summary = await runWorkflow(engine, wf, { runId: 'r1', env: callerEnv });
    expect(summary).toMatchObject({ ok: true, exitCode: 0, status: 'completed', outputs: { answer: { output: 'good answer' } } });
    expect(summary.steps).toEqual([expect.objectContaining({ id: 'answer', status: 'accepted', attempts: 2 })]);
    const status = await runStatus('r1');
    expect(status.status).toBe('completed');
    expect(status.steps[0]?.attempts?.map((a) => [a.attempt, a.accepted, a.checkExitCode])).toEqual([
      [1, false, 1],
      [2, true, 0],
    ]);
    expect(status.steps[0]?.attempts?.[0]?.checkOutput).toContain('not good: bad answer');
    const prompts = (await transcript('r1-w')).filter((l) => l.type === 'user').map((l) => l.text ?? '');
    expect(prompts).toHaveLength(2);
    expect(prompts[0]).toBe('ECHO bad answer');
    expect(prompts[1]).toContain('Your previous answer was rejected');
    expect(prompts[1]).toContain('not good: bad answer');
  });

  it('a check that always fails: guardrail-halted after retries+1 attempts, exit 127, workers killed', async () => {
    const wf = load(`
workers:
  w: {provider: mock}
steps:
  - {id: never, worker: w, prompt: ECHO nope, check: "echo rejected; exit 3", retries: 2}
  - {id: later, worker: w, prompt: ECHO unreachable, needs: [never]}
`);
    const summary = await runWorkflow(engine, wf, { runId: 'r2', env: callerEnv });
    expect(summary).toMatchObject({
      ok: false,
      status: 'failed',
      exitCode: 127,
      failedStep: { id: 'never', worker: 'w', workerName: 'r2-w', reason: 'guardrail-halted' },
    });
    expect(summary.outcome?.attempts).toHaveLength(3);
    expect(summary.outcome?.attempts?.every((a) => a.checkExitCode === 3 && !a.accepted)).toBe(true);
    expect(summary.steps.map((s) => [s.id, s.status])).toEqual([
      ['never', 'failed'],
      ['later', 'cancelled'],
    ]);
    const status = await runStatus('r2');
    expect(status).toMatchObject({ status: 'failed', failedStep: 'never', exitCode: 127 });
    expect(status.steps[0]?.outcome?.reason).toBe('guardrail-halted');
    expect(await substrate.list()).toEqual([]);
    expect((await engine.status({ name: 'r2-w' })).alive).toBe(false);
  });

  it('a schema mismatch is fed back, and the valid JSON that follows is accepted', async () => {
    await mkdir(join(dir, 'schemas'));
    await writeFile(join(dir, 'schemas', 'verdict.json'), JSON.stringify({ type: 'object', required: ['ok'], properties: { ok: { type: 'boolean' } } }));
    const wf = load(`
workers:
  w:
    provider: mock
    env: {MOCK_CLI_FIX: '{"ok": true}'}
steps:
  - id: verdict
    worker: w
    prompt: 'ECHO {"ok": "yes"}'
    schema: schemas/verdict.json
    retries: 1
    outputs: {json: answer}
`);
    const summary = await runWorkflow(engine, wf, { runId: 'r3', env: callerEnv });
    expect(summary).toMatchObject({ ok: true, outputs: { verdict: { output: '{"ok": true}', outputs: { json: '{"ok": true}' } } } });
    const status = await runStatus('r3');
    expect(status.steps[0]?.attempts?.[0]?.schemaErrors?.join()).toContain('/ok must be boolean');
    expect(status.steps[0]?.attempts?.[1]?.accepted).toBe(true);
    expect(await readFile(join(home, 'runs', 'r3', 'outputs', 'verdict', 'json'), 'utf8')).toBe('{"ok": true}');
    const prompts = (await transcript('r3-w')).filter((l) => l.type === 'user').map((l) => l.text ?? '');
    expect(prompts[1]).toContain('must be JSON that matches the required JSON Schema');
  });
});

describe('scheduling and workers', () => {
  it('independent steps on distinct workers run in parallel; a joining step waits for both', async () => {
    // No timing: each of left/right may finish only once the other has been sent. A scheduler that
    // ran them one after the other would never send the second, and the gate says so.
    const sent = { 'r4-a': deferred(), 'r4-b': deferred() };
    const other = { 'r4-a': 'r4-b', 'r4-b': 'r4-a' } as const;
    const gated: Umbel = Object.assign(Object.create(engine), {
      send: async (...args: Parameters<Umbel['send']>) => {
        const result = await engine.send(...args);
        sent[args[0].name as keyof typeof sent]?.resolve();
        return result;
      },
      wait: async (...args: Parameters<Umbel['wait']>) => {
        const peer = other[args[0].name as keyof typeof other];
        if (peer) await within(sent[peer].promise, 30_000, `${peer} was never sent while ${args[0].name}'s step ran`);
        return engine.wait(...args);
      },
    });
    const wf = load(`
workers:
  a: {provider: mock}
  b: {provider: mock}
steps:
  - {id: left, worker: a, prompt: ECHO left}
  - {id: right, worker: b, prompt: ECHO right}
  - {id: join, worker: a, needs: [left, right], prompt: "ECHO {{ steps.left.output }}+{{ steps.right.output }}"}
`);
    const summary = await runWorkflow(gated, wf, { runId: 'r4', env: callerEnv });
    expect(summary.outputs.join?.output).toBe('left+right');
    const steps = (await runStatus('r4')).steps;
    const [left, right, join_] = steps.map((s) => ({ start: Date.parse(s.startedAt ?? ''), end: Date.parse(s.endedAt ?? '') }));
    if (!left || !right || !join_) throw new Error('missing step records');
    // Overlap: each started before the other ended.
    expect(left.start).toBeLessThanOrEqual(right.end);
    expect(right.start).toBeLessThanOrEqual(left.end);
    // The join started after both ended.
    expect(join_.start).toBeGreaterThanOrEqual(Math.max(left.end, right.end));
  });

  it('a worker is spawned once and keeps its conversation across steps', async () => {
    const wf = load(`
workers:
  w: {provider: mock}
steps:
  - {id: one, worker: w, prompt: ECHO remember the number 7}
  - {id: two, worker: w, prompt: ECHO what number did I say?}
`);
    const summary = await runWorkflow(engine, wf, { runId: 'r5', env: callerEnv, keepWorkers: true });
    expect(summary.ok).toBe(true);
    expect(launchesOf('r5-w')).toBe(1);
    const status = await runStatus('r5');
    expect(status.steps.map((s) => s.turn)).toEqual([1, 2]);
    const lines = await transcript('r5-w');
    expect(lines.filter((l) => l.type === 'user').map((l) => l.text)).toEqual(['ECHO remember the number 7', 'ECHO what number did I say?']);
    expect((await engine.status({ name: 'r5-w' })).alive).toBe(true);
  });

  it('one failing step cancels a running sibling and the steps after it; all workers are killed', async () => {
    const wf = load(`
workers:
  a: {provider: mock}
  b: {provider: mock}
steps:
  - {id: slow, worker: a, prompt: HANG, timeout: 10m}
  - {id: dies, worker: b, prompt: DIE 3}
  - {id: after, worker: a, needs: [dies], prompt: ECHO never}
`);
    const events: WorkflowEvent[] = [];
    const summary = await runWorkflow(engine, wf, { runId: 'r6', env: callerEnv, onEvent: (e) => events.push(e) });
    expect(summary).toMatchObject({ ok: false, exitCode: 125, failedStep: { id: 'dies', reason: 'dead' } });
    expect(summary.steps.map((s) => [s.id, s.status])).toEqual([
      ['slow', 'cancelled'],
      ['dies', 'failed'],
      ['after', 'cancelled'],
    ]);
    expect(await substrate.list()).toEqual([]);
    expect(events.filter((e) => e.kind === 'step' && e.step === 'slow').map((e) => (e.kind === 'step' ? e.state : ''))).toEqual([
      'spawning',
      'running',
      'cancelled',
    ]);
    expect(events.at(-1)).toMatchObject({ kind: 'run', state: 'failed', failedStep: 'dies', exitCode: 125 });
  });

  it('an account failure fails its step with its own reason and code, the reset in the step outcome', async () => {
    const wf = load(`
workers:
  w: {provider: mock}
steps:
  - {id: limited, worker: w, prompt: "LIMIT reset=2026-12-01T14:17:00.000Z You've hit your 5-hour limit"}
`);
    const summary = await runWorkflow(engine, wf, { runId: 'r6a', env: callerEnv });
    expect(summary).toMatchObject({ ok: false, exitCode: 118, failedStep: { id: 'limited', reason: 'rate-limited' } });
    expect(summary.outcome).toMatchObject({ reason: 'rate-limited', resetsAt: '2026-12-01T14:17:00.000Z' });
    const status = await runStatus('r6a');
    expect(status.steps.find((step) => step.id === 'limited')).toMatchObject({ status: 'failed', outcome: { reason: 'rate-limited', exitCode: 118 } });
    const denied = load(`
workers:
  w: {provider: mock}
steps:
  - {id: denied, worker: w, prompt: "DENIED Please run /login"}
`);
    expect(await runWorkflow(engine, denied, { runId: 'r6b', env: callerEnv })).toMatchObject({
      ok: false,
      exitCode: 119,
      failedStep: { id: 'denied', reason: 'auth-failed' },
    });
  });

  it('progress events: waiting, spawning, running with attempt n, done with elapsed ms', async () => {
    const wf = load(`
workers:
  w: {provider: mock, env: {MOCK_CLI_FIX: fixed}}
steps:
  - {id: a, worker: w, prompt: ECHO first}
  - {id: b, worker: w, prompt: ECHO broken, check: "grep -q fixed", retries: 1}
`);
    const events: WorkflowEvent[] = [];
    await runWorkflow(engine, wf, { runId: 'r7', env: callerEnv, onEvent: (e) => events.push(e) });
    const b = events.filter((e) => e.kind === 'step' && e.step === 'b');
    expect(b.map((e) => (e.kind === 'step' ? [e.state, e.attempt] : []))).toEqual([
      ['waiting', undefined],
      ['running', 1],
      ['running', 2],
      ['done', 2],
    ]);
    expect(b[0]).toMatchObject({ waitingFor: ['a'], worker: 'w', workerName: 'r7-w' });
    for (const e of events) expect(typeof e.elapsedMs).toBe('number');
    expect(events[0]).toMatchObject({ kind: 'run', state: 'started', runId: 'r7' });
    expect(events.at(-1)).toMatchObject({ kind: 'run', state: 'completed' });
  });

  it('the abort signal ends the run with exit 130 and kills the workers', async () => {
    const wf = load('workers: {w: {provider: mock}}\nsteps: [{id: a, worker: w, prompt: HANG}]\n');
    const controller = new AbortController();
    const summary = await runWorkflow(engine, wf, {
      runId: 'r8',
      env: callerEnv,
      signal: controller.signal,
      onEvent: (e) => {
        if (e.kind === 'step' && e.state === 'running') controller.abort();
      },
    });
    expect(summary).toMatchObject({ ok: false, exitCode: 130, failedStep: { id: 'a', reason: 'aborted' } });
    expect(await substrate.list()).toEqual([]);
  });
});

describe('templating, outputs and the run folder', () => {
  it('{{ env.X }} comes from the env passed in; {{ vars.K }} from vars; file: outputs from the worker cwd', async () => {
    await mkdir(join(dir, 'repo'));
    await writeFile(join(dir, 'repo', 'NOTES.md'), 'notes from disk');
    const text = `
workers:
  w: {provider: mock, cwd: repo}
steps:
  - id: a
    worker: w
    prompt: "ECHO token={{ env.MY_TOKEN }} branch={{ vars.branch }}"
    outputs: {notes: "file:NOTES.md", said: answer}
  - {id: b, worker: w, prompt: "ECHO got {{ steps.a.outputs.notes }} / {{ steps.a.outputs.said }}"}
`;
    const wf = load(text);
    const summary = await runWorkflow(engine, wf, { runId: 'r9', env: { ...callerEnv, MY_TOKEN: 'abc123' }, vars: { branch: 'main' } });
    expect(summary.outputs.a).toEqual({ output: 'token=abc123 branch=main', outputs: { notes: 'notes from disk', said: 'token=abc123 branch=main' } });
    expect(summary.outputs.b?.output).toBe('got notes from disk / token=abc123 branch=main');
    const runDir = join(home, 'runs', 'r9');
    expect(await readFile(join(runDir, 'workflow.yaml'), 'utf8')).toBe(text);
    expect(await readFile(join(runDir, 'outputs', 'a', 'notes'), 'utf8')).toBe('notes from disk');
    const status = await runStatus('r9');
    expect(status).toMatchObject({ runId: 'r9', status: 'completed', vars: { branch: 'main' }, workers: { w: 'r9-w' }, dir });
    expect(JSON.stringify(status)).not.toContain('MY_TOKEN');
    expect((await engine.status({ name: 'r9-w' })).cwd).toBe(await import('node:fs/promises').then((fs) => fs.realpath(join(dir, 'repo'))));
  });

  it('unset env, missing vars, unknown providers, missing cwd and schema files fail before anything is spawned', async () => {
    const wf = load(`
workers:
  w: {provider: mock}
  x: {provider: nope, cwd: missing-dir}
steps:
  - {id: a, worker: w, prompt: "ECHO {{ env.NOT_SET_ANYWHERE }}", schema: nothing.json}
  - {id: b, worker: x, prompt: "ECHO {{ vars.v }}"}
`);
    // All five problems in one error: the bindings and the engine/disk checks together.
    const first = await runWorkflow(engine, wf, { runId: 'bad', env: callerEnv }).catch((e: unknown) => e as Error);
    expect(first).toMatchObject({ code: 'UMBEL_WORKFLOW_INVALID' });
    expect((first as Error).message).toContain('invalid workflow (5 problems)');
    expect((first as Error).message).toContain('environment variable NOT_SET_ANYWHERE is not set');
    expect((first as Error).message).toContain("no value for var 'v'");
    expect((first as Error).message).toMatch(/wf\.yaml:4:17: worker 'x': unknown provider 'nope' \(known: mock\)/);
    expect((first as Error).message).toMatch(/wf\.yaml:4:\d+: worker 'x': working directory does not exist: .*missing-dir/);
    expect((first as Error).message).toMatch(/wf\.yaml:6:\d+: step 'a': cannot read the schema file .*nothing\.json/);
    const second = await runWorkflow(engine, wf, { runId: 'bad', env: { ...callerEnv, NOT_SET_ANYWHERE: '1' }, vars: { v: '1' } }).catch(
      (e: unknown) => e as Error,
    );
    expect((second as Error).message).toContain('invalid workflow (3 problems)');
    expect(substrate.launches).toEqual([]);
    await expect(stat(join(home, 'runs', 'bad'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a schema file the validator cannot use is refused before the run (not after the first turn)', async () => {
    await writeFile(join(dir, 'bad.json'), JSON.stringify({ type: 'not-a-type' }));
    await writeFile(join(dir, 'broken.json'), '{ not json');
    const wf = load(
      'workers: {w: {provider: mock}}\nsteps:\n  - {id: a, worker: w, prompt: ECHO x, schema: bad.json}\n  - {id: b, worker: w, prompt: ECHO x, schema: broken.json}\n',
    );
    const error = (await runWorkflow(engine, wf, { runId: 'sch', env: callerEnv }).catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ code: 'UMBEL_WORKFLOW_INVALID' });
    expect(error.message).toMatch(/wf\.yaml:3:\d+: step 'a': the schema file .*bad\.json is not a usable JSON Schema/);
    expect(error.message).toMatch(/wf\.yaml:4:\d+: step 'b': the schema file .*broken\.json is not JSON/);
    expect(substrate.launches).toEqual([]);
  });

  it('creates the state root, runs/ and runs/<id>/ private (0700), whatever the umask', async () => {
    const fresh = join(dir, 'fresh-home');
    const own = createUmbel({ substrate, providers: [createMockProvider()], home: fresh, env: callerEnv });
    const umask = process.umask(0o022);
    try {
      await runWorkflow(own, load('workers:\n  w: {provider: mock}\nsteps:\n  - {id: a, worker: w, prompt: ECHO hi}\n'), { runId: 'r9', env: callerEnv });
    } finally {
      process.umask(umask);
    }
    for (const path of [fresh, join(fresh, 'runs'), join(fresh, 'runs', 'r9')]) expect(((await stat(path)).mode & 0o777).toString(8), path).toBe('700');
  });

  it('a run id that exists is refused', async () => {
    const wf = load('workers: {w: {provider: mock}}\nsteps: [{id: a, worker: w, prompt: ECHO x}]\n');
    await runWorkflow(engine, wf, { runId: 'same', env: callerEnv });
    await expect(runWorkflow(engine, wf, { runId: 'same', env: callerEnv })).rejects.toMatchObject({ code: 'UMBEL_USAGE' });
  });
});

describe('resume', () => {
  it('continues a failed run from its first unfinished step; accepted steps are not run again; gone workers are re-spawned', async () => {
    const text = `
workers:
  a: {provider: mock}
  b: {provider: mock}
steps:
  - {id: one, worker: a, prompt: ECHO first answer}
  - {id: two, worker: b, needs: [one], prompt: "ECHO saw {{ steps.one.output }} {{ vars.v }}", check: test -f ready.flag, retries: 0}
  - {id: three, worker: a, needs: [two], prompt: "ECHO done after {{ steps.two.output }}"}
`;
    const failed = await runWorkflow(engine, load(text), { runId: 'rr', env: callerEnv, vars: { v: 'v1' } });
    expect(failed).toMatchObject({ ok: false, exitCode: 127, failedStep: { id: 'two' } });
    expect(await substrate.list()).toEqual([]);
    await writeFile(join(dir, 'ready.flag'), '');
    const events: WorkflowEvent[] = [];
    const resumed = await resumeWorkflow(engine, 'rr', { env: callerEnv, onEvent: (e) => events.push(e) });
    expect(resumed).toMatchObject({ ok: true, exitCode: 0, runId: 'rr' });
    expect(resumed.outputs).toEqual({
      one: { output: 'first answer', outputs: {} },
      two: { output: 'saw first answer v1', outputs: {} },
      three: { output: 'done after saw first answer v1', outputs: {} },
    });
    expect(events.find((e) => e.kind === 'step' && e.step === 'one')).toMatchObject({ state: 'reused' });
    expect(events[0]).toMatchObject({ kind: 'run', state: 'started', resumed: true });
    expect(launchesOf('rr-a')).toBe(2);
    expect(launchesOf('rr-b')).toBe(2);
    // Step one was sent once, in the first run only.
    const status = await runStatus('rr');
    expect(status.status).toBe('completed');
    expect(status.resumedAt).toHaveLength(1);
    expect((await transcript('rr-a')).filter((l) => l.type === 'user').map((l) => l.text)).toEqual(['ECHO done after saw first answer v1']);
  });

  it('reuses a worker that is still alive (keepWorkers) and keeps its conversation', async () => {
    const text = `
workers:
  a: {provider: mock}
steps:
  - {id: one, worker: a, prompt: ECHO first}
  - {id: two, worker: a, prompt: ECHO second, check: test -f ok.flag, retries: 0}
`;
    const failed = await runWorkflow(engine, load(text), { runId: 'rk', env: callerEnv, keepWorkers: true });
    expect(failed.exitCode).toBe(127);
    await writeFile(join(dir, 'ok.flag'), '');
    const resumed = await resumeWorkflow(engine, 'rk', { env: callerEnv });
    expect(resumed.ok).toBe(true);
    expect(launchesOf('rk-a')).toBe(1);
    expect((await transcript('rk-a')).filter((l) => l.type === 'user').map((l) => l.text)).toEqual(['ECHO first', 'ECHO second', 'ECHO second']);
  });

  it('an unknown run id is a usage error', async () => {
    await expect(resumeWorkflow(engine, 'no-such-run', { env: callerEnv })).rejects.toMatchObject({ code: 'UMBEL_USAGE' });
  });
});

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

async function within(promise: Promise<void>, ms: number, message: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
