// Real-CLI tier: the REAL pinned `opencode` (opencode-ai 1.18.33; pnpm install:real-clis --only
// opencode) driven by the built `umbel` bin with `--provider opencode` (UMBEL_OPENCODE_BIN = the
// absolute path of the pinned native binary), its model API served by the local chat-completions mock
// on 127.0.0.1 (test-fixtures/mock-servers/openai-chat.mjs): opencode's own `bash` tool runs for the
// permission tests. No network, no model service. When the binary is not installed these tests FAIL
// (realCliPath throws), they never skip. Needs `pnpm build`.
//
// Every test plays a fresh user: ~/.config/opencode/opencode.json names the mock as a provider (its
// key in the file) — and that dir was NEVER installed online, so the plugin-install trap would stall
// every start by ~70 s unless umbel defuses it (FACTS.md §a). Start times are printed, not asserted.
import { existsSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedOpencodeUser } from '../../test-fixtures/fake-opencode/seed.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { startChatMock } from '../../test-fixtures/mock-servers/openai-chat.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins, realCliPath } from '../../test-fixtures/real/clis.mjs';
import type { UmbelRun } from '../../test-fixtures/real/umbel-helpers.mjs';
import {
  assertBuilt,
  cleanUp,
  connectUmbelMcp,
  processesOf,
  purgeWorkers,
  runCommand,
  snapshotTree,
  testEnv,
  umbelRunner,
  workerProcesses,
} from '../../test-fixtures/real/umbel-helpers.mjs';

type Json = any;
type Mock = { url: string; requests: () => Array<Record<string, Json>>; close: () => Promise<void> };

/** Per-test budget: the real opencode on a loaded 2-core CI box (nothing asserts on time). */
const T = 420_000;
const PIN = readPins().opencode;
const oc = ['--provider', 'opencode'];
/** `umbel -p` with opencode: the 60 s default start budget is too short for the real CLI on a loaded 2-core box. */
const ocPrint = [...oc, '--startup-timeout', '180s'];

let opencode: string;
let mock: Mock;
let scratch: string;
const users: User[] = [];
const clients: Json[] = [];

interface User {
  dir: string;
  state: string;
  work: string;
  configDir: string;
  env: Record<string, string>;
  umbel: UmbelRun;
  snapshot: Map<string, string>;
}

/** A fresh user whose opencode config names the mock and was never installed; own umbel state root; a git project. */
async function freshUser(): Promise<User> {
  if (!opencode) opencode = realCliPath('opencode'); // throws "run `pnpm install:real-clis`" when missing: fail, never skip
  const dir = await mkdtemp(join(scratch, 'user-'));
  const state = join(dir, 'state');
  const work = join(dir, 'project');
  await mkdir(join(work, '.git'), { recursive: true });
  const seeded = seedOpencodeUser({ home: join(dir, 'home'), baseUrl: mock.url, installed: false });
  const configDir = join(dir, 'home', '.config', 'opencode');
  const env = testEnv({ home: join(dir, 'home'), umbelHome: state, UMBEL_OPENCODE_BIN: opencode, TERM: 'xterm-256color', ...seeded });
  const user: User = { dir, state, work, configDir, env, umbel: umbelRunner({ cwd: work, env }).run, snapshot: await snapshotTree(configDir) };
  users.push(user);
  return user;
}

/** Spawn and print how long the real opencode took to take input (reported, never asserted). */
async function spawn(user: User, name: string, extra: string[] = []): Promise<void> {
  const started = Date.now();
  const r = await user.umbel(['spawn', name, ...oc, '--startup-timeout', '180s', ...extra]);
  expect(r, r.stderr).toMatchObject({ code: 0, stdout: `${name}\n` });
  console.log(`[opencode ${PIN.version}] ${name}: spawn → ready in ${Date.now() - started} ms (offline, user config dir never installed)`);
}

async function waitJson(user: User, name: string, timeout = '150s'): Promise<{ code: number; outcome: Json }> {
  const r = await user.umbel(['wait', name, '--json', '--timeout', timeout]);
  return { code: r.code, outcome: JSON.parse(r.stdout) };
}

/** opencode processes whose cwd is `dir` (a worker's, or one a run left behind). */
const opencodeIn = (dir: string) => processesOf({ cwd: dir }).filter((p) => p.args.includes(opencode));

/** The user turns the mock received for a prompt (the title side request excluded). */
const turnsFor = (prompt: string) => mock.requests().filter((q) => q.kind === 'turn' && q.prompt === prompt);

/** The user config dir is untouched by umbel: only the .gitignore opencode itself writes there may appear. */
async function untouched(user: User): Promise<void> {
  const after = await snapshotTree(user.configDir);
  expect([...after.keys()].filter((k) => !user.snapshot.has(k) && !k.startsWith('/.gitignore '))).toEqual([]);
  for (const [k, v] of user.snapshot) expect(after.get(k), k).toBe(v);
}

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.js', 'packages/provider-opencode/dist/index.js', 'packages/mcp/dist/bin.js', 'packages/workflow/dist/index.js']);
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-real-opencode-')));
  mock = await startChatMock();
}, T);

afterAll(() => cleanUp({ disconnect: clients, workers: users.map((u) => u.umbel), reap: [scratch], close: [mock], remove: [scratch] }), T);

describe(`umbel --provider opencode on the real ${PIN.package}@${PIN.version} against the chat-completions mock`, () => {
  it(
    'is the pinned version, and `umbel providers` lists it as verified',
    async () => {
      const user = await freshUser();
      expect((await runCommand(opencode, ['--version'], { cwd: user.work, env: user.env })).stdout.trim()).toBe(PIN.version);
      const report = JSON.parse((await user.umbel(['providers', '--json'])).stdout);
      const entry = report.providers.find((p: Json) => p.id === 'opencode');
      expect(entry).toMatchObject({
        id: 'opencode',
        source: 'built-in',
        packageName: '@umbel/provider-opencode',
        binary: { status: 'found', path: opencode, version: PIN.version },
        verifiedVersions: [PIN.version],
      });
    },
    T,
  );

  it(
    'two turns exact, a multi-line prompt exact; the model got each prompt byte-exact, once; the user config is untouched',
    async () => {
      const user = await freshUser();
      await spawn(user, 'w1');
      expect((await user.umbel(['send', 'w1', 'ECHO first `answer` **bold**'])).stdout).toBe('1\n');
      expect(await user.umbel(['wait', 'w1', '--timeout', '150s'])).toMatchObject({ code: 0, stdout: 'first `answer` **bold**\n' });
      expect((await user.umbel(['send', 'w1', 'ECHO second answer'])).stdout).toBe('2\n');
      const second = await waitJson(user, 'w1');
      expect(second.outcome).toMatchObject({ reason: 'completed', result: 'second answer', turn: 2, provider: 'opencode' });
      expect(second.outcome.sessionId).toMatch(/^ses_/);
      const body = '  leading spaces\nline "two" with $HOME and `ticks`\n\n\tindented ünïcödé 🚀\ttab  ';
      expect((await user.umbel(['send', 'w1', `ECHO ${body}`])).stdout).toBe('3\n');
      expect((await waitJson(user, 'w1')).outcome).toMatchObject({ reason: 'completed', result: body });
      for (const p of ['ECHO first `answer` **bold**', 'ECHO second answer', `ECHO ${body}`]) expect(turnsFor(p)).toHaveLength(1);
      expect((await user.umbel(['read', 'w1', '--turn', '1'])).stdout).toBe('first `answer` **bold**\n');
      // the transcript is opencode's stored session (what `opencode export` prints), as the plugin fetched it
      const doc = JSON.parse(await readFile(second.outcome.transcriptPath, 'utf8'));
      const exported = await runCommand(opencode, ['export', second.outcome.sessionId], { cwd: user.work, env: user.env });
      expect(exported.code, exported.stderr).toBe(0);
      const exportDoc = JSON.parse(exported.stdout);
      expect(doc.messages.map((m: Json) => m.info.id)).toEqual(exportDoc.messages.map((m: Json) => m.info.id));
      expect(doc.messages.map((m: Json) => m.parts.filter((p: Json) => p.type === 'text').map((p: Json) => p.text))).toEqual(
        exportDoc.messages.map((m: Json) => m.parts.filter((p: Json) => p.type === 'text').map((p: Json) => p.text)),
      );
      await untouched(user);
      await purgeWorkers(user.umbel);
    },
    T,
  );

  it(
    "a permission for opencode's bash tool is needs-input (126); `umbel keys Enter` approves it and the turn completes",
    async () => {
      const user = await freshUser();
      await spawn(user, 'perm', ['--permission-mode', 'ask']);
      await user.umbel(['send', 'perm', 'TOOL touch approved-by-keys.txt; echo approved']);
      const blocked = await waitJson(user, 'perm');
      expect(blocked.code, JSON.stringify(blocked.outcome)).toBe(126);
      expect(blocked.outcome).toMatchObject({
        reason: 'needs-input',
        inputKind: 'permission',
        tool: 'bash',
        message: 'opencode asks to use bash: touch approved-by-keys.txt; echo approved',
      });
      expect(blocked.outcome.paneTail).toContain('△ Permission required');
      expect(existsSync(join(user.work, 'approved-by-keys.txt'))).toBe(false);
      expect((await user.umbel(['keys', 'perm', 'Enter'])).code).toBe(0);
      const done = await user.umbel(['wait', 'perm', '--timeout', '150s']);
      expect(done, done.stderr).toMatchObject({ code: 0, stdout: 'TOOL-RESULT: approved\n' });
      expect(existsSync(join(user.work, 'approved-by-keys.txt'))).toBe(true);
      // the command the mock asked for ran through opencode's bash tool
      expect(mock.requests().some((q) => q.kind === 'tool-result' && q.toolOutput === 'approved\n')).toBe(true);
      await purgeWorkers(user.umbel);
    },
    T,
  );

  it(
    'an API error is provider-error (122) with its message, a 401 auth-failed (119); a retrying one is stopped after 2 retries, reported; the worker answers again',
    async () => {
      const user = await freshUser();
      await spawn(user, 'err');
      await user.umbel(['send', 'err', 'FAIL 400 real bad request']);
      expect(await waitJson(user, 'err')).toMatchObject({
        code: 122,
        outcome: { reason: 'provider-error', message: 'real bad request', apiErrorStatus: 400, apiErrorType: 'APIError' },
      });
      await user.umbel(['send', 'err', 'FAIL 401 real invalid key']);
      expect(await waitJson(user, 'err')).toMatchObject({ code: 119, outcome: { reason: 'auth-failed', message: 'real invalid key', apiErrorStatus: 401 } });
      await user.umbel(['send', 'err', 'FAIL 500 retry-after-ms=200 real always down']);
      const down = await waitJson(user, 'err');
      expect(down).toMatchObject({
        code: 122,
        outcome: { reason: 'provider-error', message: 'real always down (opencode was retrying, attempt 3; umbel stopped the turn after 2 retries)' },
      });
      expect(turnsFor('FAIL 500 retry-after-ms=200 real always down')).toHaveLength(3);
      const logs = (await user.umbel(['logs', 'err'])).stdout;
      expect(logs).toMatch(/retrying \(attempt 1, next in 0s\): real always down/);
      await user.umbel(['send', 'err', 'ECHO back again']);
      expect(await user.umbel(['wait', 'err', '--timeout', '150s'])).toMatchObject({ code: 0, stdout: 'back again\n' });
      await purgeWorkers(user.umbel);
    },
    T,
  );

  it(
    '--model provider/model is checked against `opencode models` and reaches the model API; an unknown one is exit 2',
    async () => {
      const user = await freshUser();
      await spawn(user, 'm2', ['--model', 'mock/mock-model-2']);
      await user.umbel(['send', 'm2', 'ECHO from model two']);
      expect((await user.umbel(['wait', 'm2', '--timeout', '150s'])).stdout).toBe('from model two\n');
      expect(turnsFor('ECHO from model two')[0]?.body?.model).toBe('mock-model-2');
      const unknown = await user.umbel(['spawn', 'm3', ...oc, '--model', 'mock/nope']);
      expect(unknown.code, unknown.stderr).toBe(2);
      expect(unknown.stderr).toContain("opencode has no model 'mock/nope': it lists mock/mock-model, mock/mock-model-2, opencode/big-pickle");
      await purgeWorkers(user.umbel);
    },
    T,
  );

  it(
    'kill leaves no opencode process of the worker; the answer still reads',
    async () => {
      const user = await freshUser();
      await spawn(user, 'gone');
      await user.umbel(['send', 'gone', 'ECHO remember me']);
      expect((await user.umbel(['wait', 'gone', '--timeout', '150s'])).stdout).toBe('remember me\n');
      expect(workerProcesses(user.state, 'gone').some((p) => p.args.includes(opencode))).toBe(true);
      expect(await user.umbel(['kill', 'gone'])).toMatchObject({ code: 0, stdout: 'killed: gone\n' });
      expect(workerProcesses(user.state, 'gone')).toEqual([]);
      expect(opencodeIn(user.work)).toEqual([]);
      expect((await user.umbel(['read', 'gone'])).stdout).toBe('remember me\n');
      await purgeWorkers(user.umbel);
    },
    T,
  );

  it(
    '`umbel -p` prints what `opencode run` prints (text); json has the result contract and agrees with `opencode run --format json`',
    async () => {
      const user = await freshUser();
      const prompt = 'ECHO same answer\nacross two lines';
      // `opencode run` takes the prompt byte-exact on stdin (one argument with spaces would arrive quoted)
      const run = await runCommand(opencode, ['run'], { cwd: user.work, env: user.env, input: prompt });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe('same answer\nacross two lines\n');
      const print = await user.umbel(['-p', prompt, ...ocPrint]);
      expect(print, print.stderr).toMatchObject({ code: 0, stdout: run.stdout });

      const runJson = await runCommand(opencode, ['run', '--format', 'json'], { cwd: user.work, env: user.env, input: 'ECHO as json' });
      expect(runJson.code, runJson.stderr).toBe(0);
      const lines = runJson.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const runText = lines.filter((l) => l.type === 'text').map((l) => l.part.text);
      const finish = lines.find((l) => l.type === 'step_finish');
      const json = await user.umbel(['-p', 'ECHO as json', '--output-format', 'json', ...ocPrint]);
      expect(json.code, json.stderr).toBe(0);
      const result = JSON.parse(json.stdout);
      expect(result).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: runText.join(''), provider: 'opencode', num_turns: 1 });
      expect(result.session_id).toMatch(/^ses_/);
      expect(finish.part.reason).toBe('stop');
      // the same counters opencode reports, in Claude's names
      expect(result.usage.output_tokens).toBe(finish.part.tokens.output);
      expect(result.usage.input_tokens).toBeGreaterThan(0);

      const failed = await user.umbel(['-p', 'FAIL 400 bad run', '--output-format', 'json', ...ocPrint]);
      expect(failed.code).toBe(1);
      expect(JSON.parse(failed.stdout)).toMatchObject({ type: 'result', is_error: true, umbel: { reason: 'provider-error' } });
      const runFailed = await runCommand(opencode, ['run', '--format', 'json'], { cwd: user.work, env: user.env, input: 'FAIL 400 bad run' });
      expect(runFailed.code).toBe(1);
      expect(JSON.parse(runFailed.stdout.trim().split('\n').at(-1) ?? '{}')).toMatchObject({
        type: 'error',
        error: { data: { message: 'bad run', statusCode: 400 } },
      });
      expect(JSON.parse(failed.stdout).result).toContain('bad run');
      expect(JSON.parse((await user.umbel(['ls', '--json'])).stdout)).toEqual([]);
    },
    T,
  );

  it(
    'a workflow step runs on an opencode worker, and the run leaves no opencode process',
    async () => {
      const user = await freshUser();
      const file = join(user.dir, 'flow.yaml');
      writeFileSync(
        file,
        `name: real-opencode
workers:
  agent:
    provider: opencode
    cwd: ./project
steps:
  - id: one
    worker: agent
    prompt: ECHO alpha-42
    timeout: 4m
  - id: two
    worker: agent
    needs: [one]
    prompt: "ECHO got {{ steps.one.output }}"
    timeout: 4m
`,
      );
      const r = await user.umbel(['run', file, '--json']);
      const summary = JSON.parse(r.stdout);
      expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(0);
      expect(summary).toMatchObject({ ok: true, status: 'completed' });
      expect(summary.outputs).toMatchObject({ one: { output: 'alpha-42' }, two: { output: 'got alpha-42' } });
      expect(opencodeIn(user.work)).toEqual([]);
    },
    T,
  );

  it(
    'the MCP face: umbel_spawn → umbel_send → umbel_wait → umbel_read → umbel_kill',
    async () => {
      const user = await freshUser();
      const client = await connectUmbelMcp({ env: user.env, cwd: user.dir });
      clients.push(client);
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = await client.callTool({ name, arguments: args }, undefined, { timeout: T });
        expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
        return result.structuredContent;
      };
      expect(await call('umbel_spawn', { name: 'mcp-oc', provider: 'opencode', cwd: user.work, startupTimeout: '180s' })).toMatchObject({
        name: 'mcp-oc',
        provider: 'opencode',
        alive: true,
      });
      expect(await call('umbel_send', { name: 'mcp-oc', prompt: 'ECHO opencode answers over MCP' })).toEqual({ worker: 'mcp-oc', turn: 1 });
      let outcome = await call('umbel_wait', { name: 'mcp-oc', timeout: '50s' });
      for (let i = 0; i < 4 && outcome.reason === 'timeout'; i++) outcome = await call('umbel_wait', { name: 'mcp-oc', timeout: '50s' });
      expect(outcome).toMatchObject({ reason: 'completed', result: 'opencode answers over MCP' });
      expect(await call('umbel_read', { name: 'mcp-oc' })).toMatchObject({ result: 'opencode answers over MCP', complete: true });
      expect(await call('umbel_kill', { name: 'mcp-oc', purge: true })).toMatchObject({ purged: true });
      expect(opencodeIn(user.work)).toEqual([]);
    },
    T,
  );
});
