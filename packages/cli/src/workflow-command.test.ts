/**
 * `umbel run` as the CLI prints it: @umbel/workflow returns the typed summary (or throws), this
 * command prints it. Against the real engine on the memory substrate and the mock provider.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUmbel, errorBody, type Umbel, WorkflowInvalidError } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as workflow from '@umbel/workflow';
import { MAX_WORKFLOW_BYTES } from '@umbel/workflow';
import { runWorkflowCommand as command, type WorkflowCommandOptions } from './workflow-command.js';

const runWorkflowCommand = (options: WorkflowCommandOptions) => command(workflow, options);

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

function sink(): { write(chunk: string): boolean; text(): string } {
  let buffer = '';
  return {
    write(chunk: string) {
      buffer += chunk;
      return true;
    },
    text: () => buffer,
  };
}

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

describe('runWorkflowCommand', () => {
  it('--json prints one summary object on stdout and exits 0; nothing on stderr', async () => {
    const path = await file('ok.yaml', 'workers: {w: {provider: mock}}\nsteps: [{id: a, worker: w, prompt: "ECHO {{ vars.word }} {{ env.WHO }}"}]\n');
    const stdout = sink();
    const stderr = sink();
    const code = await runWorkflowCommand({
      engine,
      file: path,
      vars: ['word=hello'],
      env: { ...env, WHO: 'you' },
      json: true,
      isTTY: true,
      stdout,
      stderr,
      runId: 'c1',
    });
    expect(code).toBe(0);
    expect(stderr.text()).toBe('');
    const lines = stdout.text().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ runId: 'c1', ok: true, exitCode: 0, outputs: { a: { output: 'hello you' } } });
  });

  it('human mode on a TTY: progress lines on stderr, the result line on stdout', async () => {
    const path = await file('ok.yaml', 'workers: {w: {provider: mock}}\nsteps: [{id: a, worker: w, prompt: ECHO hi}]\n');
    const stdout = sink();
    const stderr = sink();
    expect(await runWorkflowCommand({ engine, file: path, env, isTTY: true, stdout, stderr, runId: 'c2' })).toBe(0);
    expect(stdout.text()).toBe(`workflow completed: runId=c2 (${join(home, 'runs', 'c2')})\n`);
    expect(stderr.text()).toContain('[c2] a on w: running');
    expect(stderr.text()).toMatch(/\[c2\] a on w: done in \d/);
    const quiet = sink();
    expect(await runWorkflowCommand({ engine, file: path, env, isTTY: false, stdout: sink(), stderr: quiet, runId: 'c3' })).toBe(0);
    expect(quiet.text()).toBe('');
  });

  it("a failing step: exits with that outcome's code and says how to resume", async () => {
    const path = await file(
      'bad.yaml',
      'workers: {w: {provider: mock}}\nsteps: [{id: a, worker: w, prompt: ECHO x, check: "echo too short; exit 1", retries: 0}]\n',
    );
    const stderr = sink();
    expect(await runWorkflowCommand({ engine, file: path, env, stdout: sink(), stderr, runId: 'c4' })).toBe(127);
    expect(stderr.text()).toContain("umbel: workflow c4 failed at step 'a' (worker c4-w): guardrail-halted");
    expect(stderr.text()).toContain('too short');
    expect(stderr.text()).toContain('resume with: umbel run --resume c4');
    const json = sink();
    expect(await runWorkflowCommand({ engine, resume: 'c4', env, json: true, stdout: json, stderr: sink() })).toBe(127);
    expect(JSON.parse(json.text())).toMatchObject({ runId: 'c4', ok: false, exitCode: 127, failedStep: { id: 'a' } });
  });

  it('invalid files and arguments exit 2 with the location on stderr', async () => {
    const path = await file('invalid.yaml', 'workers: {w: {provider: mock}}\nsteps:\n  - {id: a, worker: nobody, prompt: hi}\n');
    const stderr = sink();
    expect(await runWorkflowCommand({ engine, file: path, env, stdout: sink(), stderr })).toBe(2);
    expect(stderr.text()).toContain(`umbel: invalid workflow: ${path}:3:21: step 'a' uses worker 'nobody'`);
    const json = sink();
    expect(await runWorkflowCommand({ engine, file: path, env, json: true, stdout: json, stderr: sink() })).toBe(2);
    expect(JSON.parse(json.text())).toMatchObject({ ok: false, exitCode: 2, error: { code: 'UMBEL_WORKFLOW_INVALID' } });
    expect(await runWorkflowCommand({ engine, file: join(dir, 'missing.yaml'), env, stdout: sink(), stderr: sink() })).toBe(2);
    expect(await runWorkflowCommand({ engine, file: path, vars: ['novalue'], env, stdout: sink(), stderr: sink() })).toBe(2);
    expect(await runWorkflowCommand({ engine, env, stdout: sink(), stderr: sink() })).toBe(2);
    expect(await runWorkflowCommand({ engine, resume: 'nothing-here', env, stdout: sink(), stderr: sink() })).toBe(2);
    expect(substrate.launches).toEqual([]);
  });
});

describe('runWorkflowCommand: every problem at once', () => {
  it('schema, references, vars and the engine/disk checks are reported together, exit 2, nothing spawned', async () => {
    const path = await file(
      'many.yaml',
      [
        'workers:',
        '  w: {provider: mock, cwd: no-such-dir}',
        '  x: {provider: nope}',
        'steps:',
        '  - {id: a, worker: w, prompt: "{{ vars.missing }}", timeout: 10}',
        '  - {id: b, worker: x, prompt: "{{ steps.ghost.output }}"}',
        '  - {id: c, worker: nobody, prompt: hi, schema: absent.json}',
        '',
      ].join('\n'),
    );
    const stderr = sink();
    expect(await runWorkflowCommand({ engine, file: path, env, stdout: sink(), stderr })).toBe(2);
    const text = stderr.text();
    expect(text).toContain('umbel: invalid workflow (7 problems): ');
    expect(text).toContain(`${path}:2:`); // the missing cwd
    expect(text).toContain("worker 'w': working directory does not exist");
    expect(text).toContain("worker 'x': unknown provider 'nope'");
    expect(text).toContain("no value for var 'missing'");
    expect(text).toContain('timeout: 10 has no unit; write 10s or 10ms');
    expect(text).toContain("{{ steps.ghost.output }} refers to step 'ghost', which does not exist");
    expect(text).toContain("step 'c' uses worker 'nobody'");
    expect(text).toContain("step 'c': cannot read the schema file");
    const json = sink();
    expect(await runWorkflowCommand({ engine, file: path, env, json: true, stdout: json, stderr: sink() })).toBe(2);
    const body = JSON.parse(json.text()) as { error: { code: string; issues: { path: string; message: string }[] } };
    expect(body.error.code).toBe('UMBEL_WORKFLOW_INVALID');
    expect(body.error.issues).toHaveLength(7);
    expect(body.error.issues[0]).toEqual({
      path: 'workers.w.cwd',
      message: expect.stringMatching(/many\.yaml:2:\d+: worker 'w': working directory does not exist/),
    });
    expect(substrate.launches).toEqual([]);
  });
});

describe('runWorkflowCommand: what else it prints', () => {
  it('a fleet limit (--max-workers) exits 117, its message naming the limit', async () => {
    await engine.spawn({ name: 'other', provider: 'mock', cwd: dir });
    const path = await file('wf.yaml', 'workers:\n  a: {provider: mock}\nsteps:\n  - id: one\n    worker: a\n    prompt: ECHO one\n');
    const stderr = sink();
    expect(await runWorkflowCommand({ engine, file: path, env, maxWorkers: 1, stdout: sink(), stderr, runId: 'r4' })).toBe(117);
    expect(stderr.text()).toMatch(/maxWorkers 1 is reached: 1 workers live/);
  });

  it('an interrupted run says so, names the steps not run and how to resume; never "workflow completed"', async () => {
    const path = await file(
      'wf.yaml',
      'workers: {w: {provider: mock}}\nsteps: [{id: a, worker: w, prompt: ECHO a}, {id: b, worker: w, prompt: ECHO b, needs: [a]}]\n',
    );
    const controller = new AbortController();
    controller.abort('SIGINT'); // before the first step: the racy point, every time
    const stdout = sink();
    const stderr = sink();
    expect(await runWorkflowCommand({ engine, file: path, env, runId: 'cli', signal: controller.signal, stdout, stderr })).toBe(130);
    expect(stdout.text()).toBe('');
    expect(stderr.text()).toMatch(
      /^umbel: workflow cli interrupted at step 'a' \(worker cli-w\) — the run was interrupted before this step started; not accepted: a, b\n/,
    );
    expect(stderr.text()).toContain('resume with: umbel run --resume cli');
  });

  it('an endless file (/dev/zero) is one clear line, exit 2', async () => {
    const stderr = sink();
    expect(await runWorkflowCommand({ engine, file: '/dev/zero', env: {}, stdout: sink(), stderr })).toBe(2);
    expect(stderr.text()).toBe(`umbel: invalid workflow: /dev/zero is more than 1 MiB; a workflow file is at most 1 MiB (${MAX_WORKFLOW_BYTES} bytes)\n`);
  });

  it("--json prints an error as core's error body, facts included", async () => {
    const path = await file('invalid.yaml', 'workers: {w: {provider: mock}}\nsteps:\n  - {id: a, worker: nobody, prompt: hi}\n');
    const json = sink();
    expect(await runWorkflowCommand({ engine, file: path, env, json: true, stdout: json, stderr: sink() })).toBe(2);
    const printed = JSON.parse(json.text()) as { error: { message: string; issues: unknown[] } };
    const expected = errorBody(new WorkflowInvalidError(printed.error.message, printed.error.issues as never));
    expect(printed).toEqual({ ok: false, exitCode: 2, error: expected });
  });
});
