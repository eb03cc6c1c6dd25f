// Real-CLI tier (background agents, issue 33; facts: test-fixtures/real/BACKGROUND-FACTS.md §4): the REAL pinned Qwen Code 0.15.10 (pnpm install:real-clis --only qwen) driven by the
// built `umbel` bin with `--provider qwen` (UMBEL_QWEN_BIN = the absolute path of the pinned
// binary), its model API served by the chat-completions mock on 127.0.0.1
// (test-fixtures/mock-servers/openai-chat.mjs, via OPENAI_BASE_URL). No network, no model service:
// umbel's worker settings turn Qwen Code's auto-update (an `npm install --global`) off. When the
// binary is not installed these tests FAIL (realCliPath throws), they never skip. Needs `pnpm build`.
// Facts: test-fixtures/real/QWEN-FACTS.md.
import { readdirSync } from 'node:fs';
import { mkdir, mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun } from '../../test-fixtures/real/umbel-helpers.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins } from '../../test-fixtures/real/clis.mjs';
import { assertBuilt, cleanUp, REPO_ROOT, testEnv, umbelRunner, until } from '../../test-fixtures/real/umbel-helpers.mjs';

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

describe(`real Qwen Code ${readPins().qwen.version}: a background agent and the turn it starts by itself`, () => {
  it(
    'turn 1 completes; the <task-notification> turn Qwen Code runs when the agent ends (a Stop with no prompt) credits no turn; wait/read of turn 1 keep its answer; the next send is turn 2',
    async () => {
      const spawned = await umbel(['spawn', 'bg', ...q, '--json']);
      expect(spawned.code, spawned.stderr).toBe(0);
      await umbel(['send', 'bg', 'BGAGENT DELAY 8000 ECHO sub-done']);
      const first = await waitJson('bg');
      expect(first.code).toBe(0);
      expect(first.outcome).toMatchObject({ reason: 'completed', turn: 1 });
      expect(first.outcome.result).toContain('Background agent launched successfully');
      const stops = () => readdirSync(join(home, 'workers', 'bg', 'events')).filter((f) => f.endsWith('-stop.json')).length;
      await until(() => stops() >= 2, "the notification turn's stop", 240_000);
      const again = await waitJson('bg');
      expect(again.outcome).toMatchObject({ reason: 'completed', turn: 1, result: first.outcome.result });
      const read = await umbel(['read', 'bg', '--turn', '1', '--json']);
      expect(read.code, read.stderr).toBe(0);
      expect(JSON.parse(read.stdout).result).toBe(first.outcome.result);
      const sent = await umbel(['send', 'bg', 'ECHO after the notification', '--json']);
      expect(JSON.parse(sent.stdout)).toMatchObject({ turn: 2 });
      const second = await waitJson('bg');
      expect(second.outcome).toMatchObject({ reason: 'completed', turn: 2, result: 'after the notification' });
      const ended = (await umbel(['events', 'bg', '--json'])).stdout
        .trim()
        .split('\n')
        .filter((line) => JSON.parse(line).kind === 'ended');
      expect(ended.map((line) => JSON.parse(line).turn)).toEqual([1, 2]);
    },
    T,
  );

  it(
    'a foreground agent (run_in_background: false): the turn waits for it and, under --idle-timeout 5s, completes with the answer after it, never idle',
    async () => {
      const spawned = await umbel(['spawn', 'fg', ...q, '--json']);
      expect(spawned.code, spawned.stderr).toBe(0);
      await umbel(['send', 'fg', 'AGENT DELAY 12000 ECHO fg-sub-done']);
      const r = await umbel(['wait', 'fg', '--json', '--timeout', '180s', '--idle-timeout', '5s']);
      expect(r.code, r.stderr).toBe(0);
      const outcome = JSON.parse(r.stdout);
      expect(outcome).toMatchObject({ reason: 'completed', turn: 1 });
      expect(outcome.result).toContain('fg-sub-done');
    },
    T,
  );
});
