/**
 * Fleet limits end to end on real tmux with the fake `claude`: the config file's `limits` reach the
 * engine of the bin, and `umbel run --max-workers` reaches the run's spawns. Needs `pnpm build`.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, REPO_ROOT, testEnv, umbelRunner } from '../../../test-fixtures/real/umbel-helpers.mjs';

let scratch: string;
let work: string;
let config: string;
let umbel: UmbelRun;

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
  scratch = await mkdtemp(join(tmpdir(), 'umbel-e2e-limits-'));
  work = join(scratch, 'project');
  config = join(scratch, 'claude-config');
  await mkdir(work, { recursive: true });
  await mkdir(config, { recursive: true });
  await writeFile(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: { [work]: { hasTrustDialogAccepted: true } } }));
  await writeFile(join(scratch, 'limits.json'), JSON.stringify({ limits: { maxWorkers: 1 } }));
  const env = testEnv({
    home: scratch,
    umbelHome: join(scratch, 'state'),
    UMBEL_CLAUDE_BIN: join(REPO_ROOT, 'test-fixtures/bin/claude'),
    UMBEL_CONFIG: join(scratch, 'none.json'),
  });
  ({ run: umbel } = umbelRunner({ cwd: work, env }));
});

afterAll(() => cleanUp({ workers: [umbel], reap: [scratch], remove: [scratch] }));

describe('fleet limits on the bin', () => {
  it("the config's limits.maxWorkers refuses a second spawn (117); umbel run --max-workers fails its step (117)", async () => {
    const limited = { env: { UMBEL_CONFIG: join(scratch, 'limits.json') } };
    const cfg = ['--env', `CLAUDE_CONFIG_DIR=${config}`];
    expect(await umbel(['spawn', 'a', ...cfg], limited)).toMatchObject({ code: 0, stdout: 'a\n' });
    const second = await umbel(['spawn', 'b', ...cfg], limited);
    expect(second.code).toBe(117);
    expect(second.stderr).toMatch(/maxWorkers 1 is reached: 1 workers live/);
    await writeFile(
      join(work, 'wf.yaml'),
      `workers:\n  w: {provider: claude, env: {CLAUDE_CONFIG_DIR: ${config}}}\nsteps:\n  - id: one\n    worker: w\n    prompt: ECHO one\n`,
    );
    const run = await umbel(['run', 'wf.yaml', '--max-workers', '1']);
    expect(run.code).toBe(117);
    expect(run.stderr).toMatch(/maxWorkers 1 is reached/);
  });
});
