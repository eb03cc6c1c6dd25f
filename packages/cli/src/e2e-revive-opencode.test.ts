/**
 * `umbel revive` on real tmux with the fake `opencode` (issue 33; test-fixtures/real/REVIVE-FACTS.md
 * §3): the CLI killed with SIGKILL, or its whole tmux server gone, comes back as `opencode --session
 * <ses_…>` — the fake opens its stored session again, so the next request the chat-completions mock
 * gets carries the earlier turns (a fresh session would carry none). Turn numbers go on, earlier turns
 * stay readable. Needs `pnpm build`.
 */
import { mkdir, mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTmuxSubstrate } from '@umbel/tmux';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, REPO_ROOT, testEnv, umbelRunner, workerProcesses } from '../../../test-fixtures/real/umbel-helpers.mjs';

const T = 300_000;
type Json = any;
interface ChatMock {
  url: string;
  requests(): Json[];
  close(): Promise<void>;
}

let scratch: string;
let state: string;
let mock: ChatMock;
let env: Record<string, string>;
let umbel: UmbelRun;

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs', 'packages/provider-opencode/dist/index.js']);
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-e2e-revive-opencode-')));
  state = join(scratch, 'state');
  const work = join(scratch, 'project');
  await mkdir(join(work, '.git'), { recursive: true });
  const { startChatMock } = (await import(join(REPO_ROOT, 'test-fixtures/mock-servers/openai-chat.mjs'))) as { startChatMock: () => Promise<ChatMock> };
  mock = await startChatMock();
  const { seedOpencodeUser } = (await import(
    join(REPO_ROOT, 'test-fixtures/fake-opencode/seed.mjs')
  )) as typeof import('../../../test-fixtures/fake-opencode/seed.mjs');
  const user = seedOpencodeUser({ home: join(scratch, 'home'), baseUrl: mock.url, installed: false });
  env = testEnv({ home: join(scratch, 'home'), umbelHome: state, UMBEL_OPENCODE_BIN: join(REPO_ROOT, 'test-fixtures/bin/opencode'), ...user });
  ({ run: umbel } = umbelRunner({ cwd: work, env }));
}, T);

afterAll(() => cleanUp({ workers: [umbel], reap: [scratch], close: [mock], remove: [scratch] }), T);

const json = async (args: string[]) => {
  const r = await umbel([...args, '--json']);
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout);
};

/** The texts of the messages the mock got with the request for `prompt`. */
const sentWith = (prompt: string): string[] => {
  const request = mock.requests().findLast((q) => q.kind === 'turn' && q.prompt === prompt);
  return (request?.body?.messages ?? []).map((m: Json) => (typeof m.content === 'string' ? m.content : (m.content ?? []).map((c: Json) => c.text).join('')));
};

async function deadBy(name: string, deadline: number): Promise<void> {
  while ((await json(['status', name])).alive !== false) {
    if (Date.now() > deadline) throw new Error('the worker is still alive after its CLI was killed');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('umbel revive (opencode)', () => {
  it(
    'after a SIGKILL: continues the stored session, turn numbers go on, earlier turns read',
    async () => {
      expect((await umbel(['spawn', 'ov', '--provider', 'opencode', '--startup-timeout', '120s'])).code).toBe(0);
      expect((await umbel(['send', 'ov', 'ECHO alpha answer'])).stdout.trim()).toBe('1');
      expect(await json(['wait', 'ov', '--timeout', '90s'])).toMatchObject({ reason: 'completed', result: 'alpha answer' });
      const before = await json(['status', 'ov']);
      for (const p of workerProcesses(state, 'ov').filter((q: { args: string }) => q.args.includes('opencode'))) process.kill(p.pid, 'SIGKILL');
      await deadBy('ov', Date.now() + 60_000);

      const revived = await umbel(['revive', 'ov', '--startup-timeout', '120s']);
      expect(revived.code, revived.stderr).toBe(0);
      expect((await umbel(['send', 'ov', 'ECHO beta answer'])).stdout.trim()).toBe('2');
      expect(await json(['wait', 'ov', '--timeout', '90s'])).toMatchObject({ reason: 'completed', turn: 2, result: 'beta answer' });
      expect(sentWith('ECHO beta answer')).toEqual(expect.arrayContaining(['ECHO alpha answer', 'alpha answer', 'ECHO beta answer']));
      expect(await json(['read', 'ov', '--turn', '1'])).toMatchObject({ turn: 1, result: 'alpha answer' });
      expect(await json(['status', 'ov'])).toMatchObject({ sessionId: before.sessionId, transcriptPath: before.transcriptPath });
    },
    T,
  );

  it(
    'after the tmux server was killed: revives and continues',
    async () => {
      expect((await umbel(['spawn', 'ok', '--provider', 'opencode', '--startup-timeout', '120s'])).code).toBe(0);
      expect((await umbel(['send', 'ok', 'ECHO before the crash'])).code).toBe(0);
      expect(await json(['wait', 'ok', '--timeout', '90s'])).toMatchObject({ reason: 'completed' });
      await createTmuxSubstrate({ home: state, env }).killServer();
      await deadBy('ok', Date.now() + 60_000);
      const revived = await umbel(['revive', 'ok', '--startup-timeout', '120s']);
      expect(revived.code, revived.stderr).toBe(0);
      expect((await umbel(['send', 'ok', 'ECHO after the crash'])).stdout.trim()).toBe('2');
      expect(await json(['wait', 'ok', '--timeout', '90s'])).toMatchObject({ reason: 'completed', result: 'after the crash' });
      expect(sentWith('ECHO after the crash')).toEqual(expect.arrayContaining(['ECHO before the crash', 'before the crash']));
    },
    T,
  );
});
