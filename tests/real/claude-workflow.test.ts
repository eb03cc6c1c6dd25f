// Real-CLI tier: `umbel run workflow.yaml` (the built bin) with one REAL pinned `claude` worker serving
// two steps, the second guarded by a check that rejects the first answer: check → feedback → retry →
// accepted, end to end against the local Anthropic mock. No network. When the binary or the build is
// missing this FAILS, it never skips.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { plan } from '../../test-fixtures/lib/directives.mjs';
import { claudeTier } from '../../test-fixtures/real/claude-tier.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins } from '../../test-fixtures/real/clis.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { seedClaudeConfig } from '../../test-fixtures/real/seed-claude.mjs';
import { cleanUp, processesOf } from '../../test-fixtures/real/umbel-helpers.mjs';

type Json = any;
type Result = { code: number; stdout: string; stderr: string };
type Mock = { url: string; requests: () => Array<Record<string, Json>>; close: () => Promise<void> };

const REJECTION = 'first attempt is never good enough';

let root: string;
let work: string;
let config: string;
let mock: Mock;
let umbel: (args: string[]) => Promise<Result>;

beforeAll(async () => {
  ({ root, mock, run: umbel } = await claudeTier('umbel-real-workflow-', { built: ['packages/workflow/dist/index.js'] }));
  work = join(root, 'work');
  config = join(root, 'config');
  mkdirSync(work, { recursive: true });
  seedClaudeConfig({ configDir: config }); // NOT trusting `work`
}, 120_000);

afterAll(() => cleanUp({ workers: [umbel], reap: [root], close: [mock], remove: [root] }), 300_000);

describe(`umbel run with the real claude ${readPins().claude.version}`, () => {
  it('two steps on one worker; the check rejects once, the feedback reaches the model, attempt 2 is accepted', { timeout: 900_000 }, async () => {
    const file = join(root, 'flow.yaml');
    writeFileSync(
      file,
      `name: real-two-steps
workers:
  agent:
    provider: claude
    cwd: ./work
    env:
      ANTHROPIC_API_KEY: { fromEnv: ANTHROPIC_API_KEY }
      ANTHROPIC_BASE_URL: "${mock.url}"
      CLAUDE_CONFIG_DIR: "${config}"
      CLAUDE_CODE_MAX_RETRIES: "1"
steps:
  - id: one
    worker: agent
    prompt: ECHO alpha-42
    timeout: 4m
  - id: two
    worker: agent
    needs: [one]
    prompt: "ECHO got {{ steps.one.output }}"
    timeout: 4m
    retries: 2
    check: |
      { cat; echo; echo "--- attempt $UMBEL_ATTEMPT"; } >> answers.log
      if [ -f .rejected-once ]; then exit 0; fi
      touch .rejected-once
      echo "${REJECTION}"
      exit 1
`,
    );
    const r = await umbel(['run', file, '--json']);
    let summary: Json;
    try {
      summary = JSON.parse(r.stdout);
    } catch {
      throw new Error(`umbel run printed no JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
    }
    expect(r.code, `${r.stderr}\n${JSON.stringify(summary, null, 1)}`).toBe(0);
    expect(summary).toMatchObject({ ok: true, status: 'completed', exitCode: 0 });
    const steps = Object.fromEntries(summary.steps.map((s: Json) => [s.id, s]));
    expect(steps.one).toMatchObject({ attempts: 1 });
    expect(steps.two).toMatchObject({ attempts: 2 });
    expect(steps.one.workerName).toBe(steps.two.workerName); // one worker served both steps
    expect(summary.outputs.one.output).toBe('alpha-42');

    // The template reached the model, then the check's feedback did, in the same Claude session.
    const main = mock.requests().filter((q) => q.kind === 'main');
    const prompts = main.map((q) => q.prompt as string);
    expect(prompts.slice(0, 2)).toEqual(['ECHO alpha-42', 'ECHO got alpha-42']);
    const feedback = prompts[2];
    expect(feedback).toContain('rejected by an automated check');
    expect(feedback).toContain(REJECTION);
    expect(prompts).toHaveLength(3);
    expect(new Set(main.map((q) => q.headers?.['x-claude-code-session-id'])).size).toBe(1);
    // The accepted answer is the model's reply to the feedback prompt.
    expect(summary.outputs.two.output).toBe(plan(feedback).text);
    expect(readFileSync(join(work, 'answers.log'), 'utf8')).toBe(`got alpha-42\n--- attempt 1\n${plan(feedback).text}\n--- attempt 2\n`);

    // The run killed its worker at the end: no Claude Code process of it is left.
    const left = processesOf({ cwd: work, envIncludes: [`CLAUDE_CONFIG_DIR=${config}`] }).filter((p: { args: string }) => !/^\S*tmux /.test(p.args));
    expect(left).toEqual([]);
  });
});
