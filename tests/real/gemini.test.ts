// Real-CLI tier: the REAL pinned `gemini` 0.61.0 (pnpm install:real-clis --only gemini) driven by the
// built `umbel` bin with `--provider gemini` (UMBEL_GEMINI_BIN = the absolute path of the pinned
// binary), its model API served by the local Gemini API mock on 127.0.0.1
// (test-fixtures/mock-servers/gemini.mjs, via GOOGLE_GEMINI_BASE_URL). No network, no model service.
// When the binary is not installed these tests FAIL (realCliPath throws), they never skip. Needs
// `pnpm build` (the umbel bin runs dist/).
//
// umbel runs as it would in CI: CI=true in its own environment. The user has their own
// `~/.gemini/settings.json` (usage statistics off, so the CLI dials nothing but the mock); the key
// travels by name (`--env GEMINI_API_KEY`).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ProcessInfo, UmbelRun } from '../../test-fixtures/real/umbel-helpers.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins } from '../../test-fixtures/real/clis.mjs';
import { environOf, runGeminiPrint, workerProcesses, teardownsDone } from '../../test-fixtures/real/umbel-helpers.mjs';
import { G, type GeminiMock, KEY, T, useGeminiWorld } from './gemini-world.js';

let gemini: string;
let mock: GeminiMock;
let scratch: string;
let home: string;
let work: string;
let userHome: string;
let userSettingsPath: string;
let userSettingsBytes: Buffer;
let umbel: UmbelRun;
const g = G;

const world = useGeminiWorld(
  'umbel-real-gemini-',
  '{\n  // mine\n  "privacy": { "usageStatisticsEnabled": false },\n  "ui": { "hideTips": true },\n  "general": { "maxAttempts": 3 }\n}\n',
);
const { waitJson } = world;

const geminiProcesses = (procs: ProcessInfo[]) => procs.filter((p) => p.args.includes(gemini) && !p.args.includes('launch.sh'));

beforeAll(async () => {
  ({ gemini, mock, scratch, home, work, userHome, umbel } = world);
  userSettingsPath = join(userHome, '.gemini', 'settings.json');
  userSettingsBytes = await readFile(userSettingsPath);
});

describe(`real gemini ${readPins().gemini.version} with --provider gemini (umbel runs with CI=true)`, () => {
  it(
    'answers exactly, turn after turn; multi-line arrives byte-exact; the worker is interactive',
    async () => {
      const spawned = await umbel(['spawn', 'r1', ...g]);
      expect(spawned, spawned.stderr).toMatchObject({ code: 0, stdout: 'r1\n' });
      await umbel(['send', 'r1', 'ECHO first real answer']);
      expect(await umbel(['wait', 'r1', '--timeout', '180s'])).toMatchObject({ code: 0, stdout: 'first real answer\n' });
      await umbel(['send', 'r1', 'ECHO second real answer']);
      expect((await waitJson('r1')).outcome).toMatchObject({ reason: 'completed', turn: 2, result: 'second real answer', provider: 'gemini' });
      const multi = 'line one\nline "two" with $HOME and `ticks`\n\n\tindented ünïcödé 🚀 ends \\';
      await umbel(['send', 'r1', multi]);
      expect((await waitJson('r1')).outcome).toMatchObject({ reason: 'completed', turn: 3, result: `MOCK-REPLY: ${multi}` });
      const received = mock
        .requests()
        .filter((r) => r.kind === 'turn')
        .map((r) => r.prompt);
      expect(received).toContain(multi);
      expect(mock.requests().every((r) => r.headers?.['x-goog-api-key'] === KEY)).toBe(true);
      // interactive although umbel runs with CI=true: the TUI's processes hold no CI variable
      const [proc] = geminiProcesses(workerProcesses(home, 'r1'));
      expect(proc?.pid).toBeTypeOf('number');
      const workerEnv = environOf(proc?.pid as number);
      expect(Object.keys(workerEnv).filter((name) => name === 'CI' || name === 'GITHUB_ACTIONS')).toEqual([]);
    },
    T,
  );

  it(
    'a permission is needs-input (126); keys approve it and the turn completes; a rejection ends as idle',
    async () => {
      await umbel(['spawn', 'perm', ...g]);
      await umbel(['send', 'perm', 'TOOL touch real-approved.txt']);
      const blocked = await waitJson('perm');
      expect(blocked.code).toBe(126);
      expect(blocked.outcome).toMatchObject({ reason: 'needs-input', inputKind: 'permission', tool: 'touch' });
      expect(blocked.outcome.paneTail).toContain('● 1. Allow once'); // what doDetectInputPrompt keys on
      await umbel(['keys', 'perm', 'Enter']);
      expect(await umbel(['wait', 'perm', '--timeout', '180s'])).toMatchObject({ code: 0, stdout: 'TOOL-RESULT: (empty)\n' });
      expect(existsSync(join(work, 'real-approved.txt'))).toBe(true);

      await umbel(['send', 'perm', 'TOOL touch real-rejected.txt']);
      expect((await waitJson('perm')).code).toBe(126);
      await umbel(['keys', 'perm', 'Escape']);
      const rejected = await waitJson('perm');
      expect(['idle', 'needs-input']).toContain(rejected.outcome.reason);
      expect(rejected.outcome.result).toBeUndefined();
      expect(existsSync(join(work, 'real-rejected.txt'))).toBe(false);
    },
    T,
  );

  it(
    'a model failure is provider-error (122)',
    async () => {
      await umbel(['spawn', 'err', ...g]);
      await umbel(['send', 'err', 'FAIL 400 the real request was bad']);
      const failed = await waitJson('err');
      expect(failed.code).toBe(122);
      expect(failed.outcome).toMatchObject({ reason: 'provider-error' });
      expect(failed.outcome.message).toContain('the real request was bad');
      await umbel(['send', 'err', 'ECHO fine again']);
      expect((await waitJson('err')).outcome).toMatchObject({ reason: 'completed', result: 'fine again' });
    },
    T,
  );

  it(
    "kill leaves no gemini process; the user's settings.json is byte-identical",
    async () => {
      await umbel(['spawn', 'gone', ...g]);
      await umbel(['send', 'gone', 'ECHO remember me']);
      expect((await umbel(['wait', 'gone', '--timeout', '180s'])).stdout).toBe('remember me\n');
      expect(geminiProcesses(workerProcesses(home, 'gone'))).toHaveLength(1);
      expect(await umbel(['kill', 'gone'])).toMatchObject({ code: 0, stdout: 'killed: gone\n' });
      expect(workerProcesses(home, 'gone')).toEqual([]);
      expect(await readFile(userSettingsPath)).toEqual(userSettingsBytes);
    },
    T,
  );
});

describe('umbel -p --provider gemini on the real gemini', () => {
  /** The real `gemini -p` itself, with a seeded home, on the same mock. */
  const geminiP = (prompt: string) =>
    runGeminiPrint({
      bin: gemini,
      prompt,
      cwd: work,
      home: join(scratch, 'direct-gemini-home'),
      apiKey: KEY,
      baseUrl: mock.url,
      settings: { privacy: { usageStatisticsEnabled: false } },
      env: { GEMINI_CLI_NO_RELAUNCH: 'true' },
    });

  it(
    'text equals real `gemini -p` for the same prompt; json follows the Claude contract',
    async () => {
      for (const prompt of ['ECHO plain real answer', 'ECHO two\nlines  ü 🚀', 'what is umbel?']) {
        const direct = await geminiP(prompt);
        expect(direct.code, direct.stderr).toBe(0);
        const viaUmbel = await umbel(['-p', prompt, ...g]);
        expect(viaUmbel.code, viaUmbel.stderr).toBe(0);
        expect(viaUmbel.stdout).toBe(direct.stdout);
      }
      const json = await umbel(['-p', 'ECHO as json', '--output-format', 'json', ...g]);
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'as json', provider: 'gemini' });
      await teardownsDone(home); // -p exited with its answer; its worker goes after, in a detached process
      const workers = (JSON.parse((await umbel(['ls', '--json'])).stdout) as { name: string }[]).map((w) => w.name);
      expect(workers.filter((n) => n.startsWith('anon-'))).toEqual([]);
    },
    T,
  );

  it(
    'account failures: a 401 / 403 is auth-failed (119) on wait and -p',
    async () => {
      await umbel(['spawn', 'acct', ...g]);
      await umbel(['send', 'acct', 'FAIL 401 Request had invalid authentication credentials.']);
      const refused = await waitJson('acct');
      expect(refused.code).toBe(119);
      expect(refused.outcome).toMatchObject({ reason: 'auth-failed' });
      expect(refused.outcome.message).toContain('"code":401');
      await umbel(['send', 'acct', 'FAIL 403 Permission denied: Consumer has been suspended.']);
      expect(await waitJson('acct')).toMatchObject({ code: 119, outcome: { reason: 'auth-failed' } });
      await umbel(['kill', 'acct']);
      const p = await umbel(['-p', 'FAIL 401 Request had invalid authentication credentials.', '--output-format', 'json', ...g]);
      expect(p.code, p.stderr).toBe(119);
      expect(JSON.parse(p.stdout)).toMatchObject({ is_error: true, umbel: { reason: 'auth-failed', exit_code: 119 } });
    },
    T,
  );

  it(
    'the daily quota: the blocking Usage limit reached dialog is rate-limited (118); after Stop the chat record says the same; the worker goes on',
    async () => {
      await umbel(['spawn', 'quota', ...g]);
      await umbel(['send', 'quota', 'FAIL 429 limit=usage You exceeded your current quota, please check your plan and billing details.']);
      const dialog = await waitJson('quota');
      expect(dialog.code).toBe(118);
      expect(dialog.outcome).toMatchObject({ reason: 'rate-limited' });
      expect(dialog.outcome.message).toContain('Usage limit reached for');
      expect((await umbel(['keys', 'quota', 'Down', 'Enter'])).code).toBe(0);
      const stopped = await waitJson('quota');
      expect(stopped.code).toBe(118);
      expect(stopped.outcome).toMatchObject({ reason: 'rate-limited' });
      expect(stopped.outcome.message).toContain('exhausted your daily quota');
      await umbel(['send', 'quota', 'ECHO after the quota']);
      expect((await waitJson('quota')).outcome).toMatchObject({ reason: 'completed', result: 'after the quota' });
      await umbel(['kill', 'quota']);
    },
    T,
  );

  it(
    'a retryable 429, without and with retry info: rate-limited (118) once a whole round (general.maxAttempts 3) failed, cancelled with Escape, the worker goes on; two 429s then an answer complete; -p json says rate-limited',
    async () => {
      const quota = 'You exceeded your current quota, please check your plan and billing details.';
      const attempts = (prompt: string) => mock.requests().filter((r) => r.kind === 'turn' && r.prompt === prompt).length;
      await umbel(['spawn', 'r429', ...g]);
      for (const prompt of [`FAIL 429 ${quota}`, `FAIL 429 reset=2 retry-after=2 ${quota} Please retry in 2s.`]) {
        await umbel(['send', 'r429', prompt]);
        const limited = await waitJson('r429');
        expect(limited.code, JSON.stringify(limited.outcome)).toBe(118);
        expect(limited.outcome).toMatchObject({ reason: 'rate-limited', exitCode: 118 });
        expect(limited.outcome.message).toContain(quota);
        const spent = attempts(prompt);
        expect(spent).toBeGreaterThanOrEqual(3);
        await umbel(['send', 'r429', 'ECHO after the 429']);
        expect((await waitJson('r429')).outcome).toMatchObject({ reason: 'completed', result: 'after the 429' });
        // Escape ended the retry loop: no attempt at the 429 prompt since
        expect(attempts(prompt)).toBe(spent);
      }
      await umbel(['send', 'r429', 'FAIL 429 x2 ECHO answered after two 429s']);
      expect((await waitJson('r429')).outcome).toMatchObject({ reason: 'completed', result: 'answered after two 429s' });
      await umbel(['kill', 'r429']);
      const p = await umbel(['-p', `FAIL 429 ${quota}`, '--output-format', 'json', ...g]);
      expect(p.code, p.stderr).toBe(118);
      expect(JSON.parse(p.stdout)).toMatchObject({ is_error: true, umbel: { reason: 'rate-limited', exit_code: 118 } });
    },
    T,
  );
});
