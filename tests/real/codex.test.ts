// Real-CLI tier: the REAL pinned `codex` (pnpm install:real-clis --only codex) driven by the built
// `umbel` bin with `--provider codex` (UMBEL_CODEX_BIN = the absolute path of the pinned binary),
// its model API served by the local Responses mock on 127.0.0.1 (test-fixtures/mock-servers/
// openai-responses.mjs). No network, no model service. When the binary is not installed these
// tests FAIL (realCliPath throws), they never skip. Needs `pnpm build` (the umbel bin runs dist/).
//
// Every test plays a fresh user: its own CODEX_HOME whose config.toml selects a custom model
// provider pointing at the mock (reference codex.md §0), its own umbel state root (so its own
// managed CODEX_HOME and tmux socket) and a git project. The provider key travels by name
// (`--env MOCK_API_KEY`).
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { startResponsesMock } from '../../test-fixtures/mock-servers/openai-responses.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins, realCliPath } from '../../test-fixtures/real/clis.mjs';
import type { UmbelRun } from '../../test-fixtures/real/umbel-helpers.mjs';
import {
  assertBuilt,
  cleanUp,
  codexMockConfig,
  runCommand,
  snapshotTree,
  testEnv,
  umbelRunner,
  workerProcesses,
  teardownsDone,
} from '../../test-fixtures/real/umbel-helpers.mjs';

type Json = any;
type Mock = { url: string; requests: () => Array<Record<string, Json>>; close: () => Promise<void> };

const KEY_NAME = 'MOCK_API_KEY';
const KEY_VALUE = 'sk-real-codex-mock-key';
/** Per-test budget: the real codex on a loaded 2-core CI box (nothing asserts on time). */
const T = 300_000;

let codex: string;
let mock: Mock;
let scratch: string;
const users: User[] = [];

interface User {
  dir: string;
  state: string;
  work: string;
  codexHome: string;
  env: Record<string, string>;
  umbel: UmbelRun;
  snapshot: Map<string, string>;
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** A fresh user: own CODEX_HOME (custom provider → `baseUrl`), own umbel state root, a git project. */
async function freshUser(baseUrl = mock.url): Promise<User> {
  if (!codex) codex = realCliPath('codex'); // throws "run `pnpm install:real-clis`" when missing: fail, never skip
  const dir = await mkdtemp(join(scratch, 'user-'));
  const state = join(dir, 'state');
  const work = join(dir, 'project');
  const codexHome = join(dir, 'codex-home');
  await mkdir(join(work, '.git'), { recursive: true }); // a git repo: "Trust this folder?" unless pre-trusted
  await mkdir(join(dir, 'home'), { recursive: true });
  await mkdir(codexHome, { recursive: true });
  await writeFile(
    join(codexHome, 'config.toml'),
    codexMockConfig({ baseUrl, envKey: KEY_NAME, providerLines: ['request_max_retries = 0', 'stream_max_retries = 0'] }),
  );
  const env = testEnv({ home: join(dir, 'home'), umbelHome: state, UMBEL_CODEX_BIN: codex, CODEX_HOME: codexHome, [KEY_NAME]: KEY_VALUE });
  const user: User = {
    dir,
    state,
    work,
    codexHome,
    env,
    umbel: umbelRunner({ cwd: work, env }).run,
    snapshot: await snapshotTree(codexHome),
  };
  users.push(user);
  return user;
}

const codexArgs = ['--provider', 'codex', '--env', KEY_NAME];

/** The user turns the mock received for a prompt (the hidden title request excluded). */
const turnsFor = (prompt: string) => mock.requests().filter((q) => q.kind === 'turn' && q.prompt === prompt);

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-real-codex-')));
  mock = await startResponsesMock();
}, T);

afterAll(() => cleanUp({ workers: users.map((user) => user.umbel), reap: [scratch], close: [mock], remove: [scratch] }), T);

describe(`umbel --provider codex on the real ${readPins().codex.package}@${readPins().codex.version} against the Responses mock`, () => {
  it(
    'is the pinned version',
    async () => {
      const user = await freshUser();
      const r = await runCommand(codex, ['--version'], { cwd: user.work, env: user.env });
      expect(r.stdout.trim()).toBe(`codex-cli ${readPins().codex.version}`);
    },
    T,
  );

  it(
    'answers exact, turn after turn, multi-line exact; the user CODEX_HOME is untouched',
    async () => {
      const user = await freshUser();
      const spawned = await user.umbel(['spawn', 'w1', ...codexArgs]);
      expect(spawned, spawned.stderr).toMatchObject({ code: 0, stdout: 'w1\n' });
      expect((await user.umbel(['send', 'w1', 'ECHO first answer'])).stdout).toBe('1\n');
      expect(await user.umbel(['wait', 'w1', '--timeout', '120s'])).toMatchObject({ code: 0, stdout: 'first answer\n' });
      expect((await user.umbel(['send', 'w1', 'ECHO second answer'])).stdout).toBe('2\n');
      const second = JSON.parse((await user.umbel(['wait', 'w1', '--json', '--timeout', '120s'])).stdout);
      expect(second).toMatchObject({ reason: 'completed', result: 'second answer', turn: 2, provider: 'codex' });
      expect(second.transcriptPath).toContain(join(user.state, 'providers/codex/home/sessions/'));
      const body = 'line one\nline "two" with $HOME and `ticks`\n\n  indented ünïcödé 🚀';
      expect((await user.umbel(['send', 'w1', `ECHO ${body}`])).stdout).toBe('3\n');
      expect(JSON.parse((await user.umbel(['wait', 'w1', '--json', '--timeout', '120s'])).stdout)).toMatchObject({ reason: 'completed', result: body });
      // what the model API received, byte-exact, each once (the title request aside)
      for (const p of ['ECHO first answer', 'ECHO second answer', `ECHO ${body}`]) expect(turnsFor(p)).toHaveLength(1);
      expect(turnsFor('ECHO first answer')[0]?.headers.authorization).toBe(`Bearer ${KEY_VALUE}`);
      expect((await user.umbel(['read', 'w1', '--turn', '1'])).stdout).toBe('first answer\n');
      expect(await snapshotTree(user.codexHome)).toEqual(user.snapshot);
    },
    T,
  );

  it(
    'prompts starting with / or ! reach the model as text',
    async () => {
      const user = await freshUser();
      expect((await user.umbel(['spawn', 'bang', ...codexArgs])).code).toBe(0);
      await user.umbel(['send', 'bang', '/not-a-command please']);
      expect(await user.umbel(['wait', 'bang', '--timeout', '120s'])).toMatchObject({ code: 0, stdout: 'MOCK-REPLY: /not-a-command please\n' });
      await user.umbel(['send', 'bang', '!touch bang-ran.txt']);
      expect(await user.umbel(['wait', 'bang', '--timeout', '120s'])).toMatchObject({ code: 0, stdout: 'MOCK-REPLY: !touch bang-ran.txt\n' });
      expect(existsSync(join(user.work, 'bang-ran.txt'))).toBe(false);
    },
    T,
  );

  it(
    'permission → needs-input (126) → approved with `umbel keys` → completed',
    async () => {
      const user = await freshUser();
      expect((await user.umbel(['spawn', 'perm', ...codexArgs, '--permission-mode', 'on-request'])).code).toBe(0);
      await user.umbel(['send', 'perm', 'ASK touch approved-by-keys.txt; echo approved']);
      const blocked = await user.umbel(['wait', 'perm', '--json', '--timeout', '120s']);
      expect(blocked.code, blocked.stdout).toBe(126);
      expect(JSON.parse(blocked.stdout)).toMatchObject({
        reason: 'needs-input',
        inputKind: 'permission',
        tool: 'Bash',
        message: 'Mock wants to run: touch approved-by-keys.txt; echo approved',
      });
      // codex fires the hook before it draws the prompt: wait reports once the prompt takes keys
      expect(JSON.parse(blocked.stdout).paneTail).toContain('Press enter to confirm or esc to cancel');
      expect(existsSync(join(user.work, 'approved-by-keys.txt'))).toBe(false);
      expect((await user.umbel(['keys', 'perm', 'y'])).code).toBe(0);
      const done = await user.umbel(['wait', 'perm', '--timeout', '120s']);
      expect(done, done.stderr).toMatchObject({ code: 0, stdout: 'TOOL-RESULT: approved\n' });
      expect(existsSync(join(user.work, 'approved-by-keys.txt'))).toBe(true);
    },
    T,
  );

  it(
    'a model failure (no hook fires) is provider-error (122), and the worker answers again',
    async () => {
      const user = await freshUser();
      expect((await user.umbel(['spawn', 'err', ...codexArgs])).code).toBe(0);
      await user.umbel(['send', 'err', 'FAIL 500 upstream exploded']);
      const r = await user.umbel(['wait', 'err', '--json', '--timeout', '120s']);
      expect(r.code, r.stdout).toBe(122);
      expect(JSON.parse(r.stdout)).toMatchObject({ reason: 'provider-error' });
      await user.umbel(['send', 'err', 'ECHO back again']);
      expect(await user.umbel(['wait', 'err', '--timeout', '120s'])).toMatchObject({ code: 0, stdout: 'back again\n' });
    },
    T,
  );

  it(
    'a dead endpoint is provider-error before the timeout, not an endless reconnect',
    async () => {
      const user = await freshUser(`http://127.0.0.1:${await closedPort()}/v1`);
      expect((await user.umbel(['spawn', 'dead-api', ...codexArgs])).code).toBe(0);
      await user.umbel(['send', 'dead-api', 'ECHO nobody listens']);
      const r = await user.umbel(['wait', 'dead-api', '--json', '--timeout', '150s']);
      expect(r.code, r.stdout).toBe(122);
      expect(JSON.parse(r.stdout)).toMatchObject({ reason: 'provider-error' });
    },
    T,
  );

  it(
    'kill leaves no process of the worker (launcher, codex binary, no daemon)',
    async () => {
      const user = await freshUser();
      expect((await user.umbel(['spawn', 'gone', ...codexArgs])).code).toBe(0);
      await user.umbel(['send', 'gone', 'ECHO remember me']);
      expect((await user.umbel(['wait', 'gone', '--timeout', '120s'])).stdout).toBe('remember me\n');
      const before = workerProcesses(user.state, 'gone');
      expect(before.some((p) => /codex/.test(p.args))).toBe(true);
      expect(before.filter((p) => /app-server/.test(p.args))).toEqual([]); // the daemon never started
      expect(await user.umbel(['kill', 'gone'])).toMatchObject({ code: 0, stdout: 'killed: gone\n' });
      expect(workerProcesses(user.state, 'gone')).toEqual([]);
      expect(existsSync(join(user.state, 'providers/codex/home/packages/app-server-daemon'))).toBe(false);
      expect((await user.umbel(['read', 'gone'])).stdout).toBe('remember me\n');
    },
    T,
  );

  it(
    '`umbel -p --provider codex` prints what `codex exec` prints for the same prompt (text), and json/stream-json',
    async () => {
      const user = await freshUser();
      const prompt = 'ECHO same answer\nacross two lines';
      const execHome = join(user.dir, 'exec-codex-home'); // codex exec writes sessions: use a copy
      await cp(user.codexHome, execHome, { recursive: true });
      const exec = await runCommand(codex, ['exec', '--skip-git-repo-check', prompt], { cwd: user.work, env: { ...user.env, CODEX_HOME: execHome } });
      expect(exec.code, exec.stderr).toBe(0);
      expect(exec.stdout).toBe('same answer\nacross two lines\n');
      const print = await user.umbel(['-p', prompt, ...codexArgs]);
      expect(print, print.stderr).toMatchObject({ code: 0, stdout: exec.stdout });
      const json = await user.umbel(['-p', 'ECHO as json', '--output-format', 'json', ...codexArgs]);
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'as json', provider: 'codex' });
      const stream = await user.umbel(['-p', 'TOOL echo streamed', '--output-format', 'stream-json', '--verbose', ...codexArgs]);
      expect(stream.code, stream.stderr).toBe(0);
      const lines = stream.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init' });
      expect(lines.some((l) => l.type === 'assistant' && l.message.content[0].type === 'tool_use')).toBe(true);
      expect(lines.some((l) => l.type === 'user' && l.message.content[0].type === 'tool_result')).toBe(true);
      expect(lines.at(-1)).toMatchObject({ type: 'result', result: 'TOOL-RESULT: streamed' });
      const failed = await user.umbel(['-p', 'FAIL 500 boom', ...codexArgs]);
      expect(failed.code, failed.stderr).toBe(1);
      await teardownsDone(user.state); // -p exited with its answer; its worker goes after, in a detached process
      expect(JSON.parse((await user.umbel(['ls', '--json'])).stdout)).toEqual([]); // the anonymous workers are gone
      expect(await snapshotTree(user.codexHome)).toEqual(user.snapshot);
    },
    T,
  );

  it(
    'account failures: a 429 (with and without retry-after) is rate-limited (118), a plan limit carries resetsAt, a 401 is auth-failed (119); on wait and -p',
    async () => {
      const user = await freshUser();
      expect((await user.umbel(['spawn', 'acct', ...codexArgs])).code).toBe(0);
      const waitJson = async () => {
        const r = await user.umbel(['wait', 'acct', '--json', '--timeout', '240s']);
        return { code: r.code, outcome: JSON.parse(r.stdout) as Json, stderr: r.stderr };
      };
      for (const prompt of ['FAIL 429 retry-after=1 Rate limit reached for requests', 'FAIL 429 Rate limit reached for requests']) {
        await user.umbel(['send', 'acct', prompt]);
        const limited = await waitJson();
        expect(limited.code, limited.stderr).toBe(118);
        expect(limited.outcome).toMatchObject({ reason: 'rate-limited', message: 'exceeded retry limit, last status: 429 Too Many Requests' });
      }
      await user.umbel(['send', 'acct', 'FAIL 401 Incorrect API key provided']);
      const refused = await waitJson();
      expect(refused.code, refused.stderr).toBe(119);
      expect(refused.outcome.message).toContain('unexpected status 401 Unauthorized');
      const before = Date.now();
      await user.umbel(['send', 'acct', 'FAIL 429 limit=usage reset=3600 You have hit your usage limit']);
      const plan = await waitJson();
      expect(plan.code, plan.stderr).toBe(118);
      expect(plan.outcome).toMatchObject({ reason: 'rate-limited', limit: 'usage_limit_exceeded' });
      expect(Date.parse(plan.outcome.resetsAt)).toBeGreaterThanOrEqual(before + 3_500_000);
      await user.umbel(['kill', 'acct']);
      const p = await user.umbel(['-p', 'FAIL 401 Incorrect API key provided', '--output-format', 'json', ...codexArgs]);
      expect(p.code, p.stderr).toBe(119);
      expect(JSON.parse(p.stdout)).toMatchObject({ is_error: true, terminal_reason: 'api_error', umbel: { reason: 'auth-failed', exit_code: 119 } });
    },
    T,
  );

  it(
    'plan usage: a QUOTA turn → wait --json quota and status --json quota (percents, resets); a plan limit carries its used-up window, and the next send + wait complete (no "Approaching rate limits" dialog)',
    async () => {
      const user = await freshUser();
      expect((await user.umbel(['spawn', 'plan', ...codexArgs])).code).toBe(0);
      const waitJson = async () => {
        const r = await user.umbel(['wait', 'plan', '--json', '--timeout', '240s']);
        return { code: r.code, outcome: JSON.parse(r.stdout) as Json, stderr: r.stderr };
      };
      const resets = (w: { resetsAt: string }) => Date.parse(w.resetsAt) / 1000;
      const before = Math.floor(Date.now() / 1000);
      await user.umbel(['send', 'plan', 'QUOTA 5h=42@3600 7d=13@86400 ECHO with usage']);
      const done = await waitJson();
      const after = Math.ceil(Date.now() / 1000);
      expect(done.code, done.stderr).toBe(0);
      expect(done.outcome).toMatchObject({
        reason: 'completed',
        result: 'with usage',
        quota: { fiveHour: { usedPercent: 42 }, sevenDay: { usedPercent: 13 } },
      });
      const { fiveHour, sevenDay } = done.outcome.quota;
      expect(resets(fiveHour)).toBeGreaterThanOrEqual(before + 3600 - 1);
      expect(resets(fiveHour)).toBeLessThanOrEqual(after + 3600 + 1);
      expect(resets(sevenDay)).toBeGreaterThanOrEqual(before + 86400 - 1);
      expect(resets(sevenDay)).toBeLessThanOrEqual(after + 86400 + 1);
      const status = JSON.parse((await user.umbel(['status', 'plan', '--json'])).stdout);
      expect(status.quota).toMatchObject({ fiveHour, sevenDay });

      await user.umbel(['send', 'plan', 'FAIL 429 limit=usage reset=7200 You have hit your usage limit']);
      const limited = await waitJson();
      expect(limited.code, limited.stderr).toBe(118);
      expect(limited.outcome).toMatchObject({ reason: 'rate-limited', quota: { fiveHour: { usedPercent: 100 } } });
      expect(limited.outcome.quota.fiveHour.resetsAt).toBe(limited.outcome.resetsAt);
      expect(JSON.parse((await user.umbel(['status', 'plan', '--json'])).stdout).quota).toMatchObject({ fiveHour: { usedPercent: 100 } });

      // the real codex opens its blocking model-switch dialog here unless [notice] hides it (ACCOUNT-FACTS §2.2)
      const sent = await user.umbel(['send', 'plan', 'ECHO after the limit']);
      expect(sent.code, sent.stderr).toBe(0);
      const next = await waitJson();
      expect(next.code, next.stderr).toBe(0);
      expect(next.outcome).toMatchObject({ reason: 'completed', result: 'after the limit' });
      expect(turnsFor('ECHO after the limit')).toHaveLength(1);
      expect((await user.umbel(['capture', 'plan'])).stdout).not.toMatch(/Approaching rate limits|gpt-6-luna/i);
    },
    T,
  );
});
