// Real-CLI tier (issue 33, subagents): the REAL pinned gemini 0.61.0 against the Gemini API mock,
// its generalist subagent (`invoke_agent`; the mock's AGENT directive calls it, and answers the
// subagent's own requests by its prompt, a text there as `complete_task`). Facts:
// test-fixtures/real/BACKGROUND-FACTS.md §8. Needs `pnpm build`.
import { readdirSync, readFileSync } from 'node:fs';
import { REPO_ROOT } from '../../test-fixtures/real/umbel-helpers.mjs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins } from '../../test-fixtures/real/clis.mjs';
import { T, useGeminiWorld } from './gemini-world.js';

const w = useGeminiWorld('umbel-real-gemini-bg-');
const umbel = (argv: string[]) => w.umbel(argv);

describe(`real gemini ${readPins().gemini.version}: a subagent (invoke_agent)`, () => {
  it(
    "the turn waits for its subagent and, under --idle-timeout 5s, completes with its answer, never idle; the subagent's chat is in the provider's activity dir",
    async () => {
      // yolo: the subagent's shell call runs without a question
      const spawned = await umbel(['spawn', 'sub', '--provider', 'gemini', '--env', 'GEMINI_API_KEY', '--permission-mode', 'yolo']);
      expect(spawned.code, spawned.stderr).toBe(0);
      expect((await umbel(['send', 'sub', 'AGENT TOOL sleep 10; echo sub-step-done'])).code).toBe(0);
      const r = await umbel(['wait', 'sub', '--json', '--timeout', '180s', '--idle-timeout', '5s']);
      expect(r.code, r.stdout).toBe(0);
      const outcome = JSON.parse(r.stdout);
      expect(outcome).toMatchObject({ reason: 'completed', turn: 1 });
      expect(outcome.result).toContain('sub-step-done');
      expect(outcome).not.toHaveProperty('background');
      // the subagent's requests reached the mock as requests of their own (it offers complete_task)
      const sub = w.mock.requests().filter((q) => q.prompt === 'TOOL sleep 10; echo sub-step-done');
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
