/**
 * End to end on real tmux with `--provider opencode`: the built `umbel` bin drives the FAKE opencode
 * from test-fixtures (UMBEL_OPENCODE_BIN = test-fixtures/bin/opencode) through the tmux substrate and
 * the opencode provider, on every face (supervisor verbs and `umbel -p`). The fake loads umbel's
 * plugin from the worker's own config dir exactly as opencode 1.18.33 does and talks to the
 * chat-completions mock started in this process, so every prompt the "model" received can be checked
 * byte for byte. Needs `pnpm build`. Facts: test-fixtures/fake-opencode/FACTS.md.
 *
 * The "user" has their own `~/.config/opencode/opencode.json` naming the mock as a provider (with
 * its key in the file), and never ran opencode online: their config dir was never installed, so
 * with a plugin present the fake stalls startup for minutes (the plugin-install trap) unless umbel
 * defuses it. umbel must leave that dir byte-identical.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun, UmbelStart } from '../../../test-fixtures/real/umbel-helpers.mjs';
import {
  assertBuilt,
  cleanUp,
  REPO_ROOT,
  runCommand,
  snapshotTree,
  testEnv,
  umbelRunner,
  workerProcesses,
  teardownsDone,
} from '../../../test-fixtures/real/umbel-helpers.mjs';

const fakeOpencode = join(REPO_ROOT, 'test-fixtures/bin/opencode');
/** Per-test budget: several spawns on a loaded 2-core CI box (nothing asserts on time). */
const T = 300_000;

interface MockRequest {
  kind?: string;
  prompt?: string;
  body?: { model?: string };
}
interface ChatMock {
  url: string;
  requests(): MockRequest[];
  close(): Promise<void>;
}

let scratch: string;
let home: string;
let work: string;
let userConfigDir: string;
let userSnapshot: Map<string, string>;
let mock: ChatMock;
let env: Record<string, string>;
let umbel: UmbelRun;
let startUmbel: UmbelStart;

/** The fake stalls startup this long for a config dir that was never installed (the real one's npm retries). */
const STALL = { FAKE_OPENCODE_INSTALL_STALL_MS: '600000' };
const oc = ['--provider', 'opencode', '--env', 'FAKE_OPENCODE_INSTALL_STALL_MS'];

/** A shell command printing whether npm_config_offline reached it. */
const OFFLINE_PROBE = ['TOOL echo "offline=[$', '{npm_config_offline-unset}]"'].join('');

/** The user prompts the model received (the title side request excluded). */
const promptsReceived = (): string[] =>
  mock
    .requests()
    .filter((r) => r.kind === 'turn' && r.prompt !== undefined)
    .map((r) => r.prompt as string);

async function waitJson(name: string, timeout = '120s'): Promise<{ code: number; outcome: Record<string, any> }> {
  const r = await umbel(['wait', name, '--json', '--timeout', timeout]);
  return { code: r.code, outcome: JSON.parse(r.stdout) };
}

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs', 'packages/provider-opencode/dist/index.js']);
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-e2e-opencode-')));
  home = join(scratch, 'state');
  work = join(scratch, 'project');
  await mkdir(join(work, '.git'), { recursive: true });
  const { startChatMock } = (await import(join(REPO_ROOT, 'test-fixtures/mock-servers/openai-chat.mjs'))) as { startChatMock: () => Promise<ChatMock> };
  mock = await startChatMock();
  const { seedOpencodeUser } = (await import(
    join(REPO_ROOT, 'test-fixtures/fake-opencode/seed.mjs')
  )) as typeof import('../../../test-fixtures/fake-opencode/seed.mjs');
  const user = seedOpencodeUser({ home: join(scratch, 'home'), baseUrl: mock.url, installed: false });
  userConfigDir = join(scratch, 'home', '.config', 'opencode');
  userSnapshot = await snapshotTree(userConfigDir);
  env = testEnv({ home: join(scratch, 'home'), umbelHome: home, UMBEL_OPENCODE_BIN: fakeOpencode, ...user, ...STALL });
  ({ run: umbel, start: startUmbel } = umbelRunner({ cwd: work, env }));
}, T);

afterAll(() => cleanUp({ workers: [umbel], reap: [scratch], close: [mock], remove: [scratch] }), T);

describe('supervisor verbs with --provider opencode on the fake opencode', () => {
  it(
    'starts although the user config dir was never installed (npm offline for startup only), answers exact turn after turn',
    async () => {
      const spawned = await umbel(['spawn', 'w1', ...oc, '--startup-timeout', '120s']);
      expect(spawned, spawned.stderr).toMatchObject({ code: 0, stdout: 'w1\n' });
      expect((await umbel(['send', 'w1', 'ECHO first `answer` **bold**'])).stdout).toBe('1\n');
      expect(await umbel(['wait', 'w1', '--timeout', '90s'])).toMatchObject({ code: 0, stdout: 'first `answer` **bold**\n' });
      expect((await umbel(['send', 'w1', 'ECHO second answer'])).stdout).toBe('2\n');
      const { outcome } = await waitJson('w1');
      expect(outcome).toMatchObject({ reason: 'completed', result: 'second answer', turn: 2, provider: 'opencode', stopReason: 'stop' });
      expect(outcome.sessionId).toMatch(/^ses_[0-9A-Za-z]{26}$/);
      expect(outcome.transcriptPath).toBe(join(home, 'workers/w1/provider/transcripts', `${outcome.sessionId}.json`));
      expect((await umbel(['read', 'w1', '--turn', '1'])).stdout).toBe('first `answer` **bold**\n');
      expect((await umbel(['ls'])).stdout).toMatch(/w1\s+opencode\s+ready\s+2\/2/);
      // the agent's own commands never see the variable umbel added for startup
      await umbel(['send', 'w1', OFFLINE_PROBE]);
      expect((await umbel(['wait', 'w1', '--timeout', '90s'])).stdout).toBe('TOOL-RESULT: offline=[unset]\n');
      // the transcript is opencode's stored session, as the plugin fetched it
      const doc = JSON.parse(await readFile(outcome.transcriptPath, 'utf8'));
      expect(doc.info).toMatchObject({ id: outcome.sessionId, title: 'Mock session title' });
      expect(doc.messages.filter((m: any) => m.info.role === 'user').map((m: any) => m.parts[0].text)).toEqual([
        'ECHO first `answer` **bold**',
        'ECHO second answer',
        OFFLINE_PROBE,
      ]);
      // untouched by umbel: only the .gitignore opencode itself writes into every config dir appeared
      const after = await snapshotTree(userConfigDir);
      expect([...after.keys()].filter((k) => !userSnapshot.has(k))).toEqual([expect.stringMatching(/^\/\.gitignore /)]);
      for (const [k, v] of userSnapshot) expect(after.get(k), k).toBe(v);
    },
    T,
  );

  it(
    'a multi-line prompt with tabs, unicode and trailing spaces arrives exact (pasted, no summary); CRLF becomes LF',
    async () => {
      await umbel(['spawn', 'multi', ...oc]);
      const body = 'line one\n\tline "two" with $HOME and `ticks`\n\n  indented ünïcödé 🚀\ttab  ';
      await umbel(['send', 'multi', `ECHO ${body}`]);
      expect((await waitJson('multi')).outcome).toMatchObject({ reason: 'completed', result: body });
      await umbel(['send', 'multi', 'ECHO crlf one\r\ncrlf two']);
      expect((await umbel(['wait', 'multi', '--timeout', '90s'])).stdout).toBe('crlf one\ncrlf two\n');
      expect(promptsReceived()).toEqual(expect.arrayContaining([`ECHO ${body}`, 'ECHO crlf one\ncrlf two']));
      // a leading / is kept text by one space; ! is text as it is
      await umbel(['send', 'multi', '/exit please']);
      expect((await umbel(['wait', 'multi', '--timeout', '90s'])).stdout).toBe('MOCK-REPLY:  /exit please\n');
      await umbel(['send', 'multi', '!touch bang-ran.txt']);
      expect((await umbel(['wait', 'multi', '--timeout', '90s'])).stdout).toBe('MOCK-REPLY: !touch bang-ran.txt\n');
      expect(existsSync(join(work, 'bang-ran.txt'))).toBe(false);
    },
    T,
  );

  it(
    'a permission prompt is needs-input (126) naming bash; `keys Enter` approves, `keys Escape` rejects (idle, 123)',
    async () => {
      await umbel(['spawn', 'perm', ...oc, '--permission-mode', 'ask']);
      await umbel(['send', 'perm', 'TOOL touch approved-by-keys.txt; echo approved']);
      const blocked = await waitJson('perm');
      expect(blocked.code).toBe(126);
      expect(blocked.outcome).toMatchObject({
        reason: 'needs-input',
        inputKind: 'permission',
        tool: 'bash',
        message: 'opencode asks to use bash: touch approved-by-keys.txt; echo approved',
      });
      expect(blocked.outcome.paneTail).toContain('△ Permission required');
      expect(existsSync(join(work, 'approved-by-keys.txt'))).toBe(false);
      expect((await umbel(['status', 'perm'])).stdout).toMatch(/state:\s+needs-input/);
      expect((await umbel(['keys', 'perm', 'Enter'])).code).toBe(0);
      expect(await umbel(['wait', 'perm', '--timeout', '90s'])).toMatchObject({ code: 0, stdout: 'TOOL-RESULT: approved\n' });
      expect(existsSync(join(work, 'approved-by-keys.txt'))).toBe(true);
      await umbel(['send', 'perm', 'TOOL touch rejected-by-keys.txt']);
      expect((await waitJson('perm')).code).toBe(126);
      expect((await umbel(['keys', 'perm', 'Escape'])).code).toBe(0);
      const rejected = await waitJson('perm');
      expect(rejected).toMatchObject({ code: 123, outcome: { reason: 'idle', message: 'a tool call was rejected; the worker waits for input' } });
      expect(existsSync(join(work, 'rejected-by-keys.txt'))).toBe(false);
    },
    T,
  );

  it(
    'a non-retryable API error is provider-error (122) with the message, a 401 auth-failed (119); a retrying one is stopped after 2 retries; the worker answers again',
    async () => {
      await umbel(['spawn', 'err', ...oc]);
      await umbel(['send', 'err', 'FAIL 400 fake bad request']);
      const bad = await waitJson('err');
      expect(bad).toMatchObject({
        code: 122,
        outcome: { reason: 'provider-error', message: 'fake bad request', apiErrorStatus: 400, apiErrorType: 'APIError' },
      });
      // a refused login is the account's: auth-failed (119), from the status opencode records
      await umbel(['send', 'err', 'FAIL 401 fake invalid key']);
      expect(await waitJson('err')).toMatchObject({ code: 119, outcome: { reason: 'auth-failed', message: 'fake invalid key', apiErrorStatus: 401 } });
      await umbel(['send', 'err', 'FAIL 500 retry-after-ms=50 always down']);
      const down = await waitJson('err');
      expect(down).toMatchObject({
        code: 122,
        outcome: {
          reason: 'provider-error',
          message: 'always down (opencode was retrying, attempt 3; umbel stopped the turn after 2 retries)',
          apiErrorType: 'RetryLimit',
        },
      });
      // each retry was reported as it happened
      const logs = (await umbel(['logs', 'err', '--json'])).stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { kind: string; summary?: string });
      expect(logs.filter((l) => l.kind === 'tool').map((l) => l.summary)).toEqual([
        expect.stringMatching(/^retrying \(attempt 1, next in 0s\): always down$/),
        expect.stringMatching(/^retrying \(attempt 2, next in 0s\): always down$/),
        expect.stringMatching(/^retrying \(attempt 3, next in 0s\): always down$/),
      ]);
      // one retry that recovers is an answer
      await umbel(['send', 'err', 'FAIL 429 x1 retry-after-ms=50 ECHO after one retry']);
      expect(await umbel(['wait', 'err', '--timeout', '90s'])).toMatchObject({ code: 0, stdout: 'after one retry\n' });
    },
    T,
  );

  it(
    '--model provider/model reaches opencode once `opencode models` lists it; an unknown one is exit 2 naming the list',
    async () => {
      expect((await umbel(['spawn', 'm2', ...oc, '--model', 'mock/mock-model-2'])).code).toBe(0);
      await umbel(['send', 'm2', 'ECHO from model two']);
      expect((await umbel(['wait', 'm2', '--timeout', '90s'])).stdout).toBe('from model two\n');
      expect(mock.requests().filter((r) => r.kind === 'turn' && r.prompt === 'ECHO from model two')[0]?.body?.model).toBe('mock-model-2');
      const unknown = await umbel(['spawn', 'm3', ...oc, '--model', 'mock/nope']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain(
        "opencode has no model 'mock/nope': it lists mock/mock-model, mock/mock-model-2, opencode/big-pickle, opencode/ling-3.0-flash-fin-free",
      );
      expect(unknown.stderr).toContain('opencode/space-bunny-free');
      const shape = await umbel(['spawn', 'm4', ...oc, '--model', 'gpt-5']);
      expect(shape.code).toBe(2);
      expect(shape.stderr).toMatch(/opencode takes --model as provider\/model/);
      expect(JSON.parse((await umbel(['ls', '--json'])).stdout).map((w: { name: string }) => w.name)).not.toContain('m3');
    },
    T,
  );

  it(
    'kill leaves no opencode process of the worker; the tombstone and the transcript still read',
    async () => {
      await umbel(['spawn', 'gone', ...oc]);
      await umbel(['send', 'gone', 'ECHO remember me']);
      expect((await umbel(['wait', 'gone', '--timeout', '90s'])).stdout).toBe('remember me\n');
      expect(workerProcesses(home, 'gone').some((p) => p.args.includes('fake-opencode/main.mjs'))).toBe(true);
      expect(await umbel(['kill', 'gone'])).toMatchObject({ code: 0, stdout: 'killed: gone\n' });
      expect(workerProcesses(home, 'gone')).toEqual([]);
      expect((await umbel(['read', 'gone'])).stdout).toBe('remember me\n');
      expect((await umbel(['status', 'gone'])).stdout).toMatch(/state:\s+killed/);
    },
    T,
  );
});

describe('umbel -p --provider opencode on the fake opencode', () => {
  it(
    'text output equals what `opencode run` prints for the same prompt',
    async () => {
      const prompt = 'ECHO same answer\nacross two lines';
      const run = await runCommand(fakeOpencode, ['run'], { cwd: work, env, input: prompt });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe('same answer\nacross two lines\n');
      const print = await umbel(['-p', prompt, ...oc]);
      expect(print, print.stderr).toMatchObject({ code: 0, stdout: run.stdout });
    },
    T,
  );

  it(
    'json follows the Claude result contract; an API error is is_error with exit 1',
    async () => {
      const ok = await umbel(['-p', 'ECHO as json', '--output-format', 'json', ...oc]);
      expect(ok.code, ok.stderr).toBe(0);
      const json = JSON.parse(ok.stdout);
      expect(json).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'as json', provider: 'opencode', num_turns: 1 });
      expect(json.session_id).toMatch(/^ses_/);
      expect(Object.keys(json.usage)).toEqual(
        expect.arrayContaining(['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens']),
      );
      expect(json.usage.input_tokens).toBeGreaterThan(0);
      const failed = await umbel(['-p', 'FAIL 400 boom', '--output-format', 'json', ...oc]);
      expect(failed.code).toBe(1);
      expect(JSON.parse(failed.stdout)).toMatchObject({ type: 'result', is_error: true, terminal_reason: 'api_error', umbel: { reason: 'provider-error' } });
    },
    T,
  );

  it(
    'stream-json: the tool call and its result, then the result',
    async () => {
      const r = await umbel(['-p', 'TOOL echo streamed', '--output-format', 'stream-json', '--verbose', ...oc]);
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init', provider: 'opencode' });
      const assistant = lines.filter((l) => l.type === 'assistant');
      expect(assistant.map((l) => l.message.content[0].type)).toEqual(['tool_use', 'text']);
      expect(lines.filter((l) => l.type === 'user').map((l) => l.message.content[0])).toMatchObject([{ type: 'tool_result', content: 'streamed\n' }]);
      expect(lines.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'TOOL-RESULT: streamed', num_turns: 2 });
    },
    T,
  );

  it(
    '--startup-timeout bounds the start: with npm_config_offline=false of the user the install trap holds it, and -p says so, leaving nothing',
    async () => {
      const workers = () => readdir(join(home, 'workers')).catch(() => [] as string[]);
      const before = new Set(await workers());
      const r = await umbel(['-p', 'ECHO never', ...oc, '--env', 'npm_config_offline=false', '--startup-timeout', '3s']);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain('opencode did not reach its ready prompt within 3s');
      expect((await workers()).filter((n) => !before.has(n))).toEqual([]);
    },
    T,
  );

  it(
    'leaves no anonymous worker and no opencode process behind; SIGTERM mid-turn too',
    async () => {
      await teardownsDone(home); // -p exited with its answer; its worker goes after, in a detached process
      const workers = JSON.parse((await umbel(['ls', '--json'])).stdout).map((w: { name: string }) => w.name);
      expect(workers.filter((n: string) => n.startsWith('anon-'))).toEqual([]);
      const before = new Set(await readdir(join(home, 'workers')));
      const pending = startUmbel(['-p', 'DELAY 600000 ECHO never', ...oc]);
      let anon: string | undefined;
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

describe('umbel doctor --provider opencode on the fake opencode', () => {
  it(
    '--turn: every check passes (the plugin-delivered session event included), nothing is left behind, the user config is untouched',
    async () => {
      const before = new Set(await readdir(join(home, 'workers')).catch(() => [] as string[]));
      const r = await umbel(['doctor', '--json', '--turn', '--startup-timeout', '120s', ...oc]);
      const report = JSON.parse(r.stdout);
      const checks = report.providers[0].checks;
      expect(
        checks.filter((c: { status: string }) => c.status !== 'pass'),
        r.stdout,
      ).toEqual([]);
      expect(checks.map((c: { id: string }) => c.id)).toEqual([
        'binary',
        'version',
        'login',
        'billing',
        'endpoint',
        'launch',
        'session-hook',
        'payload',
        'turn',
      ]);
      expect(r.code).toBe(0);
      expect(report.providers[0].provider).toBe('opencode');
      // opencode's stored logins decide how it bills: doctor says it cannot tell, and why
      expect(checks.find((c: { id: string }) => c.id === 'billing').detail).toMatch(/^unknown: no API key passed; opencode's stored logins/);
      expect(checks.find((c: { id: string }) => c.id === 'payload').detail).toMatch(/^session ses_\w+, transcript \//);
      // the scratch worker is gone, and so is every process that mentions it
      expect((await readdir(join(home, 'workers')).catch(() => [] as string[])).filter((n) => !before.has(n))).toEqual([]);
      const after = await snapshotTree(userConfigDir);
      for (const [k, v] of userSnapshot) expect(after.get(k), k).toBe(v);
    },
    T,
  );
});
