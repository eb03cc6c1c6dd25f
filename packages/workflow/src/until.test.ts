/** `until:` in workflow YAML: the same field and rules as `umbel wait --until` (one schema), run through the engine. */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUmbel, type Umbel } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseWorkflow, runWorkflow } from './index.js';

let home: string;
let dir: string;
let substrate: MemorySubstrate;
let engine: Umbel;
const env = { PATH: process.env.PATH, HOME: '/nonexistent-home' };

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-wf-until-'));
  dir = await mkdtemp(join(tmpdir(), 'umbel-wf-until-dir-'));
  substrate = createMemorySubstrate();
  engine = createUmbel({ substrate, providers: [createMockProvider()], home, env });
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(dir, { recursive: true, force: true });
});

const load = (text: string) => parseWorkflow(text, { file: join(dir, 'wf.yaml') });

function invalid(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toMatchObject({ code: 'UMBEL_WORKFLOW_INVALID' });
    return (error as Error).message;
  }
  throw new Error('expected the workflow to be invalid');
}

describe('until in a step', () => {
  it('until: file ends the step when the file appears; the next step runs', async () => {
    const wf = load(`
workers:
  w: {provider: mock}
steps:
  - {id: build, worker: w, prompt: "DELAY 200 TOOLS write dist/out.txt built", until: file, file: dist/out.txt, outputs: {out: "file:dist/out.txt"}}
  - {id: after, worker: w, prompt: "ECHO got {{ steps.build.outputs.out }}", needs: [build]}
`);
    const summary = await runWorkflow(engine, wf, { runId: 'u1', env });
    expect(summary).toMatchObject({ ok: true, status: 'completed' });
    expect(summary.outputs).toMatchObject({ after: { output: 'got built' } });
    const status = JSON.parse(await readFile(join(home, 'runs', 'u1', 'status.json'), 'utf8'));
    expect(status.steps[0]).toMatchObject({ status: 'accepted', outcome: { reason: 'file' } });
  });

  it('until: pattern ends the step when the screen matches', async () => {
    const wf = load(`
workers:
  w: {provider: mock}
steps:
  - {id: watch, worker: w, prompt: "DELAY 200 ECHO server ready on 8080", until: pattern, pattern: "^● server ready on \\\\d+"}
`);
    expect(await runWorkflow(engine, wf, { runId: 'u2', env })).toMatchObject({ ok: true });
  });

  it('rejects what umbel wait rejects, at parse time', () => {
    const step = (extra: string) => `
workers:
  w: {provider: mock}
steps:
  - {id: s, worker: w, prompt: ECHO x${extra}}
`;
    expect(invalid(() => load(step(', until: file')))).toContain('until file needs file');
    expect(invalid(() => load(step(', pattern: x')))).toContain('pattern is only used with until pattern');
    expect(invalid(() => load(step(', until: pattern, pattern: "("')))).toContain('not a valid regular expression');
    expect(invalid(() => load(step(', until: file, file: x, check: "true"')))).toContain('needs until stop');
    expect(invalid(() => load(step(', until: later')))).toContain('until');
    expect(load(step(', until: stop')).spec.steps[0]?.until).toBe('stop');
  });
});
