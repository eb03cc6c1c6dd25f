// Real-CLI tier: the REAL pinned Qwen Code 0.15.10 (pnpm install:real-clis --only qwen) driven by the
// built `umbel` bin with `--provider qwen` (UMBEL_QWEN_BIN = the absolute path of the pinned
// binary), its model API served by the chat-completions mock on 127.0.0.1
// (test-fixtures/mock-servers/openai-chat.mjs, via OPENAI_BASE_URL). No network, no model service:
// umbel's worker settings turn Qwen Code's auto-update (an `npm install --global`) off. When the
// binary is not installed these tests FAIL (realCliPath throws), they never skip. Needs `pnpm build`.
// Facts: test-fixtures/real/QWEN-FACTS.md.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun } from '../../test-fixtures/real/umbel-helpers.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins } from '../../test-fixtures/real/clis.mjs';
import { assertBuilt, cleanUp, REPO_ROOT, testEnv, umbelRunner } from '../../test-fixtures/real/umbel-helpers.mjs';

/** Per-test budget: the real Qwen Code on a loaded 2-core CI box (nothing asserts on time). */
const T = 300_000;

interface ChatMock {
  url: string;
  requests(): { kind?: string; prompt?: string; headers?: Record<string, string | undefined> }[];
  close(): Promise<void>;
}

let mock: ChatMock;
let scratch: string;
let home: string;
let work: string;
let userHome: string;
let umbel: UmbelRun;
const KEY = 'real-qwen-mock-key-not-a-secret';
/** Every spawn / -p names the provider and passes the key by name. */
const q = ['--provider', 'qwen', '--env', 'OPENAI_API_KEY'];

async function waitJson(name: string): Promise<{ code: number; outcome: Record<string, any> }> {
  const r = await umbel(['wait', name, '--json', '--timeout', '180s']);
  return { code: r.code, outcome: JSON.parse(r.stdout || '{}') };
}

beforeAll(async () => {
  const clis = (await import(join(REPO_ROOT, 'test-fixtures/real/clis.mjs'))) as { realCliPath(id: string): string };
  const qwen = clis.realCliPath('qwen'); // throws (the test fails) when the pinned Qwen Code is missing
  assertBuilt();
  const mocks = (await import(join(REPO_ROOT, 'test-fixtures/mock-servers/openai-chat.mjs'))) as { startChatMock(): Promise<ChatMock> };
  mock = await mocks.startChatMock();
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-real-qwen-')));
  home = join(scratch, 'state');
  work = join(scratch, 'project');
  userHome = join(scratch, 'home');
  await mkdir(work, { recursive: true });
  await mkdir(userHome, { recursive: true });
  const env = testEnv({
    home: userHome,
    umbelHome: home,
    UMBEL_QWEN_BIN: qwen,
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: mock.url,
    OPENAI_MODEL: 'mock-model',
    CI: 'true',
  });
  umbel = umbelRunner({ cwd: work, env }).run;
}, T);

afterAll(() => cleanUp({ workers: [umbel], reap: [scratch], close: [mock], remove: [scratch] }), T);

describe(`real Qwen Code ${readPins().qwen.version} with --provider qwen (umbel runs with CI=true)`, () => {
  it(
    'answers exactly, turn after turn; a multi-line prompt arrives byte-exact; billing api from the banner; no update check',
    async () => {
      const spawned = await umbel(['spawn', 'r1', ...q, '--json']);
      expect(spawned.code, spawned.stderr).toBe(0);
      expect(JSON.parse(spawned.stdout)).toMatchObject({ state: 'ready', billing: 'api', billingEvidence: 'the banner says "API Key"' });
      await umbel(['send', 'r1', 'ECHO first real answer']);
      expect(await umbel(['wait', 'r1', '--timeout', '180s'])).toMatchObject({ code: 0, stdout: 'first real answer\n' });
      const multi = 'line one\nline "two" with $HOME and `ticks`\n\n\tindented ünïcödé 🚀';
      await umbel(['send', 'r1', `ECHO ${multi}`]);
      const { outcome } = await waitJson('r1');
      expect(outcome).toMatchObject({ reason: 'completed', turn: 2, result: multi, provider: 'qwen' });
      expect(outcome.transcriptPath).toMatch(/\/\.qwen\/projects\/[^/]+\/chats\/[0-9a-f-]{36}\.jsonl$/);
      expect(
        mock
          .requests()
          .filter((r) => r.kind === 'turn')
          .map((r) => r.prompt),
      ).toEqual(expect.arrayContaining(['ECHO first real answer', `ECHO ${multi}`]));
      // auto-update never ran: no npm cache or update-notifier state in the user's home
      expect(await readdir(userHome).catch(() => [])).not.toContain('.npm');
    },
    T,
  );

  it(
    'a permission prompt is needs-input (126); `keys Enter` approves it and the turn completes after the tool result',
    async () => {
      await umbel(['spawn', 'perm', ...q]);
      await umbel(['send', 'perm', 'TOOL touch approved-by-keys.txt']);
      const blocked = await waitJson('perm');
      expect(blocked).toMatchObject({ code: 126, outcome: { reason: 'needs-input', inputKind: 'permission', tool: 'run_shell_command' } });
      expect(blocked.outcome.paneTail).toContain('Yes, allow once');
      expect(existsSync(join(work, 'approved-by-keys.txt'))).toBe(false);
      expect((await umbel(['keys', 'perm', 'Enter'])).code).toBe(0);
      const done = await waitJson('perm');
      expect(done.outcome).toMatchObject({ reason: 'completed', turn: 1 });
      expect(done.outcome.result).toMatch(/^TOOL-RESULT: Command: touch approved-by-keys.txt\n/);
      expect(existsSync(join(work, 'approved-by-keys.txt'))).toBe(true);
      await umbel(['send', 'perm', 'ECHO after the tool']);
      expect((await waitJson('perm')).outcome).toMatchObject({ reason: 'completed', result: 'after the tool', turn: 2 });
    },
    T,
  );

  it(
    '--unattended (YOLO: its input box reads `*   Type your message…`) is ready, and a tool runs without asking',
    async () => {
      const spawned = await umbel(['spawn', 'yolo', ...q, '--unattended', '--json']);
      expect(spawned.code, spawned.stderr).toBe(0);
      expect(JSON.parse(spawned.stdout)).toMatchObject({ state: 'ready' });
      await umbel(['send', 'yolo', 'TOOL touch unattended.txt']);
      expect((await waitJson('yolo')).outcome).toMatchObject({ reason: 'completed', turn: 1 });
      expect(existsSync(join(work, 'unattended.txt'))).toBe(true);
    },
    T,
  );

  it(
    'an API error is provider-error (122), a 401 auth-failed (119), a 429 it keeps retrying rate-limited (118); the worker answers again',
    async () => {
      await umbel(['spawn', 'err', ...q]);
      await umbel(['send', 'err', 'FAIL 400 real bad request']);
      expect(await waitJson('err')).toMatchObject({ code: 122, outcome: { reason: 'provider-error', apiErrorStatus: 400 } });
      await umbel(['send', 'err', 'FAIL 401 real invalid key']);
      expect(await waitJson('err')).toMatchObject({ code: 119, outcome: { reason: 'auth-failed', apiErrorStatus: 401 } });
      await umbel(['send', 'err', 'FAIL 429 real slow down']);
      expect(await waitJson('err')).toMatchObject({ code: 118, outcome: { reason: 'rate-limited', apiErrorStatus: 429, apiErrorType: 'RateLimitError' } });
      await umbel(['send', 'err', 'ECHO still here']);
      expect(await umbel(['wait', 'err', '--timeout', '180s'])).toMatchObject({ code: 0, stdout: 'still here\n' });
    },
    T,
  );

  it(
    'umbel -p: text and json output',
    async () => {
      const text = await umbel(['-p', 'ECHO one shot\nsecond line', ...q, '--pool', 'none']);
      expect(text, text.stderr).toMatchObject({ code: 0, stdout: 'one shot\nsecond line\n' });
      const json = await umbel(['-p', 'ECHO as json', ...q, '--pool', 'none', '--output-format', 'json']);
      expect(JSON.parse(json.stdout)).toMatchObject({ type: 'result', is_error: false, result: 'as json' });
    },
    T,
  );
});
