/**
 * `umbel revive` on real tmux with the fake `claude` (issue 33): the CLI killed with SIGKILL
 * mid-conversation, or its whole tmux server gone, comes back resuming its own conversation (the
 * fake's RECALL answers with the earlier prompts it reads back from its session file); turn numbers
 * go on, earlier turns stay readable, the turn that was running when it died stays dead; env values
 * come from the caller again; a provider that cannot resume refuses. Needs `pnpm build`.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTmuxSubstrate } from '@umbel/tmux';
import type { UmbelRun } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, environOf, REPO_ROOT, testEnv, umbelRunner, workerProcesses } from '../../../test-fixtures/real/umbel-helpers.mjs';

/** Per-test budget: several spawns on a loaded 2-core CI box (nothing asserts on time). */
const T = 300_000;

let scratch: string;
let work: string;
let state: string;
let env: Record<string, string>;
let umbel: UmbelRun;

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
  scratch = await mkdtemp(join(tmpdir(), 'umbel-e2e-revive-'));
  work = join(scratch, 'project');
  state = join(scratch, 'state');
  const config = join(scratch, 'claude-config');
  await mkdir(work, { recursive: true });
  await mkdir(config, { recursive: true });
  await writeFile(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: { [work]: { hasTrustDialogAccepted: true } } }));
  env = testEnv({
    home: scratch,
    umbelHome: state,
    UMBEL_CLAUDE_BIN: join(REPO_ROOT, 'test-fixtures/bin/claude'),
    CLAUDE_CONFIG_DIR: config,
    REVIVE_TOKEN: 'first-value',
  });
  ({ run: umbel } = umbelRunner({ cwd: work, env }));
});

afterAll(() => cleanUp({ workers: [umbel], reap: [scratch], remove: [scratch] }));

const json = async (args: string[]) => {
  const r = await umbel([...args, '--json']);
  return { ...r, value: r.stdout.trim() ? JSON.parse(r.stdout) : undefined };
};

/** The REVIVE_TOKEN the worker's CLI process runs with (its /proc environ). */
function tokenOf(name: string): string | undefined {
  const cli = workerProcesses(state, name).find((p) => p.args.includes('claude'));
  return cli ? environOf(cli.pid).REVIVE_TOKEN : undefined;
}

describe('umbel revive (claude)', () => {
  it(
    'after a SIGKILL mid-conversation: resumes the conversation, turn numbers go on, the dead turn stays dead',
    async () => {
      expect((await umbel(['spawn', 'rv', '--env', 'REVIVE_TOKEN'])).code).toBe(0);
      expect((await umbel(['send', 'rv', 'ECHO first answer'])).stdout.trim()).toBe('1');
      expect((await json(['wait', 'rv'])).value).toMatchObject({ reason: 'completed', result: 'first answer' });
      // turn 2: the CLI kills itself with SIGKILL while working on it
      expect((await umbel(['send', 'rv', 'KILLSELF KILL'])).stdout.trim()).toBe('2');
      expect((await json(['wait', 'rv', '--timeout', '60s'])).value).toMatchObject({ reason: 'dead', turn: 2 });
      expect((await json(['status', 'rv'])).value).toMatchObject({ state: 'dead' });

      // the caller's value now, never the spawn's: a variable it lacks is refused, nothing started
      const refused = await umbel(['revive', 'rv'], { env: { REVIVE_TOKEN: undefined } });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('REVIVE_TOKEN');
      expect((await json(['status', 'rv'])).value).toMatchObject({ state: 'dead' });

      const revived = await umbel(['revive', 'rv', '--json'], { env: { REVIVE_TOKEN: 'second-value' } });
      expect(revived.code, revived.stderr).toBe(0);
      expect(JSON.parse(revived.stdout)).toMatchObject({ name: 'rv', state: 'ready', alive: true });
      expect(tokenOf('rv')).toBe('second-value');

      // the next turn sees the earlier turns' context: the resumed conversation's prompts
      expect((await umbel(['send', 'rv', 'RECALL'])).stdout.trim()).toBe('3');
      expect((await json(['wait', 'rv'])).value).toMatchObject({ reason: 'completed', turn: 3, result: 'RECALL: ECHO first answer | KILLSELF KILL' });
      // earlier turns: the first still reads, the one running at the death is still dead
      expect((await json(['read', 'rv', '--turn', '1'])).value).toMatchObject({ turn: 1, result: 'first answer' });
      const dead = await json(['wait', 'rv', '--turn', '2']);
      expect(dead.value).toMatchObject({ reason: 'dead', turn: 2 });
      expect(dead.value.message).toContain('SIGKILL');
      expect(dead.code).toBe(125);
      const logs = await umbel(['logs', 'rv']);
      expect(logs.stdout).toContain('revived');
    },
    T,
  );

  it(
    'after the tmux server was killed: revives and resumes',
    async () => {
      expect((await umbel(['spawn', 'ks'])).code).toBe(0);
      expect((await umbel(['send', 'ks', 'ECHO before the crash'])).code).toBe(0);
      expect((await json(['wait', 'ks'])).value).toMatchObject({ reason: 'completed' });
      await createTmuxSubstrate({ home: state, env }).killServer();
      expect((await json(['status', 'ks'])).value.alive).toBe(false);
      expect((await umbel(['revive', 'ks'])).code).toBe(0);
      expect((await umbel(['send', 'ks', 'RECALL'])).stdout.trim()).toBe('2');
      expect((await json(['wait', 'ks'])).value).toMatchObject({ reason: 'completed', result: 'RECALL: ECHO before the crash' });
    },
    T,
  );

  it(
    'a live worker is not revived; a killed one without a conversation is refused, a killed one with one revived',
    async () => {
      expect((await umbel(['spawn', 'lv'])).code).toBe(0);
      const live = await umbel(['revive', 'lv']);
      expect(live.code).toBe(1);
      expect(live.stderr).toContain('not dead or killed');
      expect((await umbel(['kill', 'lv'])).code).toBe(0);
      const empty = await umbel(['revive', 'lv']);
      expect(empty.code).toBe(1);
      expect(empty.stderr).toContain('no conversation to resume');
      expect((await json(['status', 'lv'])).value).toMatchObject({ state: 'killed' });

      expect((await umbel(['spawn', 'kd'])).code).toBe(0);
      expect((await umbel(['send', 'kd', 'ECHO remembered'])).code).toBe(0);
      expect((await json(['wait', 'kd'])).value).toMatchObject({ reason: 'completed' });
      expect((await umbel(['kill', 'kd'])).code).toBe(0);
      const again = await umbel(['revive', 'kd']);
      expect(again.code, again.stderr).toBe(0);
      expect((await json(['status', 'kd'])).value).toMatchObject({ state: 'ready', alive: true, turn: 1 });
      expect((await umbel(['send', 'kd', 'RECALL'])).stdout.trim()).toBe('2');
      expect((await json(['wait', 'kd'])).value).toMatchObject({ reason: 'completed', result: 'RECALL: ECHO remembered' });
    },
    T,
  );

  it('a provider that cannot resume refuses, with its typed error (exit 2), and the worker stays dead', async () => {
    // a killed gemini worker's state as spawn and kill leave it (gemini declares no resume)
    const dir = join(state, 'workers', 'gm');
    await mkdir(join(dir, 'events'), { recursive: true, mode: 0o700 });
    const meta = {
      version: 1,
      name: 'gm',
      provider: 'gemini',
      cwd: work,
      unattended: false,
      anonymous: false,
      createdAt: new Date().toISOString(),
      substrateSession: 'umbel-gm',
      sessionId: 'b0b0b0b0-0000-4000-8000-000000000000',
    };
    await writeFile(join(dir, 'meta.json'), JSON.stringify(meta), { mode: 0o600 });
    const at = `${BigInt(Date.now()) * 1_000_000n}`;
    await writeFile(join(dir, 'events', `${at}-1-dead.json`), JSON.stringify({ by: 'kill' }), { mode: 0o600 });
    const refused = await umbel(['revive', 'gm', '--json']);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain('UMBEL_RESUME_UNSUPPORTED');
    expect((await json(['status', 'gm'])).value).toMatchObject({ state: 'killed' });
  });
});
