// Real-CLI tier (issue 33, background work): the REAL pinned codex against the Responses mock, a
// shell command it leaves running as a background terminal (unified exec: the mock's BGTOOL calls
// exec_command with yield_time_ms 250), and a subagent it spawns (multi_agent: the mock's BGAGENT
// calls spawn_agent). What its rollout records about them at the turn's end and after:
// test-fixtures/real/BACKGROUND-FACTS.md §5, §9. Needs `pnpm build`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { startResponsesMock } from '../../test-fixtures/mock-servers/openai-responses.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins, realCliPath } from '../../test-fixtures/real/clis.mjs';
import type { UmbelRun } from '../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, codexMockConfig, testEnv, umbelRunner, until } from '../../test-fixtures/real/umbel-helpers.mjs';

const KEY_NAME = 'MOCK_API_KEY';
/** Per-test budget: the real codex on a loaded 2-core CI box (nothing asserts on time). */
const T = 300_000;

let mock: { url: string; requests(): Record<string, any>[]; close(): Promise<void> };
let scratch: string;
let work: string;
let umbel: UmbelRun;

beforeAll(async () => {
  const codex = realCliPath('codex'); // throws (the test fails) when the pinned codex is missing
  assertBuilt(['packages/cli/dist/cli.cjs']);
  mock = await startResponsesMock();
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-real-codex-bg-')));
  work = join(scratch, 'project');
  const codexHome = join(scratch, 'codex-home');
  await mkdir(join(work, '.git'), { recursive: true });
  await mkdir(join(scratch, 'home'), { recursive: true });
  await mkdir(codexHome, { recursive: true });
  await writeFile(
    join(codexHome, 'config.toml'),
    codexMockConfig({ baseUrl: mock.url, envKey: KEY_NAME, providerLines: ['request_max_retries = 0', 'stream_max_retries = 0'] }),
  );
  const env = testEnv({
    home: join(scratch, 'home'),
    umbelHome: join(scratch, 'state'),
    UMBEL_CODEX_BIN: codex,
    CODEX_HOME: codexHome,
    [KEY_NAME]: 'sk-real-codex-mock-key',
  });
  umbel = umbelRunner({ cwd: work, env }).run;
}, T);

afterAll(() => cleanUp({ workers: [umbel], reap: [scratch], close: [mock], remove: [scratch] }), T);

describe(`real codex ${readPins().codex.version}: a background terminal`, () => {
  it(
    'a turn that ends while a command it started still runs (a background terminal) completes with background [{kind: terminal, id, running}]; a plain turn has none',
    async () => {
      expect((await umbel(['spawn', 'bg', '--provider', 'codex', '--env', KEY_NAME])).code).toBe(0);
      expect((await umbel(['send', 'bg', 'ECHO nothing in the background'])).code).toBe(0);
      const plain = JSON.parse((await umbel(['wait', 'bg', '--json', '--timeout', '180s'])).stdout);
      expect(plain).toMatchObject({ reason: 'completed', turn: 1, result: 'nothing in the background' });
      expect(plain).not.toHaveProperty('background');
      const done = join(work, 'bg-done');
      expect((await umbel(['send', 'bg', `BGTOOL sleep 20; touch ${done}`])).code).toBe(0);
      const r = await umbel(['wait', 'bg', '--json', '--timeout', '180s']);
      expect(r.code, r.stderr).toBe(0);
      const outcome = JSON.parse(r.stdout);
      const runningAtEnd = !existsSync(done);
      expect(outcome).toMatchObject({ reason: 'completed', turn: 2, background: [{ kind: 'terminal', running: true }] });
      expect(outcome.background).toHaveLength(1);
      expect(runningAtEnd).toBe(true);
      // The tier's sandbox leaves /tmp alone (codexMockConfig): by default codex mounts /tmp/.git
      // read-only for a command, and the empty /tmp/.git it leaves on the host while one runs is a
      // "git root" to every CLI of a parallel test under /tmp (Claude then keys its trust under /tmp).
      expect(existsSync('/tmp/.git')).toBe(false);
      // the id is codex's terminal session id, as its exec_command output named it
      expect(outcome.background[0].id).toMatch(/^\d+$/);
      expect(readFileSync(outcome.transcriptPath, 'utf8')).toContain(`Process running with session ID ${outcome.background[0].id}`);
      // once it ended, codex appended its CommandExecution under that turn: the turn still ran it at its end
      await until(() => existsSync(done), 'the background command to end', 120_000);
      await until(
        () => readFileSync(outcome.transcriptPath, 'utf8').includes(`"process_id":"${outcome.background[0].id}"`),
        'its CommandExecution record',
        60_000,
      );
    },
    T,
  );

  it(
    "a turn that ends while a subagent it spawned still works completes with background [{kind: subagent, id: <its thread id>, running}]; the agent writes its own rollout; its hooks (a tool it runs after the turn) do not move the worker to the agent's rollout",
    async () => {
      expect((await umbel(['spawn', 'ag', '--provider', 'codex', '--env', KEY_NAME])).code).toBe(0);
      // the agent waits 20 s on its model, then runs a shell command: its hooks fire after the turn ended
      expect((await umbel(['send', 'ag', 'BGAGENT DELAY 20000 TOOL echo child-tool'])).code).toBe(0);
      const r = await umbel(['wait', 'ag', '--json', '--timeout', '180s']);
      expect(r.code, r.stderr).toBe(0);
      const outcome = JSON.parse(r.stdout);
      expect(outcome).toMatchObject({ reason: 'completed', turn: 1, background: [{ kind: 'subagent', running: true }] });
      expect(outcome.background).toHaveLength(1);
      const id = outcome.background[0].id as string;
      // the agent's own rollout, a thread of its own beside the parent's, whose id is the agent id
      const rollouts = () => readdirSync(dirname(outcome.transcriptPath)).filter((f) => f.endsWith(`-${id}.jsonl`));
      expect(rollouts()).toHaveLength(1);
      const child = join(dirname(outcome.transcriptPath), rollouts()[0] as string);
      expect(JSON.parse(readFileSync(child, 'utf8').split('\n')[0] as string).payload).toMatchObject({ id, parent_thread_id: outcome.sessionId });
      // the mock answered it 20 s later: the agent ended after the turn did, and codex told the parent then
      await until(() => readFileSync(outcome.transcriptPath, 'utf8').includes('<subagent_notification>'), 'the agent notification', 120_000);
      expect(readFileSync(child, 'utf8')).toContain('"last_agent_message":"TOOL-RESULT: child-tool"');
      // read again after: what ran at the turn's end; codex starts no turn of its own for the notification
      const again = JSON.parse((await umbel(['wait', 'ag', '--json', '--timeout', '60s'])).stdout);
      expect(again).toMatchObject({ reason: 'completed', turn: 1, background: [{ kind: 'subagent', id, running: true }] });
      expect((await umbel(['send', 'ag', 'ECHO after the agent'])).code).toBe(0);
      const next = JSON.parse((await umbel(['wait', 'ag', '--json', '--timeout', '90s'])).stdout);
      expect(next).toMatchObject({ reason: 'completed', turn: 2, result: 'after the agent', transcriptPath: outcome.transcriptPath });
      expect(next).not.toHaveProperty('background');
    },
    T,
  );
});
