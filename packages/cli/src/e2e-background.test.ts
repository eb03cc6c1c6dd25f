/**
 * `completed.background` on real tmux with the fake `claude` (issue 33): a turn whose CLI stopped
 * while a background shell it started (Bash `run_in_background`) was still running completes with
 * `background: [{kind, id, running}]`, read from the Stop record's `background_tasks` (as the real
 * 2.1.332 writes it: test-fixtures/real/REVIVE-FACTS.md §4); a turn without one has none. Needs `pnpm build`.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, REPO_ROOT, testEnv, umbelRunner } from '../../../test-fixtures/real/umbel-helpers.mjs';

/** Per-test budget: spawns on a loaded 2-core CI box (nothing asserts on time). */
const T = 300_000;

let scratch: string;
let work: string;
let umbel: UmbelRun;

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.js']);
  scratch = await mkdtemp(join(tmpdir(), 'umbel-e2e-background-'));
  work = join(scratch, 'project');
  const config = join(scratch, 'claude-config');
  await mkdir(work, { recursive: true });
  await mkdir(config, { recursive: true });
  await writeFile(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: { [work]: { hasTrustDialogAccepted: true } } }));
  const env = testEnv({
    home: scratch,
    umbelHome: join(scratch, 'state'),
    UMBEL_CLAUDE_BIN: join(REPO_ROOT, 'test-fixtures/bin/claude'),
    CLAUDE_CONFIG_DIR: config,
  });
  ({ run: umbel } = umbelRunner({ cwd: work, env }));
});

afterAll(() => cleanUp({ workers: [umbel], reap: [scratch], remove: [scratch] }));

const waitJson = async (name: string) => {
  const r = await umbel(['wait', name, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

describe('completed.background (claude)', () => {
  it(
    'a Stop while a background shell still runs: completed with background [{kind, id, running}]; a plain turn has none',
    async () => {
      expect((await umbel(['spawn', 'bg', '--allowed-tools', 'Bash'])).code).toBe(0);
      expect((await umbel(['send', 'bg', 'ECHO nothing in the background'])).code).toBe(0);
      expect(await waitJson('bg')).not.toHaveProperty('background');
      // the shell waits for a file nobody writes: still running at the Stop (and removed with the scratch dir)
      expect((await umbel(['send', 'bg', `BGTOOL while [ ! -e ${join(scratch, 'never')} ]; do sleep 1; done`])).code).toBe(0);
      const outcome = await waitJson('bg');
      expect(outcome).toMatchObject({ reason: 'completed', turn: 2, background: [{ kind: 'shell', running: true }] });
      expect(outcome.background).toHaveLength(1);
      expect(outcome.background[0].id).toMatch(/^[a-z0-9]{9}$/);
      expect(outcome.result).toContain(`Command running in background with ID: ${outcome.background[0].id}`);
    },
    T,
  );
});
