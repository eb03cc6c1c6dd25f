/**
 * The docs' examples are tested: every test-fixtures/workflows/*.yaml parses, runs to completion
 * on the memory engine (mock CLIs registered as claude/codex/gemini), and appears verbatim in
 * docs/workflows.md; every ```yaml block of the docs parses as a workflow.
 */
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createUmbel, type Provider } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWorkflow, runWorkflow } from './index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const examplesDir = join(root, 'test-fixtures', 'workflows');
const docsPath = join(root, 'docs', 'workflows.md');

/** Per example: vars, env, and replies to guardrail feedback (MOCK_CLI_FIX) per worker. */
const RUNS: Record<string, { vars?: Record<string, string>; env?: Record<string, string>; fix?: Record<string, string>; attempts?: Record<string, number> }> = {
  'hello.yaml': { vars: { topic: 'tmux' } },
  'review-fix.yaml': { vars: { branch: 'feature/login' }, env: { GITHUB_TOKEN: 'test-token' }, fix: { reviewer: 'APPROVED' }, attempts: { verify: 2 } },
  'parallel-report.yaml': { env: { TICKET_URL: 'https://example.test/T-42' }, fix: { writer: '{"summary": "fine", "risks": []}' }, attempts: { report: 2 } },
};

/** A mock CLI under a real provider id, accepting every permission mode and option. */
function mockAs(id: string): Provider {
  const mock = createMockProvider({ providerId: id });
  return { ...mock, capabilities: { ...mock.capabilities, allowedTools: true, permissionModes: ['default', 'plan', 'acceptEdits', 'bypassPermissions'] } };
}

let examples: string[];
let docs: string;
beforeAll(async () => {
  examples = (await readdir(examplesDir)).filter((f) => f.endsWith('.yaml')).sort();
  docs = await readFile(docsPath, 'utf8');
});

describe('test-fixtures/workflows', () => {
  it('every example has a run entry here, and the list is not empty', () => {
    expect(examples.length).toBeGreaterThan(0);
    expect(examples).toEqual(Object.keys(RUNS).sort());
  });

  it('every example appears verbatim in docs/workflows.md', () => {
    for (const name of examples) {
      expect(docs, `docs/workflows.md must name ${name}`).toContain(`test-fixtures/workflows/${name}`);
    }
  });

  it('every ```yaml block of docs/workflows.md parses as a workflow (```yaml fragment blocks excepted)', () => {
    const blocks = [...docs.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] as string);
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) expect(() => parseWorkflow(block, { file: 'docs/workflows.md' })).not.toThrow();
  });

  describe.each(Object.keys(RUNS))('%s', (name) => {
    let work: string;
    let home: string;
    let substrate: MemorySubstrate;
    beforeAll(async () => {
      work = await mkdtemp(join(tmpdir(), 'umbel-wf-example-'));
      home = await mkdtemp(join(tmpdir(), 'umbel-wf-example-home-'));
      await cp(examplesDir, work, { recursive: true });
      substrate = createMemorySubstrate();
    });
    afterAll(async () => {
      for (const s of await substrate.list()) await substrate.kill(s);
      await rm(work, { recursive: true, force: true });
      await rm(home, { recursive: true, force: true, maxRetries: 5 });
    });

    it('is in the docs verbatim', async () => {
      const text = await readFile(join(examplesDir, name), 'utf8');
      expect(docs).toContain(`\`\`\`yaml\n${text}\`\`\``);
    });

    it('parses and runs to completion on the memory engine', async () => {
      const run = RUNS[name] ?? {};
      const path = join(work, name);
      const workflow = parseWorkflow(await readFile(path, 'utf8'), { file: path });
      for (const [worker, reply] of Object.entries(run.fix ?? {})) {
        const spec = workflow.spec.workers[worker];
        if (!spec) throw new Error(`${name} has no worker ${worker}`);
        spec.env = { ...spec.env, MOCK_CLI_FIX: reply };
      }
      const env = { PATH: process.env.PATH, HOME: '/nonexistent-home', ...run.env };
      const engine = createUmbel({ substrate, providers: ['claude', 'codex', 'gemini'].map(mockAs), home, env });
      const summary = await runWorkflow(engine, workflow, { env, vars: run.vars ?? {} });
      expect(summary.failedStep).toBeUndefined();
      expect(summary).toMatchObject({ ok: true, exitCode: 0 });
      for (const step of summary.steps) expect(step.attempts, `${name}: attempts of ${step.id}`).toBe(run.attempts?.[step.id] ?? 1);
      expect(await substrate.list()).toEqual([]);
    });
  });
});
