// Real-CLI tier: `umbel revive` of the BUILT `umbel` bin with the REAL pinned `codex` against the
// local Responses mock on 127.0.0.1 (test-fixtures/real/REVIVE-FACTS.md §1). The CLI is killed with
// SIGKILL after one turn; `revive` starts it again with `codex resume <thread id>` in the same
// managed CODEX_HOME, and the next request the mock gets carries the earlier conversation; the
// rollout file is the same one, appended. No network, no model service. When the binary or the
// build is missing it FAILS.
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { startResponsesMock } from '../../test-fixtures/mock-servers/openai-responses.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { realCliPath } from '../../test-fixtures/real/clis.mjs';
import type { UmbelRun } from '../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, codexMockConfig, testEnv, umbelRunner, workerProcesses } from '../../test-fixtures/real/umbel-helpers.mjs';

type Json = any;
type Mock = { url: string; requests: () => Array<Record<string, Json>>; close: () => Promise<void> };

const KEY_NAME = 'MOCK_API_KEY';
/** Per-test budget: the real codex on a loaded 2-core CI box (nothing asserts on time). */
const T = 600_000;

let scratch: string;
let state: string;
let mock: Mock;
let umbel: UmbelRun;

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
  const codex = realCliPath('codex'); // throws "run `pnpm install:real-clis`" when missing: fail, never skip
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-real-codex-revive-')));
  mock = await startResponsesMock();
  state = join(scratch, 'state');
  const work = join(scratch, 'project');
  const codexHome = join(scratch, 'codex-home');
  await mkdir(join(work, '.git'), { recursive: true });
  await mkdir(join(scratch, 'home'), { recursive: true });
  await mkdir(codexHome, { recursive: true });
  const config = codexMockConfig({ baseUrl: mock.url, envKey: KEY_NAME, providerLines: ['request_max_retries = 0', 'stream_max_retries = 0'] });
  await writeFile(join(codexHome, 'config.toml'), config);
  const env = testEnv({ home: join(scratch, 'home'), umbelHome: state, UMBEL_CODEX_BIN: codex, CODEX_HOME: codexHome, [KEY_NAME]: 'sk-mock' });
  umbel = umbelRunner({ cwd: work, env }).run;
}, T);

afterAll(() => cleanUp({ workers: [umbel], reap: [scratch], close: [mock], remove: [scratch] }), T);

const json = async (args: string[]) => {
  const r = await umbel([...args, '--json']);
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout);
};

/** Until `status` says the worker is not alive (a condition polled with a generous deadline; nothing timed). */
async function deadBy(deadline: number): Promise<void> {
  while ((await json(['status', 'cr'])).alive !== false) {
    if (Date.now() > deadline) throw new Error('the worker is still alive after its CLI was killed');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The text of every message item of a Responses request's `input`. */
function inputTexts(body: Json): string[] {
  return (body?.input ?? []).flatMap((item: Json) =>
    item?.type !== 'message' ? [] : typeof item.content === 'string' ? [item.content] : (item.content ?? []).map((c: Json) => c?.text ?? ''),
  );
}

describe('revive on the real codex (Responses mock on 127.0.0.1)', () => {
  it('after SIGKILL, revive resumes the thread: the next request carries the earlier turn, the rollout file goes on', { timeout: T }, async () => {
    const spawned = await umbel(['spawn', 'cr', '--provider', 'codex', '--env', KEY_NAME, '--startup-timeout', '180s']);
    expect(spawned.code, spawned.stderr).toBe(0);
    expect((await umbel(['send', 'cr', 'ECHO alpha answer'])).stdout.trim()).toBe('1');
    expect(await json(['wait', 'cr', '--timeout', '240s'])).toMatchObject({ reason: 'completed', result: 'alpha answer' });
    const before = await json(['status', 'cr']);
    expect(before.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(before.transcriptPath).toContain(before.sessionId);

    const procs = workerProcesses(state, 'cr').filter((p: { args: string }) => /codex/.test(p.args));
    expect(procs.length, JSON.stringify(workerProcesses(state, 'cr'))).toBeGreaterThan(0);
    for (const p of procs) process.kill(p.pid, 'SIGKILL');
    await deadBy(Date.now() + 60_000);

    const revived = await umbel(['revive', 'cr', '--startup-timeout', '180s']);
    expect(revived.code, revived.stderr).toBe(0);
    expect((await umbel(['send', 'cr', 'ECHO beta answer'])).stdout.trim()).toBe('2');
    expect(await json(['wait', 'cr', '--timeout', '240s'])).toMatchObject({ reason: 'completed', turn: 2, result: 'beta answer' });
    expect(await json(['read', 'cr', '--turn', '1'])).toMatchObject({ turn: 1, result: 'alpha answer' });

    const beta = mock.requests().findLast((q) => q.kind === 'turn' && q.prompt === 'ECHO beta answer');
    const texts = inputTexts(beta?.body);
    expect(texts.some((t) => t.includes('ECHO alpha answer'))).toBe(true);
    expect(texts.some((t) => t === 'alpha answer')).toBe(true);
    // the same thread and rollout file: appended, both answers in it
    const after = await json(['status', 'cr']);
    expect(after).toMatchObject({ sessionId: before.sessionId, transcriptPath: before.transcriptPath });
    const rollout = readFileSync(before.transcriptPath, 'utf8');
    expect(rollout).toContain('alpha answer');
    expect(rollout).toContain('beta answer');
  });
});
