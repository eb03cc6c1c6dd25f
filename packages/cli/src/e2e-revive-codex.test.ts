/**
 * `umbel revive` on real tmux with the fake `codex` (issue 33; test-fixtures/real/REVIVE-FACTS.md
 * §1): the CLI killed with SIGKILL mid-conversation, or its whole tmux server gone, comes back as
 * `codex resume <thread id>` in the same managed CODEX_HOME — the fake's RECALL answers with the
 * earlier prompts it reads back from the thread's rollout file, which the resumed thread goes on
 * appending to. Turn numbers go on, earlier turns stay readable, the turn that was running when it
 * died stays dead. Needs `pnpm build`.
 */
import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTmuxSubstrate } from '@umbel/tmux';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, codexMockConfig, REPO_ROOT, testEnv, umbelRunner } from '../../../test-fixtures/real/umbel-helpers.mjs';

const KEY_NAME = 'MOCK_API_KEY';
/** Per-test budget: several spawns on a loaded 2-core CI box (nothing asserts on time). */
const T = 300_000;

let scratch: string;
let state: string;
let env: Record<string, string>;
let umbel: UmbelRun;

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-e2e-revive-codex-')));
  state = join(scratch, 'state');
  const work = join(scratch, 'project');
  const userCodexHome = join(scratch, 'user-codex-home');
  await mkdir(join(work, '.git'), { recursive: true });
  await mkdir(join(scratch, 'home'), { recursive: true });
  await mkdir(userCodexHome, { recursive: true });
  await writeFile(join(userCodexHome, 'config.toml'), codexMockConfig({ baseUrl: 'http://127.0.0.1:9/v1', envKey: KEY_NAME }));
  env = testEnv({
    home: join(scratch, 'home'),
    umbelHome: state,
    UMBEL_CODEX_BIN: join(REPO_ROOT, 'test-fixtures/bin/codex'),
    CODEX_HOME: userCodexHome,
    [KEY_NAME]: 'sk-fake-codex-e2e-not-a-secret',
  });
  ({ run: umbel } = umbelRunner({ cwd: work, env }));
});

afterAll(() => cleanUp({ workers: [umbel], reap: [scratch], remove: [scratch] }));

const json = async (args: string[]) => {
  const r = await umbel([...args, '--json']);
  return { ...r, value: r.stdout.trim() ? JSON.parse(r.stdout) : undefined };
};

const spawnCodex = (name: string) => umbel(['spawn', name, '--provider', 'codex', '--env', KEY_NAME]);

describe('umbel revive (codex)', () => {
  it(
    'after a SIGKILL mid-conversation: resumes the thread in its rollout file, turn numbers go on, the dead turn stays dead',
    async () => {
      expect((await spawnCodex('cx')).code).toBe(0);
      expect((await umbel(['send', 'cx', 'ECHO first answer'])).stdout.trim()).toBe('1');
      expect((await json(['wait', 'cx'])).value).toMatchObject({ reason: 'completed', result: 'first answer' });
      const before = (await json(['status', 'cx'])).value;
      // turn 2: the CLI kills itself with SIGKILL while working on it
      expect((await umbel(['send', 'cx', 'KILLSELF KILL'])).stdout.trim()).toBe('2');
      expect((await json(['wait', 'cx', '--timeout', '60s'])).value).toMatchObject({ reason: 'dead', turn: 2 });

      const revived = await umbel(['revive', 'cx', '--json']);
      expect(revived.code, revived.stderr).toBe(0);
      expect(JSON.parse(revived.stdout)).toMatchObject({ name: 'cx', state: 'ready', alive: true });

      // the next turn sees the earlier turns' context: the resumed thread's prompts
      expect((await umbel(['send', 'cx', 'RECALL'])).stdout.trim()).toBe('3');
      expect((await json(['wait', 'cx'])).value).toMatchObject({ reason: 'completed', turn: 3, result: 'RECALL: ECHO first answer | KILLSELF KILL' });
      expect((await json(['status', 'cx'])).value).toMatchObject({ sessionId: before.sessionId, transcriptPath: before.transcriptPath });
      expect((await json(['read', 'cx', '--turn', '1'])).value).toMatchObject({ turn: 1, result: 'first answer' });
      const dead = await json(['wait', 'cx', '--turn', '2']);
      expect(dead.value).toMatchObject({ reason: 'dead', turn: 2 });
      expect(dead.code).toBe(125);
    },
    T,
  );

  it(
    'after the tmux server was killed: revives and resumes',
    async () => {
      expect((await spawnCodex('ck')).code).toBe(0);
      expect((await umbel(['send', 'ck', 'ECHO before the crash'])).code).toBe(0);
      expect((await json(['wait', 'ck'])).value).toMatchObject({ reason: 'completed' });
      await createTmuxSubstrate({ home: state, env }).killServer();
      expect((await json(['status', 'ck'])).value.alive).toBe(false);
      const revived = await umbel(['revive', 'ck']);
      expect(revived.code, revived.stderr).toBe(0);
      expect((await umbel(['send', 'ck', 'RECALL'])).stdout.trim()).toBe('2');
      expect((await json(['wait', 'ck'])).value).toMatchObject({ reason: 'completed', result: 'RECALL: ECHO before the crash' });
    },
    T,
  );
});
