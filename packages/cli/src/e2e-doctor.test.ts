/**
 * `umbel doctor` end to end: the built bin, real tmux, the fake claude (UMBEL_CLAUDE_BIN). The
 * scenarios themselves are proven in packages/runtime/src/doctor.test.ts; here: the text checklist
 * and exit 0, --json and exit 1 on a failure, repeatable --provider, --env reaching the scratch
 * worker, bad input (exit 2), --help, SIGINT (130) leaving nothing behind.
 */
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DoctorReportSchema } from '@umbel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun, UmbelStart } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, processesOf, REPO_ROOT, testEnv, umbelRunner } from '../../../test-fixtures/real/umbel-helpers.mjs';

const fakeClaude = join(REPO_ROOT, 'test-fixtures/bin/claude');
let scratch: string;
let temp: string;
let umbel: UmbelRun;
let startUmbel: UmbelStart;

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
  scratch = await mkdtemp(join(tmpdir(), 'umbel-e2e-doctor-'));
  temp = join(scratch, 'tmp');
  const config = join(scratch, 'claude-config');
  await mkdir(temp);
  await mkdir(config);
  await writeFile(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }));
  ({ run: umbel, start: startUmbel } = umbelRunner({
    cwd: scratch,
    env: testEnv({ home: scratch, umbelHome: join(scratch, 'state'), UMBEL_CLAUDE_BIN: fakeClaude, CLAUDE_CONFIG_DIR: config, TMPDIR: temp }),
  }));
});

afterAll(() => cleanUp({ reap: [scratch], remove: [scratch] }));

async function nothingLeft(): Promise<void> {
  expect(await readdir(temp)).toEqual([]);
  expect(processesOf({ argsIncludes: [temp] })).toEqual([]);
}

describe('umbel doctor', () => {
  it('prints the checklist and exits 0 when the provider passes', async () => {
    const r = await umbel(['doctor']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^✓ claude \(Claude Code\)\n/);
    expect(r.stdout).toMatch(/✓ session hook fires +fired/);
    expect(r.stdout).toContain('1 of 1 provider(s) pass (no model call made');
    await nothingLeft();
  });

  it('--json: one report; a failure exits 1 and the --env of the scratch worker reaches it', async () => {
    const r = await umbel(['doctor', '--json', '--provider', 'claude', '--env', 'FAKE_CLAUDE_DROP_PAYLOAD_FIELDS=transcript_path']);
    expect(r.code).toBe(1);
    const report = DoctorReportSchema.parse(JSON.parse(r.stdout));
    expect(report.ok).toBe(false);
    expect(report.providers[0]?.checks.find((c) => c.id === 'payload')?.status).toBe('fail');
    await nothingLeft();
  });

  it('text: a failure shows ✗ and its fix line', async () => {
    const r = await umbel(['doctor', '--provider', 'claude', '--provider', 'codex'], { env: { UMBEL_CODEX_BIN: join(scratch, 'no-codex') } });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ codex \(OpenAI Codex\)\n {2}✗ CLI binary +.*no-codex.*\n +fix: /);
    expect(r.stdout).toContain('1 of 2 provider(s) pass');
  });

  it('bad input exits 2: an unknown provider, an unset --env NAME', async () => {
    expect((await umbel(['doctor', '--provider', 'nope'])).code).toBe(2);
    const unset = await umbel(['doctor', '--env', 'UMBEL_TEST_UNSET_VARIABLE']);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('UMBEL_TEST_UNSET_VARIABLE');
  });

  it('--help explains the checks, the model request of --turn and the exit codes', async () => {
    const r = await umbel(['doctor', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--turn[\s\S]*ONE small model request/);
    expect(r.stdout).toContain('Exit 0 when every checked provider passes, 1 otherwise');
  });

  it('SIGINT during the scratch startup exits 130 and leaves nothing behind', async () => {
    const run = startUmbel(['doctor', '--env', 'FAKE_CLAUDE_SKIP_HOOKS=SessionStart', '--startup-timeout', '60s']);
    for (let i = 0; i < 600 && processesOf({ argsIncludes: [temp] }).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code).toBe(130);
    await nothingLeft();
  });
});
