/** YAML workers with `sandbox:`: the worker's launch is wrapped in srt with the widenings written; a wrong shape is refused when the workflow is parsed. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUmbel, type Umbel } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseWorkflow, runWorkflow } from './index.js';

let root: string;
let dir: string;
let substrate: MemorySubstrate;
let engine: Umbel;
const callerEnv = { PATH: process.env.PATH, HOME: '/nonexistent-home' };

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'umbel-wf-sbx-')));
  dir = join(root, 'flow');
  mkdirSync(dir);
  substrate = createMemorySubstrate();
  engine = createUmbel({ substrate, providers: [createMockProvider()], home: join(root, 'home'), env: callerEnv });
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  rmSync(root, { recursive: true, force: true });
});

describe('sandbox on YAML workers', () => {
  it('runs the worker confined, with the widenings the workflow names', async () => {
    const wf = parseWorkflow(
      `
workers:
  w: {provider: mock, sandbox: {allow: [registry.npmjs.org]}}
steps:
  - id: s
    worker: w
    prompt: hello
`,
      { file: join(dir, 'wf.yaml') },
    );
    const summary = await runWorkflow(engine, wf, { runId: 'r1', env: callerEnv, keepWorkers: true });
    expect(summary).toMatchObject({ ok: true });
    const launch = substrate.launches.at(-1);
    expect(launch?.argv.slice(2, 4)).toEqual(['--settings', join(root, 'home', 'workers', 'r1-w', 'sandbox.json')]);
    expect((await engine.status({ name: 'r1-w' })).sandbox).toMatchObject({ enabled: true, network: ['registry.npmjs.org'] });
  });

  it('refuses a sandbox value of the wrong shape when the workflow is parsed', () => {
    expect(() =>
      parseWorkflow('workers:\n  w: {provider: mock, sandbox: {allow: host}}\nsteps:\n  - {id: s, worker: w, prompt: hi}\n', { file: join(dir, 'wf.yaml') }),
    ).toThrow(/sandbox/);
  });
});
