/**
 * End to end on real tmux with `--provider codex`: the built `umbel` bin drives the FAKE codex
 * from test-fixtures (UMBEL_CODEX_BIN = test-fixtures/bin/codex) through the tmux substrate and
 * the codex provider, on every face (supervisor verbs and `umbel -p`). Needs `pnpm build` (the
 * root `pnpm test` builds first). Facts: /work/shared/reference/codex.md; the fake's knobs are in
 * test-fixtures/fake-codex/main.mjs.
 *
 * The "user" here has their own CODEX_HOME (a custom model provider with an `env_key`, an
 * auth.json and an AGENTS.md); umbel must run every worker from its managed home and leave the
 * user's files byte-identical. The project is a git repo, so the "Trust this folder?" dialog
 * would show unless umbel pre-trusts the cwd.
 */
import { existsSync } from 'node:fs';
import { cp, lstat, mkdir, mkdtemp, readdir, readFile, readlink, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTmuxSubstrate } from '@umbel/tmux';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun, UmbelStart } from '../../../test-fixtures/real/umbel-helpers.mjs';
import {
  assertBuilt,
  cleanUp,
  codexMockConfig,
  REPO_ROOT,
  runCommand,
  snapshotTree,
  testEnv,
  umbelRunner,
  workerProcesses,
  teardownsDone,
} from '../../../test-fixtures/real/umbel-helpers.mjs';

const fakeCodex = join(REPO_ROOT, 'test-fixtures/bin/codex');
const KEY_NAME = 'MOCK_API_KEY';
const KEY_VALUE = 'sk-fake-codex-e2e-not-a-secret';
let scratch: string;
let home: string;
let work: string;
let userCodexHome: string;
let env: Record<string, string>;
let userSnapshot: Map<string, string>;
let umbel: UmbelRun;
let startUmbel: UmbelStart;

/** Every spawn / -p names the provider and passes the model provider's key by name. */
const codexArgs = ['--provider', 'codex', '--env', KEY_NAME];
/** Per-test budget: several spawns on a loaded 2-core CI box (nothing asserts on time). */
const T = 300_000;

interface RolloutLine {
  type: string;
  payload: Record<string, unknown> & { type?: string; item?: { type?: string; content?: { text?: string }[] } };
}

async function rolloutOf(name: string): Promise<RolloutLine[]> {
  const status = JSON.parse((await umbel(['status', name, '--json'])).stdout);
  expect(status.transcriptPath).toMatch(/\/providers\/codex\/home\/sessions\/.*\/rollout-.*\.jsonl$/);
  return (await readFile(status.transcriptPath, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** The prompts codex received, from the rollout's UserMessage items. */
const promptsIn = (lines: RolloutLine[]) =>
  lines
    .filter((l) => l.type === 'event_msg' && l.payload.type === 'item_completed' && l.payload.item?.type === 'UserMessage')
    .map((l) => l.payload.item?.content?.[0]?.text);

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-e2e-codex-')));
  home = join(scratch, 'state');
  work = join(scratch, 'project');
  userCodexHome = join(scratch, 'user-codex-home');
  await mkdir(join(work, '.git'), { recursive: true });
  await mkdir(join(scratch, 'home'), { recursive: true });
  await mkdir(userCodexHome, { recursive: true });
  // A custom model provider (no sign-in screen); the fake answers locally and never dials it.
  await writeFile(
    join(userCodexHome, 'config.toml'),
    `# the user's own codex config\n${codexMockConfig({ baseUrl: 'http://127.0.0.1:9/v1', envKey: KEY_NAME, tail: ['[tui]', 'screen_reader_detection_done = true', ''] })}`,
  );
  await writeFile(join(userCodexHome, 'auth.json'), '{"auth_mode":"apikey","OPENAI_API_KEY":"sk-user-own"}\n', { mode: 0o600 });
  await writeFile(join(userCodexHome, 'AGENTS.md'), "# the user's agent notes\n");
  userSnapshot = await snapshotTree(userCodexHome);
  env = testEnv({ home: join(scratch, 'home'), umbelHome: home, UMBEL_CODEX_BIN: fakeCodex, CODEX_HOME: userCodexHome, [KEY_NAME]: KEY_VALUE });
  ({ run: umbel, start: startUmbel } = umbelRunner({ cwd: work, env }));
});

/**
 * Sweep any session left on the state root's tmux socket through the substrate (the only code
 * allowed to run tmux), after every worker was killed through the CLI. Loud when one survived.
 */
async function noSessionLeft(): Promise<void> {
  const substrate = createTmuxSubstrate({ home, env });
  const left = await substrate.list();
  for (const session of left) await substrate.kill(session);
  if (left.length > 0) throw new Error(`sessions survived \`umbel kill\`: ${left.join(', ')}`);
}

afterAll(() => cleanUp({ workers: [umbel], verify: home ? [noSessionLeft] : [], reap: [scratch], remove: [scratch] }), T);

describe('supervisor verbs with --provider codex on the fake codex', () => {
  it(
    'spawn → send → wait returns the exact answer, turn after turn',
    async () => {
      expect(await umbel(['spawn', 'w1', ...codexArgs])).toMatchObject({ code: 0, stdout: 'w1\n' });
      expect(await umbel(['send', 'w1', 'ECHO first answer'])).toMatchObject({ code: 0, stdout: '1\n' });
      expect(await umbel(['wait', 'w1', '--timeout', '90s'])).toMatchObject({ code: 0, stdout: 'first answer\n' });
      expect((await umbel(['send', 'w1', 'ECHO second answer'])).stdout).toBe('2\n');
      const second = JSON.parse((await umbel(['wait', 'w1', '--json', '--timeout', '90s'])).stdout);
      expect(second).toMatchObject({ reason: 'completed', result: 'second answer', turn: 2, provider: 'codex' });
      expect(second.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/); // codex's thread id (UUIDv7)
      expect((await umbel(['read', 'w1', '--turn', '1'])).stdout).toBe('first answer\n');
      expect((await umbel(['ls'])).stdout).toMatch(/w1\s+codex\s+ready\s+2\/2/);
      // one rollout, two turns, each ended by codex's own task_complete
      const lines = await rolloutOf('w1');
      expect(promptsIn(lines)).toEqual(['ECHO first answer', 'ECHO second answer']);
      expect(lines.filter((l) => l.payload.type === 'task_complete').map((l) => l.payload.last_agent_message)).toEqual(['first answer', 'second answer']);
    },
    T,
  );

  it(
    'a multi-line prompt arrives exact and its answer is exact',
    async () => {
      await umbel(['spawn', 'multi', ...codexArgs]);
      const body = 'line one\nline "two" with $HOME and `ticks`\n\n  indented ünïcödé 🚀\ttab; a\\b';
      await umbel(['send', 'multi', `ECHO ${body}`]);
      const outcome = JSON.parse((await umbel(['wait', 'multi', '--json', '--timeout', '90s'])).stdout);
      expect(outcome).toMatchObject({ reason: 'completed', result: body });
      // CRLF is normalised to LF before pasting (codex would turn each CR into a newline of its own)
      await umbel(['send', 'multi', 'ECHO crlf one\r\ncrlf two']);
      expect((await umbel(['wait', 'multi', '--timeout', '90s'])).stdout).toBe('crlf one\ncrlf two\n');
      expect(promptsIn(await rolloutOf('multi'))).toEqual([`ECHO ${body}`, 'ECHO crlf one\ncrlf two']);
    },
    T,
  );

  it(
    'prompts starting with / or ! are delivered as text, not run as commands',
    async () => {
      await umbel(['spawn', 'bang', ...codexArgs]);
      await umbel(['send', 'bang', '/not-a-command please']);
      expect(await umbel(['wait', 'bang', '--timeout', '90s'])).toMatchObject({ code: 0, stdout: 'MOCK-REPLY: /not-a-command please\n' });
      await umbel(['send', 'bang', '!touch bang-ran.txt']);
      expect(await umbel(['wait', 'bang', '--timeout', '90s'])).toMatchObject({ code: 0, stdout: 'MOCK-REPLY: !touch bang-ran.txt\n' });
      expect(existsSync(join(work, 'bang-ran.txt'))).toBe(false); // no local shell command ran
      const lines = await rolloutOf('bang');
      expect(promptsIn(lines)).toEqual(['/not-a-command please', '!touch bang-ran.txt']);
      expect(JSON.stringify(lines)).not.toContain('<user_shell_command>');
    },
    T,
  );

  it(
    'an approval prompt is needs-input (126); `umbel keys` approves it and the turn completes',
    async () => {
      await umbel(['spawn', 'perm', ...codexArgs, '--permission-mode', 'on-request']);
      await umbel(['send', 'perm', 'ASK touch approved-by-keys.txt; echo approved']);
      const blocked = await umbel(['wait', 'perm', '--json', '--timeout', '90s']);
      expect(blocked.code).toBe(126);
      expect(JSON.parse(blocked.stdout)).toMatchObject({
        reason: 'needs-input',
        inputKind: 'permission',
        tool: 'Bash',
        message: 'Mock wants to run: touch approved-by-keys.txt; echo approved',
      });
      expect(existsSync(join(work, 'approved-by-keys.txt'))).toBe(false);
      expect((await umbel(['status', 'perm'])).stdout).toMatch(/state:\s+needs-input/);
      expect(await umbel(['keys', 'perm', 'y'])).toMatchObject({ code: 0 });
      expect(await umbel(['wait', 'perm', '--timeout', '90s'])).toMatchObject({ code: 0, stdout: 'TOOL-RESULT: approved\n' });
      expect(existsSync(join(work, 'approved-by-keys.txt'))).toBe(true);
    },
    T,
  );

  it(
    'an API error fires no hook, yet the wait ends as provider-error (122) before its timeout; the worker lives on',
    async () => {
      await umbel(['spawn', 'err', ...codexArgs]);
      await umbel(['send', 'err', 'FAIL 500 upstream exploded']);
      const r = await umbel(['wait', 'err', '--json', '--timeout', '120s']);
      expect(r.code).toBe(122);
      const outcome = JSON.parse(r.stdout);
      expect(outcome).toMatchObject({ reason: 'provider-error', turn: 1 });
      expect(outcome.message).toContain('experiencing high demand');
      // the only signal was the rollout's task_complete{error}: no stop/interrupt event was written
      const kinds = (await umbel(['logs', 'err', '--json'])).stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { kind: string }).kind);
      expect(kinds).toContain('prompt');
      expect(kinds.filter((k: string) => k === 'stop' || k === 'stop-failure' || k === 'interrupt')).toEqual([]);
      await umbel(['send', 'err', 'ECHO still alive']);
      expect(await umbel(['wait', 'err', '--timeout', '90s'])).toMatchObject({ code: 0, stdout: 'still alive\n' });
    },
    T,
  );

  it(
    'account failures from the rollout: a 429 (with and without retry-after) is rate-limited (118), a 401 auth-failed (119), a plan limit carries resetsAt; on wait and -p',
    async () => {
      await umbel(['spawn', 'acct', ...codexArgs]);
      for (const prompt of ['FAIL 429 retry-after=2 Rate limit reached for requests', 'FAIL 429 Rate limit reached for requests']) {
        await umbel(['send', 'acct', prompt]);
        const r = await umbel(['wait', 'acct', '--json', '--timeout', '120s']);
        expect(r.code, r.stderr).toBe(118);
        const outcome = JSON.parse(r.stdout);
        expect(outcome).toMatchObject({ reason: 'rate-limited', message: 'exceeded retry limit, last status: 429 Too Many Requests' });
        expect(outcome).not.toHaveProperty('resetsAt');
      }
      await umbel(['send', 'acct', 'FAIL 401 Incorrect API key provided']);
      const refused = await umbel(['wait', 'acct', '--timeout', '120s']);
      expect(refused.code).toBe(119);
      expect(refused.stderr).toContain('unexpected status 401 Unauthorized');
      expect(refused.stderr).toContain('sign in again');
      const before = Date.now();
      await umbel(['send', 'acct', 'FAIL 429 limit=usage reset=3600 You have hit your usage limit']);
      const plan = await umbel(['wait', 'acct', '--json', '--timeout', '120s']);
      expect(plan.code, plan.stderr).toBe(118);
      const limited = JSON.parse(plan.stdout);
      expect(limited).toMatchObject({ reason: 'rate-limited', limit: 'usage_limit_exceeded' });
      expect(Date.parse(limited.resetsAt)).toBeGreaterThanOrEqual(before + 3_500_000);
      expect(Date.parse(limited.resetsAt)).toBeLessThanOrEqual(Date.now() + 3_700_000);
      await umbel(['kill', 'acct']);
      const json = await umbel(['-p', 'FAIL 429 limit=usage reset=3600 You have hit your usage limit', '--output-format', 'json', ...codexArgs]);
      expect(json.code, json.stderr).toBe(118);
      const result = JSON.parse(json.stdout);
      expect(result).toMatchObject({ is_error: true, terminal_reason: 'api_error', umbel: { reason: 'rate-limited', exit_code: 118 } });
      expect(Date.parse(result.umbel.resets_at)).toBeGreaterThan(Date.now() + 3_000_000);
      const text = await umbel(['-p', 'FAIL 403 Country, region, or territory not supported', ...codexArgs]);
      expect(text.code).toBe(119);
      expect(text.stdout).toContain('unexpected status 403 Forbidden');
    },
    T,
  );
  it(
    'plan usage from the rollout (token_count.rate_limits) in the outcome, status and ls --json, on completed and failed turns; after a plan limit no model-switch dialog eats the next send',
    async () => {
      await umbel(['spawn', 'quota', ...codexArgs]);
      expect(JSON.parse((await umbel(['status', 'quota', '--json'])).stdout)).not.toHaveProperty('quota');
      const before = Math.floor(Date.now() / 1000);
      await umbel(['send', 'quota', 'QUOTA 5h=42@3600 7d=13@86400 ECHO with usage']);
      const done = await umbel(['wait', 'quota', '--json', '--timeout', '90s']);
      expect(done.code, done.stderr).toBe(0);
      const after = Math.ceil(Date.now() / 1000);
      const outcome = JSON.parse(done.stdout);
      expect(outcome).toMatchObject({ reason: 'completed', result: 'with usage', quota: { fiveHour: { usedPercent: 42 }, sevenDay: { usedPercent: 13 } } });
      const resets = (w: { resetsAt: string }) => Date.parse(w.resetsAt) / 1000;
      expect(resets(outcome.quota.fiveHour)).toBeGreaterThanOrEqual(before + 3600 - 1);
      expect(resets(outcome.quota.fiveHour)).toBeLessThanOrEqual(after + 3600 + 1);
      expect(resets(outcome.quota.sevenDay)).toBeGreaterThanOrEqual(before + 86400 - 1);
      const status = JSON.parse((await umbel(['status', 'quota', '--json'])).stdout);
      expect(status.quota).toMatchObject({ fiveHour: outcome.quota.fiveHour, sevenDay: outcome.quota.sevenDay });
      const listed = JSON.parse((await umbel(['ls', '--json'])).stdout).find((w: { name: string }) => w.name === 'quota');
      expect(listed.quota).toMatchObject({ fiveHour: { usedPercent: 42 } });

      await umbel(['send', 'quota', 'FAIL 429 limit=usage reset=7200 You have hit your usage limit']);
      const limited = await umbel(['wait', 'quota', '--json', '--timeout', '90s']);
      expect(limited.code, limited.stderr).toBe(118);
      const failed = JSON.parse(limited.stdout);
      expect(failed).toMatchObject({ reason: 'rate-limited', quota: { fiveHour: { usedPercent: 100 }, sevenDay: { usedPercent: 13 } } });
      expect(failed.quota.fiveHour.resetsAt).toBe(failed.resetsAt);
      expect(JSON.parse((await umbel(['status', 'quota', '--json'])).stdout).quota).toMatchObject({ fiveHour: { usedPercent: 100 } });

      // the fake, like the real codex, opens "Approaching rate limits" here unless [notice] hides it
      expect((await umbel(['capture', 'quota'])).stdout).not.toContain('Approaching rate limits');
      const sent = await umbel(['send', 'quota', 'ECHO after the limit']);
      expect(sent.code, sent.stderr).toBe(0);
      expect(await umbel(['wait', 'quota', '--timeout', '90s'])).toMatchObject({ code: 0, stdout: 'after the limit\n' });
      await umbel(['kill', 'quota']);
    },
    T,
  );
  it(
    'kill leaves no codex process of the worker (daemon included); the tombstone still reads',
    async () => {
      await umbel(['spawn', 'gone', ...codexArgs]);
      await umbel(['send', 'gone', 'ECHO remember me']);
      expect((await umbel(['wait', 'gone', '--timeout', '90s'])).stdout).toBe('remember me\n');
      const before = workerProcesses(home, 'gone');
      expect(before.some((p) => p.args.includes('fake-codex/main.mjs'))).toBe(true);
      expect(await umbel(['kill', 'gone'])).toMatchObject({ code: 0, stdout: 'killed: gone\n' });
      expect(workerProcesses(home, 'gone')).toEqual([]);
      // the managed home never started codex's app-server daemon
      expect(existsSync(join(home, 'providers/codex/home/fake-codex-daemon.pids'))).toBe(false);
      expect((await umbel(['read', 'gone'])).stdout).toBe('remember me\n');
      expect((await umbel(['status', 'gone'])).stdout).toMatch(/state:\s+killed/);
    },
    T,
  );
});

describe('umbel -p --provider codex on the fake codex', () => {
  it(
    'text output equals what `codex exec` prints for the same prompt',
    async () => {
      const prompt = 'ECHO same answer\nacross two lines';
      const execHome = join(scratch, 'exec-codex-home'); // codex exec writes sessions: use a copy
      await cp(userCodexHome, execHome, { recursive: true });
      const exec = await runCommand(fakeCodex, ['exec', '--skip-git-repo-check', prompt], { cwd: work, env: { ...env, CODEX_HOME: execHome } });
      expect(exec.code).toBe(0);
      expect(exec.stdout).toBe('same answer\nacross two lines\n');
      const print = await umbel(['-p', prompt, ...codexArgs]);
      expect(print, print.stderr).toMatchObject({ code: 0, stdout: exec.stdout });
      const dflt = await umbel(['-p', 'hello there', ...codexArgs]);
      expect(dflt.stdout).toBe(
        (await runCommand(fakeCodex, ['exec', '--skip-git-repo-check', 'hello there'], { cwd: work, env: { ...env, CODEX_HOME: execHome } })).stdout,
      );
    },
    T,
  );

  it(
    'json follows the Claude result contract; an API error is is_error with exit 1',
    async () => {
      const ok = await umbel(['-p', 'ECHO as json', '--output-format', 'json', ...codexArgs]);
      expect(ok.code, ok.stderr).toBe(0);
      const json = JSON.parse(ok.stdout);
      expect(json).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'as json', provider: 'codex', num_turns: 1 });
      expect(json.session_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(Object.keys(json.usage)).toEqual(
        expect.arrayContaining(['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens']),
      );
      expect(json.usage).not.toHaveProperty('cached_input_tokens'); // codex's name for cache reads is mapped
      expect(json.usage.input_tokens).toBeGreaterThan(0);
      const failed = await umbel(['-p', 'FAIL 500 boom', '--output-format', 'json', ...codexArgs]);
      expect(failed.code).toBe(1);
      expect(JSON.parse(failed.stdout)).toMatchObject({ type: 'result', is_error: true, terminal_reason: 'api_error', umbel: { reason: 'provider-error' } });
      const text = await umbel(['-p', 'FAIL 500 boom', ...codexArgs]);
      expect(text.code).toBe(1);
      expect(text.stdout).toContain('experiencing high demand');
    },
    T,
  );

  it(
    'stream-json: init, the tool call and its result, then the result; one session id throughout',
    async () => {
      const r = await umbel(['-p', 'TOOL echo streamed', '--output-format', 'stream-json', '--verbose', ...codexArgs]);
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init', provider: 'codex' });
      const assistant = lines.filter((l) => l.type === 'assistant');
      expect(assistant.map((l) => l.message.content[0].type)).toEqual(['tool_use', 'text']);
      expect(assistant[1].message.content[0].text).toBe('TOOL-RESULT: streamed');
      // like `claude -p`: user lines carry tool results only, never the prompt itself
      const user = lines.filter((l) => l.type === 'user');
      expect(user.map((l) => l.message.content[0].type)).toEqual(['tool_result']);
      const result = lines.at(-1);
      expect(result).toMatchObject({ type: 'result', subtype: 'success', result: 'TOOL-RESULT: streamed', num_turns: 2 });
      expect(result.session_id).toMatch(/^[0-9a-f-]{36}$/);
      // `claude -p` stamps every line with the session id of its result
      expect(lines.slice(0, -1).map((l) => l.session_id)).toEqual(lines.slice(0, -1).map(() => result.session_id));
    },
    T,
  );

  it(
    'leaves no anonymous worker and no codex process behind; SIGTERM mid-turn too',
    async () => {
      await teardownsDone(home); // -p exited with its answer; its worker goes after, in a detached process
      const workers = JSON.parse((await umbel(['ls', '--json'])).stdout).map((w: { name: string }) => w.name);
      expect(workers.filter((n: string) => n.startsWith('anon-'))).toEqual([]);
      const before = new Set(await readdir(join(home, 'workers')));
      const pending = startUmbel(['-p', 'DELAY 600000 ECHO never', ...codexArgs]);
      let anon: string | undefined;
      // event-driven enough: the worker dir appears at spawn, its prompt event once the turn runs
      for (let i = 0; i < 1200 && !anon; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const fresh = (await readdir(join(home, 'workers'))).find((n) => !before.has(n) && n.startsWith('anon-'));
        if (fresh && (await readdir(join(home, 'workers', fresh, 'events')).catch(() => [] as string[])).some((f) => f.includes('-prompt'))) anon = fresh;
      }
      expect(anon).toBeDefined();
      pending.child.kill('SIGTERM');
      expect((await pending.done).code).toBe(143);
      expect(await readdir(join(home, 'workers'))).not.toContain(anon);
      expect(workerProcesses(home, anon as string)).toEqual([]);
    },
    T,
  );
});

describe("the user's own CODEX_HOME", () => {
  it(
    'is byte-identical after every scenario above; auth.json and AGENTS.md are linked, not copied',
    async () => {
      expect(await snapshotTree(userCodexHome)).toEqual(userSnapshot);
      const managed = join(home, 'providers/codex/home');
      expect((await lstat(join(managed, 'auth.json'))).isSymbolicLink()).toBe(true);
      expect(await readlink(join(managed, 'auth.json'))).toBe(join(userCodexHome, 'auth.json'));
      expect(await readlink(join(managed, 'AGENTS.md'))).toBe(join(userCodexHome, 'AGENTS.md'));
      const config = await readFile(join(managed, 'config.toml'), 'utf8');
      expect(config).toContain('model_provider = "mock"');
      expect(config).toContain(`[projects."${work}"]`);
      expect(config).toMatch(/daemon_auto_start = false/);
      // the key travelled by name in the env buffer, never into a file umbel wrote
      for (const file of ['config.toml', 'hooks.json']) expect(await readFile(join(managed, file), 'utf8')).not.toContain(KEY_VALUE);
    },
    T,
  );
});

describe('evidence verbs and CLI commands on the fake codex', () => {
  it(
    'actions: the shell command of a tool turn; diff: a broken .git only costs the snapshot, never the send',
    async () => {
      expect((await umbel(['spawn', 'ev', ...codexArgs])).code).toBe(0);
      await umbel(['send', 'ev', 'TOOL echo from codex']);
      expect(await umbel(['wait', 'ev', '--timeout', '90s'])).toMatchObject({ code: 0, stdout: 'TOOL-RESULT: from codex\n' });
      const actions = JSON.parse((await umbel(['actions', 'ev', '--json'])).stdout);
      expect(actions).toMatchObject({
        provider: 'codex',
        toolsUsed: { exec_command: 1 },
        shellCommands: ['echo from codex'],
        errors: [],
        finalMessage: 'TOOL-RESULT: from codex',
      });
      // the project's .git is broken (a HEAD but no repository): git fails, only the snapshot is lost
      await writeFile(join(work, '.git', 'HEAD'), 'not a ref\n');
      await umbel(['send', 'ev', 'ECHO after the broken .git']);
      expect(await umbel(['wait', 'ev', '--timeout', '90s'])).toMatchObject({ code: 0, stdout: 'after the broken .git\n' });
      const diff = JSON.parse((await umbel(['diff', 'ev', '--json'])).stdout);
      expect(diff).toMatchObject({ method: 'transcript', files: [] });
      expect(diff.note).toMatch(/^the snapshot of turn 2 failed \(git rev-parse failed: .*not a git repository/);
      await rm(join(work, '.git', 'HEAD'));
    },
    T,
  );

  it(
    'a prompt starting with / is text; --command runs it, with no model turn',
    async () => {
      await umbel(['spawn', 'cmd', ...codexArgs]);
      expect((await umbel(['send', 'cmd', '/status please'])).stdout).toBe('1\n');
      expect((await umbel(['wait', 'cmd', '--timeout', '90s'])).stdout).toBe('MOCK-REPLY: /status please\n');
      const ran = await umbel(['send', 'cmd', '--command', '/status', '--json']);
      expect(JSON.parse(ran.stdout)).toEqual({ worker: 'cmd', turn: 2, command: true, modelTurn: false });
      expect((await umbel(['capture', 'cmd'])).stdout).toContain('Session:');
      expect((await umbel(['send', 'cmd', 'ECHO after the command'])).stdout).toBe('3\n');
      expect((await umbel(['wait', 'cmd', '--timeout', '90s'])).stdout).toBe('after the command\n');
    },
    T,
  );
});
