// Real-CLI tier (issue 33, subagents): the REAL pinned gemini 0.61.0 against the Gemini API mock,
// its generalist subagent (`invoke_agent`; the mock's AGENT directive calls it, and answers the
// subagent's own requests by its prompt, a text there as `complete_task`). Facts:
// test-fixtures/real/BACKGROUND-FACTS.md §8. Needs `pnpm build`.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { startGeminiMock } from '../../test-fixtures/mock-servers/gemini.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins, realCliPath } from '../../test-fixtures/real/clis.mjs';
import type { UmbelRun } from '../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, REPO_ROOT, testEnv, umbelRunner } from '../../test-fixtures/real/umbel-helpers.mjs';

/** Per-test budget: the real gemini on a loaded 2-core CI box (nothing asserts on time). */
const T = 300_000;

let mock: { url: string; requests(): Record<string, any>[]; close(): Promise<void> };
let scratch: string;
let umbel: UmbelRun;

beforeAll(async () => {
  const gemini = realCliPath('gemini'); // throws (the test fails) when the pinned gemini is missing
  assertBuilt(['packages/provider-gemini/dist/index.js']);
  mock = await startGeminiMock();
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-real-gemini-bg-')));
  const work = join(scratch, 'project');
  const userHome = join(scratch, 'home');
  await mkdir(work, { recursive: true });
  await mkdir(join(userHome, '.gemini'), { recursive: true });
  await writeFile(
    join(userHome, '.gemini', 'settings.json'),
    '{ "privacy": { "usageStatisticsEnabled": false }, "ui": { "hideTips": true }, "general": { "maxAttempts": 3 } }\n',
  );
  const env = testEnv({
    home: userHome,
    umbelHome: join(scratch, 'state'),
    UMBEL_GEMINI_BIN: gemini,
    GEMINI_API_KEY: 'real-gemini-mock-key-not-a-secret',
    GOOGLE_GEMINI_BASE_URL: mock.url,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
  });
  umbel = umbelRunner({ cwd: work, env }).run;
}, T);

afterAll(() => cleanUp({ workers: [umbel], reap: [scratch], close: [mock], remove: [scratch] }), T);

describe(`real gemini ${readPins().gemini.version}: a subagent (invoke_agent)`, () => {
  it(
    "the turn waits for its subagent and, under --idle-timeout 3s, completes with its answer, never idle; the subagent's chat is in the provider's activity dir",
    async () => {
      // yolo: the subagent's shell call runs without a question
      const spawned = await umbel(['spawn', 'sub', '--provider', 'gemini', '--env', 'GEMINI_API_KEY', '--permission-mode', 'yolo']);
      expect(spawned.code, spawned.stderr).toBe(0);
      expect((await umbel(['send', 'sub', 'AGENT TOOL sleep 8; echo sub-step-done'])).code).toBe(0);
      const r = await umbel(['wait', 'sub', '--json', '--timeout', '180s', '--idle-timeout', '3s']);
      expect(r.code, r.stdout).toBe(0);
      const outcome = JSON.parse(r.stdout);
      expect(outcome).toMatchObject({ reason: 'completed', turn: 1 });
      expect(outcome.result).toContain('sub-step-done');
      expect(outcome).not.toHaveProperty('background');
      // the subagent's requests reached the mock as requests of their own (it offers complete_task)
      const sub = mock.requests().filter((q) => q.prompt === 'TOOL sleep 8; echo sub-step-done');
      expect(sub.length).toBeGreaterThan(0);
      // where the pinned CLI recorded the subagent's work is the dir the provider watches
      const { gemini } = (await import(join(REPO_ROOT, 'packages/provider-gemini/dist/index.js'))) as {
        gemini: { doFindActivityDirs?(transcriptPath: string, sessionId?: string): readonly string[] };
      };
      const dirs = gemini.doFindActivityDirs?.(outcome.transcriptPath, outcome.sessionId) ?? [];
      expect(dirs).toHaveLength(1);
      const chats = readdirSync(dirs[0] as string).filter((f) => f.endsWith('.jsonl'));
      expect(chats).toHaveLength(1);
      const chat = readFileSync(join(dirs[0] as string, chats[0] as string), 'utf8');
      expect(JSON.parse(chat.split('\n')[0] as string)).toMatchObject({ kind: 'subagent' });
      expect(chat).toContain('"name":"run_shell_command"');
      expect(chat).toContain('"name":"complete_task"');
    },
    T,
  );
});
