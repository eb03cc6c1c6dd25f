/**
 * End to end on real tmux with `--provider gemini`: the built `umbel` bin drives the FAKE gemini
 * from test-fixtures (UMBEL_GEMINI_BIN = test-fixtures/bin/gemini) through the tmux substrate and
 * the gemini provider, on every face (supervisor verbs and `umbel -p`). The fake talks to the
 * Gemini API mock (test-fixtures/mock-servers/gemini.mjs) started in this process, so every prompt
 * the "model" received can be checked byte for byte. Needs `pnpm build` (the root `pnpm test`
 * builds first). Facts: /work/shared/reference/gemini.md; the fake's knobs are in
 * test-fixtures/fake-gemini/main.mjs.
 *
 * The "user" has their own `~/.gemini/settings.json` (JSONC, with a hook of their own) and the
 * project has a `.gemini/settings.json` (with a project hook); umbel must leave both byte-identical
 * while both hooks keep running in the worker.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProcessInfo, UmbelRun, UmbelStart } from '../../../test-fixtures/real/umbel-helpers.mjs';
import {
  assertBuilt,
  cleanUp,
  environOf,
  REPO_ROOT,
  runGeminiPrint,
  testEnv,
  umbelRunner,
  workerProcesses,
  teardownsDone,
} from '../../../test-fixtures/real/umbel-helpers.mjs';

const fakeGemini = join(REPO_ROOT, 'test-fixtures/bin/gemini');
/** Per-test budget: several spawns on a loaded 2-core CI box (nothing asserts on time). */
const T = 300_000;

interface MockRequest {
  kind?: string;
  prompt?: string;
  body?: { contents?: { role?: string; parts?: { text?: string }[] }[] };
}
interface GeminiMock {
  url: string;
  requests(): MockRequest[];
  close(): Promise<void>;
}

let scratch: string;
let home: string;
let work: string;
let userHome: string;
let userSettingsPath: string;
let projectSettingsPath: string;
let userSettingsBytes: Buffer;
let projectSettingsBytes: Buffer;
let mock: GeminiMock;
let env: Record<string, string>;

let umbel: UmbelRun;
let startUmbel: UmbelStart;

/** The key is passed by name: umbel never inherits a variable that bills the API (issue 17). */
const g = ['--provider', 'gemini', '--env', 'GEMINI_API_KEY'];

/** The user prompts the Gemini API received (wrappers and @file expansions removed by the mock). */
const promptsReceived = (): string[] =>
  mock
    .requests()
    .filter((r) => r.kind === 'turn' && r.prompt !== undefined)
    .map((r) => r.prompt as string);

/** The fake gemini's node processes (parent and relaunch child both run main.mjs). */
const geminiProcesses = (procs: ProcessInfo[]) => procs.filter((p) => p.args.includes('fake-gemini/main.mjs'));

/** The environment of the worker's gemini process (from /proc). */
function geminiEnvOf(worker: string): Record<string, string> {
  const [proc] = geminiProcesses(workerProcesses(home, worker));
  if (!proc) throw new Error(`no gemini process for ${worker}`);
  return environOf(proc.pid);
}

async function waitJson(name: string, timeout = '120s'): Promise<{ code: number; outcome: Record<string, unknown> }> {
  const r = await umbel(['wait', name, '--json', '--timeout', timeout]);
  return { code: r.code, outcome: JSON.parse(r.stdout || '{}') };
}

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-e2e-gemini-')));
  home = join(scratch, 'state');
  work = join(scratch, 'project');
  userHome = join(scratch, 'home');
  userSettingsPath = join(userHome, '.gemini', 'settings.json');
  projectSettingsPath = join(work, '.gemini', 'settings.json');
  await mkdir(join(userHome, '.gemini'), { recursive: true });
  await mkdir(join(work, '.gemini'), { recursive: true });
  // The user's own settings: JSONC (comments, trailing comma) and an AfterAgent hook of their own.
  await writeFile(
    userSettingsPath,
    `{
  // my own gemini settings
  "ui": { "hideTips": true },
  "privacy": { "usageStatisticsEnabled": false },
  "hooks": { "AfterAgent": [ { "matcher": "", "hooks": [ { "name": "mine", "type": "command", "command": "echo user >> '${join(scratch, 'user-hook.log')}'" } ] } ] },
}
`,
  );
  await writeFile(
    projectSettingsPath,
    `${JSON.stringify({ hooks: { AfterAgent: [{ matcher: '', hooks: [{ name: 'proj', type: 'command', command: `echo project >> '${join(scratch, 'project-hook.log')}'` }] }] } }, null, 2)}\n`,
  );
  userSettingsBytes = await readFile(userSettingsPath);
  projectSettingsBytes = await readFile(projectSettingsPath);
  await writeFile(join(work, 'note.txt'), 'the body of note.txt\n');
  const mockModule = join(REPO_ROOT, 'test-fixtures/mock-servers/gemini.mjs');
  const { startGeminiMock } = (await import(mockModule)) as { startGeminiMock: () => Promise<GeminiMock> };
  mock = await startGeminiMock();
  env = testEnv({
    home: userHome,
    umbelHome: home,
    UMBEL_GEMINI_BIN: fakeGemini,
    GEMINI_API_KEY: 'test-key-not-a-secret',
    GOOGLE_GEMINI_BASE_URL: mock.url,
  });
  ({ run: umbel, start: startUmbel } = umbelRunner({ cwd: work, env }));
}, T);

afterAll(() => cleanUp({ workers: [umbel], reap: [scratch], close: [mock], remove: [scratch] }), T);

describe('supervisor verbs with --provider gemini (fake gemini)', () => {
  it(
    'spawn → send → wait returns the exact answer, turn after turn',
    async () => {
      expect(await umbel(['spawn', 'g1', ...g])).toMatchObject({ code: 0, stdout: 'g1\n' });
      expect(await umbel(['send', 'g1', 'ECHO first answer'])).toMatchObject({ code: 0, stdout: '1\n' });
      expect(await umbel(['wait', 'g1', '--timeout', '120s'])).toMatchObject({ code: 0, stdout: 'first answer\n' });
      expect((await umbel(['send', 'g1', 'ECHO second answer'])).stdout).toBe('2\n');
      const { code, outcome } = await waitJson('g1');
      expect(code).toBe(0);
      expect(outcome).toMatchObject({ reason: 'completed', result: 'second answer', turn: 2, provider: 'gemini' });
      expect(outcome.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect((await umbel(['read', 'g1', '--turn', '1'])).stdout).toBe('first answer\n');
      expect((await umbel(['ls'])).stdout).toMatch(/g1\s+gemini\s+ready\s+2\/2/);
    },
    T,
  );

  it(
    'multi-line, trailing backslash, leading !/?, tabs and @file reach the model exactly as sent',
    async () => {
      await umbel(['spawn', 'exact', ...g]);
      const prompts = [
        'line one\nline "two" with $HOME and `ticks`\n\n  indented ünïcödé 🚀',
        'ends with a backslash \\',
        '!ls -la is not a shell command here',
        '? is not the shortcuts panel',
        'tab\tseparated\tcolumns',
        'summarise @note.txt please',
      ];
      for (const [i, prompt] of prompts.entries()) {
        expect((await umbel(['send', 'exact', prompt])).stdout).toBe(`${i + 1}\n`);
        const { code, outcome } = await waitJson('exact');
        expect(code).toBe(0);
        expect(outcome.result).toBe(`MOCK-REPLY: ${prompt}`);
      }
      const received = promptsReceived();
      for (const prompt of prompts) expect(received).toContain(prompt);
      // @file: gemini attached the file's content, after the prompt as typed
      const withFile = mock.requests().find((r) => r.kind === 'turn' && r.prompt === 'summarise @note.txt please');
      const texts = (withFile?.body?.contents?.at(-1)?.parts ?? []).map((p) => p.text ?? '');
      expect(texts).toContain('the body of note.txt\n');
    },
    T,
  );

  it(
    'a prompt gemini would run as a slash command is refused with a clear error, nothing sent',
    async () => {
      await umbel(['spawn', 'slash', ...g]);
      const r = await umbel(['send', 'slash', '/about']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("gemini would run '/about' as a slash command");
      expect(JSON.parse((await umbel(['status', 'slash', '--json'])).stdout)).toMatchObject({ turn: 0, state: 'ready' });
      // a path is not a command
      await umbel(['send', 'slash', '/tmp/x is a path']);
      expect((await waitJson('slash')).outcome).toMatchObject({ reason: 'completed', result: 'MOCK-REPLY: /tmp/x is a path' });
    },
    T,
  );

  it(
    'a prompt whose first Enter is eaten after the paste still submits (Enter pressed again)',
    async () => {
      // FAKE_GEMINI_EAT_ENTERS: the first Enter after each of the first 2 pastes becomes a newline
      await umbel(['spawn', 'eaten', ...g, '--env', 'FAKE_GEMINI_EAT_ENTERS=2']);
      for (const text of ['ECHO submitted on the second Enter', 'ECHO and again']) {
        const sent = await umbel(['send', 'eaten', text]);
        expect(sent.code, sent.stderr).toBe(0);
        expect((await waitJson('eaten')).outcome).toMatchObject({ reason: 'completed', result: text.slice(5) });
      }
      // the stray newline is trimmed by gemini: the model got the text exactly once, unchanged
      expect(promptsReceived().filter((p) => p.startsWith('ECHO submitted on the second Enter'))).toEqual(['ECHO submitted on the second Enter']);
    },
    T,
  );

  it(
    'an approval is needs-input (126); keys approve it and the turn completes',
    async () => {
      await umbel(['spawn', 'perm', ...g]);
      await umbel(['send', 'perm', 'TOOL touch created-by-gemini.txt']);
      const blocked = await waitJson('perm');
      expect(blocked.code).toBe(126);
      expect(blocked.outcome).toMatchObject({ reason: 'needs-input', inputKind: 'permission', tool: 'touch' });
      expect(blocked.outcome.message).toContain('touch created-by-gemini.txt');
      expect(existsSync(join(work, 'created-by-gemini.txt'))).toBe(false);
      await umbel(['keys', 'perm', 'Enter']);
      expect(await umbel(['wait', 'perm', '--timeout', '120s'])).toMatchObject({ code: 0, stdout: 'TOOL-RESULT: (empty)\n' });
      expect(existsSync(join(work, 'created-by-gemini.txt'))).toBe(true);
    },
    T,
  );

  it(
    'a rejected approval (no AfterAgent) ends the wait as idle, never hangs, never the previous answer',
    async () => {
      await umbel(['spawn', 'reject', ...g]);
      await umbel(['send', 'reject', 'ECHO the earlier answer']);
      expect((await waitJson('reject')).outcome.result).toBe('the earlier answer');
      await umbel(['send', 'reject', 'TOOL touch rejected-by-user.txt']);
      expect((await waitJson('reject')).code).toBe(126);
      await umbel(['keys', 'reject', 'Escape']);
      const after = await waitJson('reject');
      expect(['needs-input', 'idle']).toContain(after.outcome.reason);
      expect(after.code).not.toBe(0);
      expect(after.outcome.result).toBeUndefined();
      expect(existsSync(join(work, 'rejected-by-user.txt'))).toBe(false);
    },
    T,
  );

  // FAILS on the current core (packages/core/src/events.ts interpretEvents: a turn that ended with
  // no end hook swallows the next turn's stop; engine.ts statusFrom ignores the keys that answered
  // the approval). See the report of the gemini e2e task.
  it(
    'after a rejected approval the worker is ready again and the next turn completes',
    async () => {
      await umbel(['spawn', 'next', ...g]);
      await umbel(['send', 'next', 'TOOL touch rejected-again.txt']);
      expect((await waitJson('next')).code).toBe(126);
      await umbel(['keys', 'next', 'Escape']);
      expect((await waitJson('next')).outcome.reason).toBe('idle');
      expect.soft(JSON.parse((await umbel(['status', 'next', '--json'])).stdout).state).toBe('ready');
      expect((await umbel(['send', 'next', 'ECHO after the rejection'])).stdout).toBe('2\n');
      const { code, outcome } = await waitJson('next', '60s');
      expect(outcome).toMatchObject({ reason: 'completed', turn: 2, result: 'after the rejection' });
      expect(code).toBe(0);
    },
    T,
  );

  it(
    'an API error is provider-error (122); a retried 503 recovers',
    async () => {
      await umbel(['spawn', 'err', ...g, '--env', 'FAKE_GEMINI_RETRY_MS=20']);
      await umbel(['send', 'err', 'FAIL 400 the request was bad']);
      const failed = await waitJson('err');
      expect(failed.code).toBe(122);
      expect(failed.outcome).toMatchObject({ reason: 'provider-error' });
      expect(failed.outcome.message).toContain('the request was bad');
      await umbel(['send', 'err', 'FAIL 503 x2 ECHO recovered after retries']);
      expect((await waitJson('err')).outcome).toMatchObject({ reason: 'completed', result: 'recovered after retries' });
    },
    T,
  );

  it(
    'a 401 / 403 in the chat record is auth-failed (119) on wait and -p',
    async () => {
      await umbel(['spawn', 'acct', ...g]);
      await umbel(['send', 'acct', 'FAIL 401 Request had invalid authentication credentials.']);
      const refused = await waitJson('acct');
      expect(refused.code).toBe(119);
      expect(refused.outcome).toMatchObject({ reason: 'auth-failed', exitCode: 119 });
      expect(refused.outcome.message).toContain('"code":401');
      await umbel(['send', 'acct', 'FAIL 403 Permission denied: Consumer has been suspended.']);
      const text = await umbel(['wait', 'acct', '--timeout', '120s']);
      expect(text.code).toBe(119);
      expect(text.stderr).toContain('sign in again');
      await umbel(['kill', 'acct']);
      const json = await umbel(['-p', 'FAIL 401 Request had invalid authentication credentials.', '--output-format', 'json', ...g]);
      expect(json.code, json.stderr).toBe(119);
      expect(JSON.parse(json.stdout)).toMatchObject({ is_error: true, terminal_reason: 'api_error', umbel: { reason: 'auth-failed', exit_code: 119 } });
    },
    T,
  );

  it(
    "the daily quota's blocking Usage limit reached dialog is rate-limited (118) with the screen",
    async () => {
      await umbel(['spawn', 'quota', ...g]);
      await umbel(['send', 'quota', 'FAIL 429 limit=usage You exceeded your current quota, please check your plan and billing details.']);
      const limited = await waitJson('quota');
      expect(limited.code).toBe(118);
      expect(limited.outcome).toMatchObject({ reason: 'rate-limited' });
      expect(limited.outcome.message).toContain('Usage limit reached for');
      expect(limited.outcome.paneTail).toContain('2. Stop');
      await umbel(['kill', 'quota']);
    },
    T,
  );

  it(
    'a retryable 429 the TUI retries forever is rate-limited (118) once a whole round of attempts failed (the telemetry), umbel cancels it with Escape and the worker stays usable; transient 429s still complete',
    async () => {
      await umbel(['spawn', 'retry', ...g, '--env', 'FAKE_GEMINI_RETRY_MS=20']);
      const prompt = 'FAIL 429 retry-after=2 Resource has been exhausted';
      const attempts = () => mock.requests().filter((r) => r.kind === 'turn' && r.prompt === prompt).length;
      await umbel(['send', 'retry', prompt]);
      const limited = await waitJson('retry');
      expect(limited.code).toBe(118);
      expect(limited.outcome).toMatchObject({ reason: 'rate-limited', exitCode: 118, message: 'Resource has been exhausted' });
      // at least a whole round (general.maxAttempts, 10 by default) was spent on it
      expect(attempts()).toBeGreaterThanOrEqual(10);
      const afterCancel = attempts();
      // the same turn waited again is still rate-limited (the records say so, not the wait that cancelled it)
      expect((await waitJson('retry')).outcome).toMatchObject({ reason: 'rate-limited' });
      await umbel(['send', 'retry', 'ECHO still usable']);
      expect((await waitJson('retry')).outcome).toMatchObject({ reason: 'completed', result: 'still usable' });
      // Escape stopped the retry loop: no attempt at the 429 prompt since
      expect(attempts()).toBe(afterCancel);
      await umbel(['send', 'retry', 'FAIL 429 x2 ECHO answered after two 429s']);
      expect((await waitJson('retry')).outcome).toMatchObject({ reason: 'completed', result: 'answered after two 429s' });
      await umbel(['kill', 'retry']);
      const json = await umbel(['-p', prompt, '--output-format', 'json', ...g, '--env', 'FAKE_GEMINI_RETRY_MS=20']);
      expect(json.code, json.stderr).toBe(118);
      expect(JSON.parse(json.stdout)).toMatchObject({ is_error: true, umbel: { reason: 'rate-limited', exit_code: 118 } });
    },
    T,
  );

  it(
    'umbel running with CI=true (and GITHUB_ACTIONS=true) still gets an interactive worker',
    async () => {
      const ci = { CI: 'true', GITHUB_ACTIONS: 'true' };
      // even when the caller forwards them by name, as a CI wrapper script would
      const spawned = await umbel(['spawn', 'ci', ...g, '--env', 'CI', '--env', 'GITHUB_ACTIONS'], { env: ci });
      expect(spawned.code, spawned.stderr).toBe(0);
      await umbel(['send', 'ci', 'ECHO interactive under CI'], { env: ci });
      expect(await umbel(['wait', 'ci', '--timeout', '120s'], { env: ci })).toMatchObject({ code: 0, stdout: 'interactive under CI\n' });
      const workerEnv = geminiEnvOf('ci');
      expect(workerEnv.CI).toBeUndefined();
      expect(workerEnv.GITHUB_ACTIONS).toBeUndefined();
    },
    T,
  );

  it(
    "no key passed: spawn refuses the sign-in screen with 126 (the caller's GEMINI_API_KEY is not inherited) naming --env GEMINI_API_KEY; a signed-out CLI likewise",
    async () => {
      const noKey = await umbel(['spawn', 'nokey', '--provider', 'gemini']);
      expect(noKey.code).toBe(126);
      expect(noKey.stderr).toContain('How would you like to authenticate');
      expect(noKey.stderr).toContain('--env GEMINI_API_KEY');
      const withKey = await umbel(['spawn', 'withkey', ...g, '--json']);
      expect(withKey.code).toBe(0);
      expect(JSON.parse(withKey.stdout)).toMatchObject({
        billing: 'api',
        billingEvidence: 'security.auth.selectedType "gemini-api-key"',
        endpoint: new URL(mock.url).toString(),
      });
      expect((await umbel(['kill', 'withkey'])).code).toBe(0);
      const guarded = await umbel(['spawn', 'guarded', ...g, '--billing', 'subscription']);
      expect(guarded.code).toBe(3);
      expect(guarded.stderr).toContain('GEMINI_API_KEY passed to the worker');
      expect((await umbel(['status', 'guarded'])).code).toBe(1);
      const out = await umbel(['spawn', 'signedout', ...g, '--env', 'FAKE_GEMINI_SIGNED_OUT=1']);
      expect(out.code).toBe(126);
      expect(out.stderr).toContain('How would you like to authenticate');
      expect(geminiProcesses([...workerProcesses(home, 'nokey'), ...workerProcesses(home, 'signedout')])).toEqual([]);
    },
    T,
  );

  it(
    'kill leaves no gemini process of the worker (one process; and a relaunch parent + child)',
    async () => {
      await umbel(['spawn', 'gone', ...g]);
      await umbel(['send', 'gone', 'ECHO remember me']);
      expect((await umbel(['wait', 'gone', '--timeout', '120s'])).stdout).toBe('remember me\n');
      // GEMINI_CLI_NO_RELAUNCH=true: a single gemini process
      expect(geminiProcesses(workerProcesses(home, 'gone'))).toHaveLength(1);
      expect(await umbel(['kill', 'gone'])).toMatchObject({ code: 0, stdout: 'killed: gone\n' });
      expect(workerProcesses(home, 'gone')).toEqual([]);
      expect((await umbel(['read', 'gone'])).stdout).toBe('remember me\n');

      // a gemini that relaunches itself anyway (a wrapper drops GEMINI_CLI_NO_RELAUNCH): its parent
      // ignores SIGTERM/SIGHUP and its child would linger as an orphan
      const wrapper = join(scratch, 'relaunching-gemini');
      await writeFile(wrapper, `#!/bin/sh\nunset GEMINI_CLI_NO_RELAUNCH\nexec '${fakeGemini}' "$@"\n`);
      await chmod(wrapper, 0o755);
      const spawned = await umbel(['spawn', 'relaunch', ...g], { env: { UMBEL_GEMINI_BIN: wrapper } });
      expect(spawned.code, spawned.stderr).toBe(0);
      await umbel(['send', 'relaunch', 'ECHO from the child']);
      expect((await umbel(['wait', 'relaunch', '--timeout', '120s'])).stdout).toBe('from the child\n');
      expect(geminiProcesses(workerProcesses(home, 'relaunch'))).toHaveLength(2);
      expect((await umbel(['kill', 'relaunch'])).code).toBe(0);
      expect(workerProcesses(home, 'relaunch')).toEqual([]);
    },
    T,
  );

  it(
    "the user's and the project's .gemini/settings.json stay byte-identical; their hooks still run",
    async () => {
      await umbel(['spawn', 'mine', ...g]);
      await umbel(['send', 'mine', 'ECHO hooks of every layer']);
      expect((await umbel(['wait', 'mine', '--timeout', '120s'])).stdout).toBe('hooks of every layer\n');
      await umbel(['kill', 'mine']);
      expect(await readFile(userSettingsPath)).toEqual(userSettingsBytes);
      expect(await readFile(projectSettingsPath)).toEqual(projectSettingsBytes);
      expect(await readdir(join(work, '.gemini'))).toEqual(['settings.json']);
      expect(await readFile(join(scratch, 'user-hook.log'), 'utf8')).toContain('user\n');
      expect(await readFile(join(scratch, 'project-hook.log'), 'utf8')).toContain('project\n');
    },
    T,
  );
});

describe('umbel -p --provider gemini (fake gemini)', () => {
  /** The fake `gemini -p` itself, with a seeded home, on the same mock. */
  const geminiP = (prompt: string) =>
    runGeminiPrint({ bin: fakeGemini, prompt, cwd: work, home: join(scratch, 'direct-gemini-home'), apiKey: 'test-key-not-a-secret', baseUrl: mock.url });

  it(
    'text output equals `gemini -p` for the same prompt',
    async () => {
      for (const prompt of ['ECHO plain answer', 'ECHO two\nlines  ü 🚀', 'what is umbel?']) {
        const direct = await geminiP(prompt);
        expect(direct.code).toBe(0);
        const viaUmbel = await umbel(['-p', prompt, ...g]);
        expect(viaUmbel.code, viaUmbel.stderr).toBe(0);
        expect(viaUmbel.stdout).toBe(direct.stdout);
      }
      expect((await geminiP('ECHO plain answer')).stdout).toBe('plain answer\n');
    },
    T,
  );

  it(
    'a prompt sent the moment gemini is up arrives exactly (not while its config still initializes)',
    async () => {
      // the input box is drawn before the config is initialized: a paste then arrives as typed keys
      const prompt = '?first line\n!second line';
      const r = await umbel(['-p', prompt, ...g]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`MOCK-REPLY: ${prompt}\n`);
      expect(promptsReceived()).toContain(prompt);
    },
    T,
  );

  it(
    'json and stream-json follow the Claude output contract; no anonymous worker is left',
    async () => {
      const json = await umbel(['-p', 'ECHO as json', '--output-format', 'json', ...g]);
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({
        type: 'result',
        subtype: 'success',
        is_error: false,
        result: 'as json',
        num_turns: 1,
        provider: 'gemini',
      });
      expect(JSON.parse(json.stdout).session_id).toMatch(/^[0-9a-f-]{36}$/);

      const stream = await umbel(['-p', 'TOOL echo streamed', '--output-format', 'stream-json', '--verbose', ...g]);
      expect(stream.code).toBe(0);
      const lines = stream.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init', provider: 'gemini' });
      const assistant = lines.filter((l) => l.type === 'assistant');
      expect(assistant.length).toBeGreaterThanOrEqual(2);
      expect(assistant[0].message.content[0]).toMatchObject({ type: 'tool_use', name: 'run_shell_command', input: { command: 'echo streamed' } });
      expect(lines.find((l) => l.type === 'user')?.message.content[0]).toMatchObject({ type: 'tool_result' });
      expect(lines.at(-1)).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'TOOL-RESULT: streamed' });

      const failed = await umbel(['-p', 'FAIL 400 refused by the API', '--output-format', 'json', ...g]);
      expect(failed.code).toBe(1);
      expect(JSON.parse(failed.stdout)).toMatchObject({ type: 'result', is_error: true, provider: 'gemini' });
      expect(JSON.parse(failed.stdout).result).toContain('refused by the API');

      await teardownsDone(home); // -p exited with its answer; its worker goes after, in a detached process
      const workers = (JSON.parse((await umbel(['ls', '--json'])).stdout) as { name: string }[]).map((w) => w.name);
      expect(workers.filter((n) => n.startsWith('anon-'))).toEqual([]);
    },
    T,
  );

  it(
    'SIGTERM mid-turn leaves no session, state dir or gemini process',
    async () => {
      const before = new Set(await readdir(join(home, 'workers')));
      const running = startUmbel(['-p', 'DELAY 60000 ECHO never', ...g]);
      // event-driven enough: the anonymous worker's prompt event means gemini accepted the turn
      let anon: string | undefined;
      for (let i = 0; i < 1200 && !anon; i++) {
        await new Promise((r) => setTimeout(r, 100));
        for (const n of await readdir(join(home, 'workers'))) {
          if (before.has(n) || !n.startsWith('anon-')) continue;
          const events = await readdir(join(home, 'workers', n, 'events')).catch(() => [] as string[]);
          if (events.some((e) => e.endsWith('-prompt.json'))) anon = n;
        }
      }
      expect(anon).toBeDefined();
      running.child.kill('SIGTERM');
      expect((await running.done).code).toBe(143);
      expect(await readdir(join(home, 'workers'))).not.toContain(anon);
      expect(workerProcesses(home, anon as string)).toEqual([]);
    },
    T,
  );
});

describe('evidence verbs and CLI commands on the fake gemini', () => {
  it(
    'actions: the shell command of a tool turn',
    async () => {
      expect((await umbel(['spawn', 'ev', ...g, '--unattended'])).code).toBe(0);
      await umbel(['send', 'ev', 'TOOL echo from gemini']);
      expect(await umbel(['wait', 'ev', '--timeout', '120s'])).toMatchObject({ code: 0, stdout: 'TOOL-RESULT: from gemini\n' });
      const actions = JSON.parse((await umbel(['actions', 'ev', '--json'])).stdout);
      expect(actions).toMatchObject({ provider: 'gemini', toolsUsed: { run_shell_command: 1 }, shellCommands: ['echo from gemini'], errors: [] });
    },
    T,
  );

  it(
    'a slash command is refused as a prompt (gemini trims a leading space away); --command runs it, with no model turn',
    async () => {
      await umbel(['spawn', 'cmd', ...g]);
      const refused = await umbel(['send', 'cmd', '/about']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("gemini would run '/about' as a slash command");
      const before = promptsReceived().length;
      const ran = await umbel(['send', 'cmd', '--command', '/about', '--json']);
      expect(JSON.parse(ran.stdout)).toEqual({ worker: 'cmd', turn: 1, command: true, modelTurn: false });
      expect((await umbel(['capture', 'cmd'])).stdout).toContain('About Gemini CLI');
      expect(promptsReceived().length).toBe(before);
      expect((await umbel(['send', 'cmd', '! is text when pasted'])).stdout).toBe('2\n');
      expect((await umbel(['wait', 'cmd', '--timeout', '120s'])).stdout).toBe('MOCK-REPLY: ! is text when pasted\n');
    },
    T,
  );
});
