/**
 * End to end on real tmux with `--provider qwen`: the built `umbel` bin drives the FAKE Qwen Code
 * from test-fixtures (UMBEL_QWEN_BIN = test-fixtures/bin/qwen), which writes the hook payloads and
 * chat records of the real 0.15.10 (test-fixtures/real/QWEN-FACTS.md) and talks to the
 * chat-completions mock started in this process. Needs `pnpm build`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, REPO_ROOT, testEnv, umbelRunner, until } from '../../../test-fixtures/real/umbel-helpers.mjs';

/** Per-test budget: several spawns on a loaded 2-core CI box (nothing asserts on time). */
const T = 300_000;

interface ChatMock {
  url: string;
  requests(): { kind?: string; prompt?: string }[];
  close(): Promise<void>;
}

let scratch: string;
let home: string;
let work: string;
let mock: ChatMock;
let umbel: UmbelRun;

/** The key is passed by name (never inherited); the fake retries a 429/5xx every 100 ms. */
const qw = ['--provider', 'qwen', '--env', 'OPENAI_API_KEY', '--env', 'FAKE_QWEN_RETRY_MS'];

async function waitJson(name: string, timeout = '120s'): Promise<{ code: number; outcome: Record<string, any> }> {
  const r = await umbel(['wait', name, '--json', '--timeout', timeout]);
  return { code: r.code, outcome: JSON.parse(r.stdout) };
}

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs', 'packages/provider-qwen/dist/index.js']);
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-e2e-qwen-')));
  home = join(scratch, 'state');
  work = join(scratch, 'project');
  await mkdir(work, { recursive: true });
  const { startChatMock } = (await import(join(REPO_ROOT, 'test-fixtures/mock-servers/openai-chat.mjs'))) as { startChatMock: () => Promise<ChatMock> };
  mock = await startChatMock();
  const env = testEnv({
    home: join(scratch, 'home'),
    umbelHome: home,
    UMBEL_QWEN_BIN: join(REPO_ROOT, 'test-fixtures/bin/qwen'),
    OPENAI_BASE_URL: mock.url,
    OPENAI_MODEL: 'mock-model',
    OPENAI_API_KEY: 'sk-fake-qwen-key',
    FAKE_QWEN_RETRY_MS: '100',
  });
  ({ run: umbel } = umbelRunner({ cwd: work, env }));
}, T);

afterAll(() => cleanUp({ workers: [umbel], reap: [scratch], close: [mock], remove: [scratch] }), T);

describe('supervisor verbs with --provider qwen on the fake Qwen Code', () => {
  it(
    "answers exact turn after turn, a multi-line prompt included; the answer is the chat recording's; billing api",
    async () => {
      const spawned = await umbel(['spawn', 'q1', ...qw]);
      expect(spawned, spawned.stderr).toMatchObject({ code: 0, stdout: 'q1\n' });
      expect((await umbel(['send', 'q1', 'ECHO first `answer`'])).stdout).toBe('1\n');
      expect(await umbel(['wait', 'q1', '--timeout', '90s'])).toMatchObject({ code: 0, stdout: 'first `answer`\n' });
      const body = 'line one\n\tline "two" with $HOME\n\n  indented ünïcödé 🚀';
      expect((await umbel(['send', 'q1', `ECHO ${body}`])).stdout).toBe('2\n');
      const { outcome } = await waitJson('q1');
      expect(outcome).toMatchObject({ reason: 'completed', result: body, turn: 2, provider: 'qwen' });
      expect(outcome.transcriptPath).toMatch(/\/\.qwen\/projects\/[^/]+\/chats\/[0-9a-f-]{36}\.jsonl$/);
      const records = (await readFile(outcome.transcriptPath, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(records.filter((r) => r.type === 'user').map((r) => r.message.parts[0].text)).toEqual(['ECHO first `answer`', `ECHO ${body}`]);
      expect((await umbel(['read', 'q1', '--turn', '1'])).stdout).toBe('first `answer`\n');
      expect(outcome).toMatchObject({ billing: 'api', billingEvidence: 'the banner says "API Key"' });
      expect(
        mock
          .requests()
          .filter((r) => r.kind === 'turn')
          .map((r) => r.prompt),
      ).toEqual(['ECHO first `answer`', `ECHO ${body}`]);
    },
    T,
  );

  it(
    'a permission prompt is needs-input (126) naming the tool; `keys Enter` approves and the turn completes after the tool result',
    async () => {
      await umbel(['spawn', 'perm', ...qw]);
      await umbel(['send', 'perm', 'TOOL touch approved-by-keys.txt']);
      const blocked = await waitJson('perm');
      expect(blocked.code).toBe(126);
      expect(blocked.outcome).toMatchObject({ reason: 'needs-input', inputKind: 'permission', tool: 'run_shell_command' });
      expect(blocked.outcome.message).toContain('permission to use run_shell_command');
      expect(blocked.outcome.paneTail).toContain('Yes, allow once');
      expect(blocked.outcome.paneTail).toContain('touch approved-by-keys.txt');
      expect(existsSync(join(work, 'approved-by-keys.txt'))).toBe(false);
      expect((await umbel(['keys', 'perm', 'Enter'])).code).toBe(0);
      const done = await waitJson('perm');
      expect(done.outcome).toMatchObject({ reason: 'completed', turn: 1 });
      expect(done.outcome.result).toMatch(/^TOOL-RESULT: Command: touch approved-by-keys.txt\n/);
      expect(existsSync(join(work, 'approved-by-keys.txt'))).toBe(true);
      // the empty prompt Qwen Code fires for the tool-result continuation is no new turn
      await umbel(['send', 'perm', 'ECHO after the tool']);
      expect((await waitJson('perm')).outcome).toMatchObject({ reason: 'completed', result: 'after the tool', turn: 2 });
    },
    T,
  );

  it(
    'an API error is provider-error (122), a 401 auth-failed (119), a 429 it keeps retrying rate-limited (118) at once; the worker answers again',
    async () => {
      await umbel(['spawn', 'err', ...qw]);
      await umbel(['send', 'err', 'FAIL 400 fake bad request']);
      expect(await waitJson('err')).toMatchObject({ code: 122, outcome: { reason: 'provider-error', message: '400 fake bad request', apiErrorStatus: 400 } });
      await umbel(['send', 'err', 'FAIL 401 fake invalid key']);
      expect(await waitJson('err')).toMatchObject({ code: 119, outcome: { reason: 'auth-failed', apiErrorStatus: 401 } });
      await umbel(['send', 'err', 'FAIL 429 slow down']);
      expect(await waitJson('err')).toMatchObject({ code: 118, outcome: { reason: 'rate-limited', apiErrorStatus: 429 } });
      await umbel(['send', 'err', 'FAIL 503 always down']);
      expect(await waitJson('err')).toMatchObject({ code: 122, outcome: { reason: 'provider-error', apiErrorStatus: 503 } });
      await umbel(['send', 'err', 'ECHO still here']);
      expect(await umbel(['wait', 'err', '--timeout', '90s'])).toMatchObject({ code: 0, stdout: 'still here\n' });
    },
    T,
  );

  it(
    "a send while Qwen Code runs its own <task-notification> turn (no prompt hook, a bare Stop; the prompt queued) is turn 2, and wait gives turn 2's answer",
    async () => {
      expect((await umbel(['spawn', 'bgq', ...qw])).code).toBe(0);
      // the agent answers `DELAY 15000 ECHO notified` at once: the notification turn (answered by its <result>) lasts 15 s
      await umbel(['send', 'bgq', 'BGAGENT ECHO DELAY 15000 ECHO notified']);
      const first = await waitJson('bgq');
      expect(first.outcome).toMatchObject({ reason: 'completed', turn: 1 });
      expect(first.outcome.result).toContain('Background agent launched successfully');
      const chat = first.outcome.transcriptPath as string;
      await until(() => readFileSync(chat, 'utf8').includes('"subtype":"notification"'), 'the notification turn');
      const sent = await umbel(['send', 'bgq', 'ECHO two', '--json']);
      expect(sent.code, sent.stderr).toBe(0);
      expect(JSON.parse(sent.stdout)).toMatchObject({ turn: 2 });
      expect((await waitJson('bgq')).outcome).toMatchObject({ reason: 'completed', turn: 2, result: 'two' });
      // the notification turn's own answer is in the chat, credited to no turn
      const answers = readFileSync(chat, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((r) => r.type === 'assistant')
        .map((r) => r.message.parts[0]?.text);
      expect(answers).toContain('notified');
      expect(JSON.parse((await umbel(['read', 'bgq', '--turn', '1', '--json'])).stdout).result).toBe(first.outcome.result);
      expect((await umbel(['send', 'bgq', 'ECHO three'])).stdout).toBe('3\n');
      expect((await waitJson('bgq')).outcome).toMatchObject({ reason: 'completed', turn: 3, result: 'three' });
    },
    T,
  );

  it(
    'refuses a slash-command prompt and --allowed-tools clearly (exit 2)',
    async () => {
      await umbel(['spawn', 'ref', ...qw]);
      const slash = await umbel(['send', 'ref', '/about please']);
      expect(slash.code).toBe(2);
      expect(slash.stderr).toMatch(/slash command/);
      const tools = await umbel(['spawn', 'ref2', ...qw, '--allowed-tools', 'Bash']);
      expect(tools.code).toBe(2);
      expect(tools.stderr).toMatch(/allowed-tools|allowedTools/);
      // a key is API billing: --billing subscription refuses it before anything starts
      const billing = await umbel(['spawn', 'ref3', ...qw, '--billing', 'subscription']);
      expect(billing.code).toBe(3);
      expect(billing.stderr).toContain('OPENAI_API_KEY');
    },
    T,
  );
});

describe('umbel run with a qwen worker on the fake Qwen Code', () => {
  it(
    "a two-step workflow: the second prompt gets the first answer; the key comes from umbel's env by name",
    async () => {
      const file = join(work, 'qwen-flow.yaml');
      await writeFile(
        file,
        [
          'workers:',
          '  coder:',
          '    provider: qwen',
          '    env:',
          '      OPENAI_API_KEY: {fromEnv: OPENAI_API_KEY}',
          'steps:',
          '  - id: first',
          '    worker: coder',
          '    prompt: ECHO from the workflow',
          '  - id: second',
          '    worker: coder',
          '    needs: [first]',
          '    prompt: "ECHO got: {{ steps.first.output }}"',
          '',
        ].join('\n'),
      );
      const run = await umbel(['run', file, '--json']);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed' });
      expect(
        mock
          .requests()
          .filter((r) => r.kind === 'turn')
          .map((r) => r.prompt),
      ).toContain('ECHO got: from the workflow');
    },
    T,
  );
});

describe('umbel -p --provider qwen on the fake Qwen Code', () => {
  it(
    'text and json output',
    async () => {
      const text = await umbel(['-p', 'ECHO one shot\nsecond line', ...qw, '--pool', 'none']);
      expect(text, text.stderr).toMatchObject({ code: 0, stdout: 'one shot\nsecond line\n' });
      const json = await umbel(['-p', 'ECHO as json', ...qw, '--pool', 'none', '--output-format', 'json']);
      expect(JSON.parse(json.stdout)).toMatchObject({ type: 'result', is_error: false, result: 'as json' });
      // stream-json carries the turn's messages from the chat recording: the tool call, its result, the answer
      const stream = await umbel(['-p', 'TOOL echo streamed', ...qw, '--pool', 'none', '--output-format', 'stream-json', '--verbose']);
      const lines = stream.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => l.type)).toEqual(['system', 'assistant', 'user', 'assistant', 'result']);
      expect(lines[1].message.content[0]).toMatchObject({ type: 'tool_use', name: 'run_shell_command', input: { command: 'echo streamed' } });
    },
    T,
  );
});
