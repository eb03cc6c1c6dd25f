/**
 * `completed.background` on real tmux with the fake `claude` (issue 33): a turn whose CLI stopped
 * while a background shell it started (Bash `run_in_background`) was still running completes with
 * `background: [{kind, id, running}]`, read from the Stop record's `background_tasks` (as the real
 * 2.1.332 writes it: test-fixtures/real/REVIVE-FACTS.md §4); a turn without one has none. Needs `pnpm build`.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, REPO_ROOT, testEnv, umbelRunner, until } from '../../../test-fixtures/real/umbel-helpers.mjs';

/** Per-test budget: spawns on a loaded 2-core CI box (nothing asserts on time). */
const T = 300_000;

let scratch: string;
let work: string;
let umbel: UmbelRun;

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
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

const waitJson = async (name: string, ...args: string[]) => {
  const r = await umbel(['wait', name, '--json', ...args]);
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

  it(
    "the turn Claude starts by itself when a background shell ends (<task-notification>) takes no turn of umbel's: a prompt queued behind it gets its own answer, read --turn N its own",
    async () => {
      const go = join(scratch, 'go');
      const done = join(scratch, 'done');
      expect((await umbel(['spawn', 'self', '--allowed-tools', 'Bash'])).code).toBe(0);
      expect((await umbel(['send', 'self', `BGTOOL while [ ! -e ${go} ]; do sleep 0.2; done; touch ${done}`])).code).toBe(0);
      const first = await waitJson('self');
      expect(first).toMatchObject({ reason: 'completed', turn: 1, background: [{ kind: 'shell', running: true }] });
      // turn 2 runs; the shell ends meanwhile (its notification turn queued behind turn 2); turn 3 is queued behind that
      expect((await umbel(['send', 'self', 'DELAY 20000 ECHO two'])).code).toBe(0);
      await writeFile(go, '');
      await until(() => existsSync(done), 'the background shell to end');
      // (turn 3 answers after 10 s: a wait that took the notification turn's Stop for turn 3's would not wait for it)
      const third = await umbel(['send', 'self', 'DELAY 10000 ECHO three', '--json']);
      expect(third.code, third.stderr).toBe(0);
      expect(JSON.parse(third.stdout)).toMatchObject({ turn: 3 });
      expect(await waitJson('self', '--turn', '2', '--timeout', '120s')).toMatchObject({ reason: 'completed', turn: 2, result: 'two' });
      expect(await waitJson('self', '--turn', '3', '--timeout', '120s')).toMatchObject({ reason: 'completed', turn: 3, result: 'three' });
      const read = async (turn: string) => {
        const r = await umbel(['read', 'self', '--turn', turn, '--json']);
        expect(r.code, r.stderr).toBe(0);
        return JSON.parse(r.stdout).result;
      };
      expect(await read('1')).toBe(first.result);
      expect(await read('2')).toBe('two');
      // the notification turn is an event of its own, between turn 2's end and turn 3's
      const events = await umbel(['events', 'self', '--json']);
      const kinds = events.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .map((e) => (e.turn ? `${e.kind} ${e.turn}` : e.kind));
      expect(kinds.filter((k) => k === 'self-started')).toHaveLength(1);
      expect(kinds.indexOf('self-started')).toBeGreaterThan(kinds.indexOf('ended 2'));
      expect(kinds.indexOf('self-started')).toBeLessThan(kinds.indexOf('ended 3'));
      const sent = await umbel(['send', 'self', 'ECHO four', '--json']);
      expect(JSON.parse(sent.stdout)).toMatchObject({ turn: 4 });
      expect(await waitJson('self')).toMatchObject({ reason: 'completed', turn: 4, result: 'four' });
    },
    T,
  );
});
