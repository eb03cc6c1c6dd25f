// The real-CLI tier's world for the REAL pinned GitHub Copilot CLI (pnpm install:real-clis --only copilot),
// driven by the built `umbel` bin with `--provider copilot`, offline: bring-your-own-key variables
// (`COPILOT_PROVIDER_BASE_URL` …, `COPILOT_OFFLINE=true`, passed by name with COPILOT_BYOK_FLAGS, never
// inherited) point it at the chat mock of test-fixtures, so no GitHub or model service is ever called.
// The project dir holds a `.git` (Copilot keys its trust on the repository). When the binary is not
// installed the tests FAIL (realCliPath throws), they never skip. Needs `pnpm build`.
import { mkdir, mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { UmbelRun } from '../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, COPILOT_BYOK_FLAGS, cleanUp, copilotMockEnv, REPO_ROOT, testEnv, umbelRunner } from '../../test-fixtures/real/umbel-helpers.mjs';

/** Per-test budget: the real Copilot CLI on a loaded 2-core CI box (nothing asserts on time). */
export const T = 420_000;
/** Every spawn / -p names the provider and passes the BYOK world by name. */
export const CP = ['--provider', 'copilot', ...COPILOT_BYOK_FLAGS];

export interface ChatMock {
  url: string;
  requests(): Array<Record<string, any>>;
  close(): Promise<void>;
}

/** One test file's world; its fields are set once its beforeAll has run. */
export interface CopilotWorld {
  umbel: UmbelRun;
  mock: ChatMock;
  /** The scratch dir, umbel's state root, the project (cwd), the user's home. */
  scratch: string;
  state: string;
  work: string;
  home: string;
  /** The environment umbel runs with (for the MCP server and workflows). */
  env: Record<string, string>;
  /** MCP clients to disconnect after the file. */
  clients: { close(): Promise<unknown> }[];
  /** `umbel wait NAME --json`: its exit code and outcome. */
  waitJson(name: string, timeout?: string): Promise<{ code: number; outcome: Record<string, any> }>;
  /** `umbel spawn NAME` with the BYOK world; asserts it started. */
  spawn(name: string, extra?: string[]): Promise<void>;
}

/** Set up (beforeAll) and tear down (afterAll) a world for this test file: the mock, a scratch dir, the runner. */
export function useCopilotWorld(prefix: string, built: string[] = []): CopilotWorld {
  const w = {
    clients: [] as { close(): Promise<unknown> }[],
    async waitJson(name: string, timeout = '180s') {
      const r = await w.umbel(['wait', name, '--json', '--timeout', timeout]);
      return { code: r.code, outcome: JSON.parse(r.stdout || '{}') };
    },
    async spawn(name: string, extra: string[] = []) {
      const started = Date.now();
      const r = await w.umbel(['spawn', name, ...CP, '--startup-timeout', '180s', ...extra]);
      expect(r, r.stderr).toMatchObject({ code: 0, stdout: `${name}\n` });
      console.log(`[copilot] ${name}: spawn → ready in ${Date.now() - started} ms (offline, BYOK)`);
    },
  } as CopilotWorld;
  beforeAll(async () => {
    assertBuilt(['packages/cli/dist/cli.cjs', 'packages/provider-copilot/dist/index.js', ...built]);
    const clis = (await import(join(REPO_ROOT, 'test-fixtures/real/clis.mjs'))) as { realCliPath(id: string): string };
    const copilot = clis.realCliPath('copilot'); // throws "run `pnpm install:real-clis`" when missing: fail, never skip
    const mocks = (await import(join(REPO_ROOT, 'test-fixtures/mock-servers/openai-chat.mjs'))) as { startChatMock(): Promise<ChatMock> };
    w.scratch = await realpath(await mkdtemp(join(tmpdir(), prefix)));
    w.mock = await mocks.startChatMock();
    w.home = join(w.scratch, 'home');
    w.state = join(w.scratch, 'state');
    w.work = join(w.scratch, 'project');
    await mkdir(join(w.work, '.git'), { recursive: true });
    await mkdir(w.home, { recursive: true });
    w.env = testEnv({ home: w.home, umbelHome: w.state, UMBEL_COPILOT_BIN: copilot, ...copilotMockEnv(w.mock.url) });
    w.umbel = umbelRunner({ cwd: w.work, env: w.env }).run;
  }, T);
  afterAll(() => cleanUp({ disconnect: w.clients, workers: [w.umbel], reap: [w.scratch], close: [w.mock], remove: [w.scratch] }), T);
  return w;
}
