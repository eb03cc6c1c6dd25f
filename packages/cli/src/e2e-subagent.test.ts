/**
 * Subagent-aware idle on real tmux with the fake `claude`: a turn whose Task subagent works for 10 s
 * behind a still screen (only its own transcript under `<session>/subagents/` grows) is not `idle`
 * under `--idle-timeout 3s`; it completes. Needs `pnpm build`.
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
  scratch = await mkdtemp(join(tmpdir(), 'umbel-e2e-subagent-'));
  work = join(scratch, 'project');
  config = join(scratch, 'claude-config');
  await mkdir(work, { recursive: true });
  await mkdir(config, { recursive: true });
  await writeFile(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: { [work]: { hasTrustDialogAccepted: true } } }));
  const env = testEnv({ home: scratch, umbelHome: join(scratch, 'state'), UMBEL_CLAUDE_BIN: join(REPO_ROOT, 'test-fixtures/bin/claude') });
  ({ run: umbel } = umbelRunner({ cwd: work, env }));
});

afterAll(() => cleanUp({ workers: [umbel], reap: [scratch], remove: [scratch] }));

describe('subagent-aware idle (claude)', () => {
  it('a subagent writing its own transcript for 10 s behind a still screen is not idle under --idle-timeout 3s', async () => {
    expect(await umbel(['spawn', 'sa', '--env', `CLAUDE_CONFIG_DIR=${config}`])).toMatchObject({ code: 0 });
    expect((await umbel(['send', 'sa', 'SUBAGENT 10000 ECHO subagents done'])).code).toBe(0);
    const waited = await umbel(['wait', 'sa', '--idle-timeout', '3s', '--timeout', '60s', '--json']);
    expect(JSON.parse(waited.stdout)).toMatchObject({ reason: 'completed', result: 'subagents done' });
    expect(waited.code).toBe(0);
  });
});
