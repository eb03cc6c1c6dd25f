// The real-CLI tier's world for the REAL pinned Qwen Code 0.15.10 (pnpm install:real-clis --only qwen),
// driven by the built `umbel` bin with `--provider qwen` (UMBEL_QWEN_BIN = the absolute path of the
// pinned binary), its model API served by the chat-completions mock on 127.0.0.1
// (test-fixtures/mock-servers/openai-chat.mjs, via OPENAI_BASE_URL). No network, no model service:
// umbel's worker settings turn Qwen Code's auto-update (an `npm install --global`) off. When the
// binary is not installed the tests FAIL (realCliPath throws), they never skip. Needs `pnpm build`.
import { mkdir, mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { UmbelRun } from '../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, REPO_ROOT, testEnv, umbelRunner } from '../../test-fixtures/real/umbel-helpers.mjs';

/** Per-test budget: the real Qwen Code on a loaded 2-core CI box (nothing asserts on time). */
export const T = 300_000;
const KEY = 'real-qwen-mock-key-not-a-secret';
/** Every spawn / -p names the provider and passes the key by name. */
export const Q = ['--provider', 'qwen', '--env', 'OPENAI_API_KEY'];

export interface ChatMock {
  url: string;
  requests(): { kind?: string; prompt?: string; headers?: Record<string, string | undefined> }[];
  close(): Promise<void>;
}

/** One test file's world; its fields are set once its beforeAll has run. */
export interface QwenWorld {
  umbel: UmbelRun;
  mock: ChatMock;
  /** umbel's state root, the project (cwd), the user's home. */
  home: string;
  work: string;
  userHome: string;
  /** `umbel wait NAME --json`: its exit code and outcome. */
  waitJson(name: string): Promise<{ code: number; outcome: Record<string, any> }>;
}

/** Set up (beforeAll) and tear down (afterAll) a world for this test file: the mock, a scratch dir, the runner. */
export function useQwenWorld(prefix = 'umbel-real-qwen-'): QwenWorld {
  const w = {
    async waitJson(name: string) {
      const r = await w.umbel(['wait', name, '--json', '--timeout', '180s']);
      return { code: r.code, outcome: JSON.parse(r.stdout || '{}') };
    },
  } as QwenWorld;
  let scratch: string;
  beforeAll(async () => {
    const clis = (await import(join(REPO_ROOT, 'test-fixtures/real/clis.mjs'))) as { realCliPath(id: string): string };
    const qwen = clis.realCliPath('qwen'); // throws (the test fails) when the pinned Qwen Code is missing
    assertBuilt();
    const mocks = (await import(join(REPO_ROOT, 'test-fixtures/mock-servers/openai-chat.mjs'))) as { startChatMock(): Promise<ChatMock> };
    w.mock = await mocks.startChatMock();
    scratch = await realpath(await mkdtemp(join(tmpdir(), prefix)));
    w.home = join(scratch, 'state');
    w.work = join(scratch, 'project');
    w.userHome = join(scratch, 'home');
    await mkdir(w.work, { recursive: true });
    await mkdir(w.userHome, { recursive: true });
    const env = testEnv({
      home: w.userHome,
      umbelHome: w.home,
      UMBEL_QWEN_BIN: qwen,
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: w.mock.url,
      OPENAI_MODEL: 'mock-model',
      CI: 'true',
    });
    w.umbel = umbelRunner({ cwd: w.work, env }).run;
  }, T);
  afterAll(() => cleanUp({ workers: [w.umbel], reap: [scratch], close: [w.mock], remove: [scratch] }), T);
  return w;
}
