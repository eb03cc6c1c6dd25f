/**
 * End to end on real tmux with `--provider copilot`: the built `umbel` bin drives the FAKE GitHub
 * Copilot CLI from test-fixtures (UMBEL_COPILOT_BIN = test-fixtures/bin/copilot) through the tmux
 * substrate and the copilot provider. The fake writes the records the real 1.0.102 writes (session
 * events, hooks of the worker's `--plugin-dir`), so completion, needs-input and errors are read as on
 * the real CLI (tests/real/copilot.test.ts runs the same against it). Needs `pnpm build`.
 * Facts: test-fixtures/real/COPILOT-FACTS.md.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, REPO_ROOT, testEnv, umbelRunner } from '../../../test-fixtures/real/umbel-helpers.mjs';

const fakeCopilot = join(REPO_ROOT, 'test-fixtures/bin/copilot');
/** Per-test budget: several spawns on a loaded 2-core CI box (nothing asserts on time). */
const T = 300_000;
/** A BYOK endpoint passed on purpose (the fake needs something that pays; it never calls it). */
const cp = ['--provider', 'copilot', '--env', 'COPILOT_PROVIDER_BASE_URL'];

let scratch: string;
let home: string;
let state: string;
let work: string;
let umbel: UmbelRun;

async function waitJson(name: string, timeout = '120s'): Promise<{ code: number; outcome: Record<string, any> }> {
  const r = await umbel(['wait', name, '--json', '--timeout', timeout]);
  return { code: r.code, outcome: JSON.parse(r.stdout) };
}

async function spawn(name: string, extra: string[] = cp): Promise<void> {
  const r = await umbel(['spawn', name, ...extra]);
  expect(r, r.stderr).toMatchObject({ code: 0, stdout: `${name}\n` });
}

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs', 'packages/provider-copilot/dist/index.js']);
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-e2e-copilot-')));
  home = join(scratch, 'home');
  state = join(scratch, 'state');
  work = join(scratch, 'project');
  await mkdir(join(work, '.git'), { recursive: true });
  await mkdir(home, { recursive: true });
  const env = testEnv({ home, umbelHome: state, UMBEL_COPILOT_BIN: fakeCopilot, COPILOT_PROVIDER_BASE_URL: 'http://127.0.0.1:9/v1' });
  umbel = umbelRunner({ cwd: work, env }).run;
}, T);

afterAll(() => cleanUp({ workers: [umbel], reap: [scratch], remove: [scratch] }), T);

describe('supervisor verbs with --provider copilot on the fake Copilot CLI', () => {
  it(
    'spawns past the trust dialog, answers two turns exact (one multi-line) from the session events',
    async () => {
      await spawn('c1');
      expect((await umbel(['send', 'c1', 'ECHO first `answer` **bold**'])).stdout).toBe('1\n');
      expect(await umbel(['wait', 'c1', '--timeout', '90s'])).toMatchObject({ code: 0, stdout: 'first `answer` **bold**\n' });
      const body = 'line one\n  line "two" with $HOME\n\nünïcödé 🚀';
      expect((await umbel(['send', 'c1', `ECHO ${body}`])).stdout).toBe('2\n');
      const { outcome } = await waitJson('c1');
      expect(outcome).toMatchObject({ reason: 'completed', result: body, turn: 2, provider: 'copilot', model: 'gpt-5.4' });
      expect(outcome.transcriptPath).toBe(join(home, '.copilot', 'session-state', outcome.sessionId, 'events.jsonl'));
      expect((await umbel(['read', 'c1', '--turn', '1'])).stdout).toBe('first `answer` **bold**\n');
      // the worker's hooks plugin is umbel's own, in the worker dir; ~/.copilot holds only Copilot's records
      const hooks = JSON.parse(await readFile(join(state, 'workers/c1/provider/copilot-plugin/hooks/hooks.json'), 'utf8'));
      expect(Object.keys(hooks.hooks)).toContain('agentStop');
      expect(existsSync(join(home, '.copilot', 'settings.json'))).toBe(false);
      // a leading ! would run a local shell command in Copilot, even after spaces: refused, nothing sent
      const bang = await umbel(['send', 'c1', '  !touch never.txt']);
      expect(bang.code).toBe(2);
      expect(bang.stderr).toMatch(/Copilot would run '!touch never.txt' as a local shell command/);
      expect(existsSync(join(work, 'never.txt'))).toBe(false);
      // a leading / is sent as text (one space), never as a command
      await umbel(['send', 'c1', '/exit please']);
      expect((await waitJson('c1')).outcome).toMatchObject({ reason: 'completed', result: 'MOCK-REPLY:  /exit please' });
    },
    T,
  );

  it(
    'a permission prompt is needs-input naming the command; keys Enter approves it and the turn completes; Escape stops the next',
    async () => {
      await spawn('c2');
      await umbel(['send', 'c2', 'TOOL touch made-by-fake.txt']);
      const asked = await waitJson('c2');
      expect(asked).toMatchObject({ code: 126, outcome: { reason: 'needs-input', inputKind: 'permission', tool: 'bash' } });
      expect(asked.outcome.message).toBe('Copilot asks to use bash: touch made-by-fake.txt');
      expect((await umbel(['keys', 'c2', 'Enter'])).code).toBe(0);
      expect((await waitJson('c2')).outcome).toMatchObject({ reason: 'completed', result: 'TOOL-RESULT: <shellId: 0 completed with exit code 0>' });
      expect(existsSync(join(work, 'made-by-fake.txt'))).toBe(true);
      await umbel(['send', 'c2', 'TOOL rm made-by-fake.txt']);
      expect((await waitJson('c2')).outcome).toMatchObject({ reason: 'needs-input' });
      await umbel(['keys', 'c2', 'Escape']);
      expect((await waitJson('c2')).outcome).toMatchObject({ reason: 'idle', message: expect.stringMatching(/interrupted/) });
      expect(existsSync(join(work, 'made-by-fake.txt'))).toBe(true);
    },
    T,
  );

  it(
    'errors from the session events: 401 auth-failed (119), 500 provider-error, 429 rate-limited; a retried 500 completes',
    async () => {
      await spawn('c3');
      await umbel(['send', 'c3', 'FAIL 401 mock bad key']);
      expect(await waitJson('c3')).toMatchObject({ code: 119, outcome: { reason: 'auth-failed', apiErrorStatus: 401, apiErrorType: 'authentication' } });
      await umbel(['send', 'c3', 'FAIL 500 mock upstream down']);
      expect((await waitJson('c3')).outcome).toMatchObject({ reason: 'provider-error', apiErrorStatus: 500 });
      await umbel(['send', 'c3', 'FAIL 429 mock slow down']);
      expect((await waitJson('c3')).outcome).toMatchObject({ reason: 'rate-limited', apiErrorStatus: 429, apiErrorType: 'rate_limit' });
      await umbel(['send', 'c3', 'FAIL 500 x2 ECHO recovered']);
      expect((await waitJson('c3')).outcome).toMatchObject({ reason: 'completed', result: 'recovered' });
    },
    T,
  );

  it(
    'billing: a BYOK variable is API billing, refused by --billing subscription (exit 3); without one the sign-in screen stops the spawn (126)',
    async () => {
      const refused = await umbel(['spawn', 'c4', ...cp, '--billing', 'subscription']);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(/COPILOT_PROVIDER_BASE_URL/);
      expect(JSON.parse((await umbel(['status', 'c1', '--json'])).stdout)).toMatchObject({ billing: 'api' });
      const signedOut = await umbel(['spawn', 'c5', '--provider', 'copilot']);
      expect(signedOut.code, signedOut.stderr).toBe(126);
      expect(signedOut.stderr).toMatch(/Please use \/login to sign in to use Copilot/);
    },
    T,
  );

  it(
    'umbel -p prints the answer like claude -p (text and json)',
    async () => {
      expect(await umbel(['-p', 'ECHO printed answer', ...cp])).toMatchObject({ code: 0, stdout: 'printed answer\n' });
      const json = await umbel(['-p', 'ECHO json answer', ...cp, '--output-format', 'json']);
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'json answer' });
    },
    T,
  );
});
