// The real-CLI tier's world for the REAL pinned gemini (pnpm install:real-clis --only gemini), driven
// by the built `umbel` bin with `--provider gemini` (UMBEL_GEMINI_BIN = the absolute path of the pinned
// binary), its model API served by the Gemini API mock on 127.0.0.1 (test-fixtures/mock-servers/gemini.mjs,
// via GOOGLE_GEMINI_BASE_URL), umbel running with CI=true. No network, no model service. When the
// binary is not installed the tests FAIL (realCliPath throws), they never skip. Needs `pnpm build`.
import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { UmbelRun } from '../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, REPO_ROOT, testEnv, umbelRunner } from '../../test-fixtures/real/umbel-helpers.mjs';

/** Per-test budget: the real gemini on a loaded 2-core CI box (nothing asserts on time). */
export const T = 300_000;
export const KEY = 'real-gemini-mock-key-not-a-secret';
/** Every spawn / -p names the provider and passes the key by name. */
export const G = ['--provider', 'gemini', '--env', 'GEMINI_API_KEY'];
/**
 * The user's `~/.gemini/settings.json` of a world unless it names its own: no telemetry, no tips, and
 * general.maxAttempts 3: a round of 429 retries takes ~15 s, not ~4 min (never 1: with a persistent
 * 429 the TUI then retries in a tight loop, ACCOUNT-FACTS.md §3.2 / gemini.md §1.3).
 */
export const QUIET_SETTINGS = '{ "privacy": { "usageStatisticsEnabled": false }, "ui": { "hideTips": true }, "general": { "maxAttempts": 3 } }\n';

export interface GeminiMock {
  url: string;
  requests(): { kind?: string; prompt?: string; headers?: Record<string, string | undefined> }[];
  close(): Promise<void>;
}

/** One test file's world; its fields are set once its beforeAll has run. */
export interface GeminiWorld {
  umbel: UmbelRun;
  mock: GeminiMock;
  /** The pinned gemini binary. */
  gemini: string;
  /** The scratch dir, umbel's state root, the project (cwd), the user's home. */
  scratch: string;
  home: string;
  work: string;
  userHome: string;
  /** The environment umbel runs with. */
  env: Record<string, string>;
  /** `umbel wait NAME --json`: its exit code and outcome. */
  waitJson(name: string): Promise<{ code: number; outcome: Record<string, any> }>;
}

/** Set up (beforeAll) and tear down (afterAll) a world for this test file: the mock, a scratch dir with the user's settings, the runner. */
export function useGeminiWorld(prefix: string, settings = QUIET_SETTINGS): GeminiWorld {
  const w = {
    async waitJson(name: string) {
      const r = await w.umbel(['wait', name, '--json', '--timeout', '180s']);
      return { code: r.code, outcome: JSON.parse(r.stdout || '{}') };
    },
  } as GeminiWorld;
  beforeAll(async () => {
    const clis = (await import(join(REPO_ROOT, 'test-fixtures/real/clis.mjs'))) as { realCliPath(id: string): string };
    w.gemini = clis.realCliPath('gemini'); // throws (the test fails) when the pinned gemini is missing
    assertBuilt();
    const mocks = (await import(join(REPO_ROOT, 'test-fixtures/mock-servers/gemini.mjs'))) as { startGeminiMock(): Promise<GeminiMock> };
    w.mock = await mocks.startGeminiMock();
    w.scratch = await realpath(await mkdtemp(join(tmpdir(), prefix)));
    w.home = join(w.scratch, 'state');
    w.work = join(w.scratch, 'project');
    w.userHome = join(w.scratch, 'home');
    await mkdir(w.work, { recursive: true });
    await mkdir(join(w.userHome, '.gemini'), { recursive: true });
    await writeFile(join(w.userHome, '.gemini', 'settings.json'), settings);
    w.env = testEnv({
      home: w.userHome,
      umbelHome: w.home,
      UMBEL_GEMINI_BIN: w.gemini,
      GEMINI_API_KEY: KEY,
      GOOGLE_GEMINI_BASE_URL: w.mock.url,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
    });
    w.umbel = umbelRunner({ cwd: w.work, env: w.env }).run;
  }, T);
  afterAll(() => cleanUp({ workers: [w.umbel], reap: [w.scratch], close: [w.mock], remove: [w.scratch] }), T);
  return w;
}
