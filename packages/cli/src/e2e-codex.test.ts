/**
 * End to end on real tmux with `--provider codex`: the built `umbel` bin drives the FAKE codex
 * from test-fixtures (UMBEL_CODEX_BIN = test-fixtures/bin/codex) through the tmux substrate and
 * the codex provider, on every face (supervisor verbs and `umbel -p`). Needs `pnpm build` (the
 * root `pnpm test` builds first). Facts: /work/shared/reference/codex.md; the fake's knobs are in
 * test-fixtures/fake-codex/main.mjs.
 *
 * The "user" here has their own CODEX_HOME (a custom model provider with an `env_key`, an
 * auth.json and an AGENTS.md); umbel must run every worker from its managed home and leave the
 * user's files byte-identical. The project is a git repo, so the "Trust this folder?" dialog
 * would show unless umbel pre-trusts the cwd.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, lstat, mkdir, mkdtemp, readdir, readFile, readlink, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTmuxSubstrate } from '@umbel/tmux';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const bin = join(root, 'packages/umbel/bin/umbel.js');
const fakeCodex = join(root, 'test-fixtures/bin/codex');
const KEY_NAME = 'MOCK_API_KEY';
const KEY_VALUE = 'sk-fake-codex-e2e-not-a-secret';
let scratch: string;
let home: string;
let work: string;
let userCodexHome: string;
let env: Record<string, string>;
let userSnapshot: Map<string, string>;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], options: { env?: Record<string, string>; input?: string; cwd?: string } = {}): Promise<Result> {
  return new Promise((resolvePromise) => {
    const child = execFile(file, args, { cwd: options.cwd ?? work, env: options.env ?? env, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      resolvePromise({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin?.end(options.input ?? '');
  });
}

const umbel = (args: string[], options: { input?: string } = {}) => run(process.execPath, [bin, ...args], options);
/** Every spawn / -p names the provider and passes the model provider's key by name. */
const codexArgs = ['--provider', 'codex', '--env', KEY_NAME];
/** Per-test budget: several spawns on a loaded 2-core CI box (nothing asserts on time). */
const T = 300_000;

function startUmbel(args: string[]): { child: ChildProcess; done: Promise<Result> } {
  const child = spawn(process.execPath, [bin, ...args], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  const done = new Promise<Result>((r) => child.on('close', (code, signal) => r({ code: code ?? (signal ? 128 : 1), stdout, stderr })));
  return { child, done };
}

/** Every file under `dir` (symlinks as `-> target`), path → sha256 of its bytes. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (d: string) => {
    for (const entry of (await readdir(d, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(d, entry.name);
      const st = await lstat(p);
      const key = `${p.slice(dir.length)} mode=${(st.mode & 0o7777).toString(8)}`;
      if (entry.isSymbolicLink()) out.set(key, `-> ${await readlink(p)}`);
      else if (entry.isDirectory()) {
        out.set(key, 'dir');
        await walk(p);
      } else
        out.set(
          key,
          createHash('sha256')
            .update(await readFile(p))
            .digest('hex'),
        );
    }
  };
  await walk(dir);
  return out;
}

/**
 * Live processes whose environment marks them as belonging to `worker` of this state root
 * (UMBEL_EVENTS_DIR is set for the CLI at launch and inherited by everything it starts, including
 * a detached daemon that left the pane's process tree). Zombies have an empty environ.
 */
async function processesOf(worker: string): Promise<string[]> {
  const marker = Buffer.from(`UMBEL_EVENTS_DIR=${join(home, 'workers', worker, 'events')}\0`);
  const found: string[] = [];
  for (const pid of (await readdir('/proc')).filter((n) => /^\d+$/.test(n))) {
    try {
      const environ = await readFile(`/proc/${pid}/environ`);
      if (environ.includes(marker)) found.push(`${pid} ${(await readFile(`/proc/${pid}/cmdline`, 'utf8')).replaceAll('\0', ' ').trim()}`);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

interface RolloutLine {
  type: string;
  payload: Record<string, unknown> & { type?: string; item?: { type?: string; content?: { text?: string }[] } };
}

async function rolloutOf(name: string): Promise<RolloutLine[]> {
  const status = JSON.parse((await umbel(['status', name, '--json'])).stdout);
  expect(status.transcriptPath).toMatch(/\/providers\/codex\/home\/sessions\/.*\/rollout-.*\.jsonl$/);
  return (await readFile(status.transcriptPath, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** The prompts codex received, from the rollout's UserMessage items. */
const promptsIn = (lines: RolloutLine[]) =>
  lines
    .filter((l) => l.type === 'event_msg' && l.payload.type === 'item_completed' && l.payload.item?.type === 'UserMessage')
    .map((l) => l.payload.item?.content?.[0]?.text);

beforeAll(async () => {
  if (!existsSync(join(root, 'packages/cli/dist/cli.js'))) throw new Error('build first: pnpm build (pnpm test does)');
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-e2e-codex-')));
  home = join(scratch, 'state');
  work = join(scratch, 'project');
  userCodexHome = join(scratch, 'user-codex-home');
  await mkdir(join(work, '.git'), { recursive: true });
  await mkdir(join(scratch, 'home'), { recursive: true });
  await mkdir(userCodexHome, { recursive: true });
  // A custom model provider (no sign-in screen); the fake answers locally and never dials it.
  await writeFile(
    join(userCodexHome, 'config.toml'),
    [
      "# the user's own codex config",
      'model = "mock-model"',
      'model_provider = "mock"',
      '',
      '[model_providers.mock]',
      'name = "Mock"',
      'base_url = "http://127.0.0.1:9/v1"',
      `env_key = "${KEY_NAME}"`,
      '',
      '[tui]',
      'screen_reader_detection_done = true',
      '',
    ].join('\n'),
  );
  await writeFile(join(userCodexHome, 'auth.json'), '{"auth_mode":"apikey","OPENAI_API_KEY":"sk-user-own"}\n', { mode: 0o600 });
  await writeFile(join(userCodexHome, 'AGENTS.md'), "# the user's agent notes\n");
  userSnapshot = await snapshot(userCodexHome);
  env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: join(scratch, 'home'),
    LANG: 'C.UTF-8',
    UMBEL_HOME: home,
    UMBEL_CODEX_BIN: fakeCodex,
    CODEX_HOME: userCodexHome,
    [KEY_NAME]: KEY_VALUE,
    ...(process.env.TMUX_TMPDIR ? { TMUX_TMPDIR: process.env.TMUX_TMPDIR } : {}),
  };
});

/**
 * Kill every worker of this state root through the CLI, retrying while the CLI itself fails (a
 * package being rebuilt meanwhile); then sweep any session left on the state root's tmux socket
 * through the substrate (the only code allowed to run tmux). Loud when something survives.
 */
async function killAllWorkers(): Promise<void> {
  let lastError = '';
  for (let attempt = 0; attempt < 10; attempt++) {
    const listed = await umbel(['ls', '--json']);
    if (listed.code === 0) {
      const names: string[] = JSON.parse(listed.stdout || '[]').map((w: { name: string }) => w.name);
      if (names.length === 0) break;
      for (const name of names) await umbel(['kill', name, '--purge']);
      continue;
    }
    lastError = listed.stderr;
    await new Promise((r) => setTimeout(r, 1000 * (attempt + 1)));
  }
  const substrate = createTmuxSubstrate({ home, env });
  const left = await substrate.list();
  for (const session of left) await substrate.kill(session);
  if (left.length > 0) throw new Error(`sessions survived \`umbel kill\`: ${left.join(', ')}${lastError ? `\n${lastError}` : ''}`);
}

afterAll(async () => {
  if (!home) return;
  try {
    await killAllWorkers();
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}, T);

describe('supervisor verbs with --provider codex on the fake codex', () => {
  it(
    'spawn → send → wait returns the exact answer, turn after turn',
    async () => {
      expect(await umbel(['spawn', 'w1', ...codexArgs])).toMatchObject({ code: 0, stdout: 'w1\n' });
      expect(await umbel(['send', 'w1', 'ECHO first answer'])).toMatchObject({ code: 0, stdout: '1\n' });
      expect(await umbel(['wait', 'w1', '--timeout', '90s'])).toMatchObject({ code: 0, stdout: 'first answer\n' });
      expect((await umbel(['send', 'w1', 'ECHO second answer'])).stdout).toBe('2\n');
      const second = JSON.parse((await umbel(['wait', 'w1', '--json', '--timeout', '90s'])).stdout);
      expect(second).toMatchObject({ reason: 'completed', result: 'second answer', turn: 2, provider: 'codex' });
      expect(second.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/); // codex's thread id (UUIDv7)
      expect((await umbel(['read', 'w1', '--turn', '1'])).stdout).toBe('first answer\n');
      expect((await umbel(['ls'])).stdout).toMatch(/w1\s+codex\s+ready\s+2\/2/);
      // one rollout, two turns, each ended by codex's own task_complete
      const lines = await rolloutOf('w1');
      expect(promptsIn(lines)).toEqual(['ECHO first answer', 'ECHO second answer']);
      expect(lines.filter((l) => l.payload.type === 'task_complete').map((l) => l.payload.last_agent_message)).toEqual(['first answer', 'second answer']);
    },
    T,
  );

  it(
    'a multi-line prompt arrives exact and its answer is exact',
    async () => {
      await umbel(['spawn', 'multi', ...codexArgs]);
      const body = 'line one\nline "two" with $HOME and `ticks`\n\n  indented ünïcödé 🚀\ttab; a\\b';
      await umbel(['send', 'multi', `ECHO ${body}`]);
      const outcome = JSON.parse((await umbel(['wait', 'multi', '--json', '--timeout', '90s'])).stdout);
      expect(outcome).toMatchObject({ reason: 'completed', result: body });
      // CRLF is normalised to LF before pasting (codex would turn each CR into a newline of its own)
      await umbel(['send', 'multi', 'ECHO crlf one\r\ncrlf two']);
      expect((await umbel(['wait', 'multi', '--timeout', '90s'])).stdout).toBe('crlf one\ncrlf two\n');
      expect(promptsIn(await rolloutOf('multi'))).toEqual([`ECHO ${body}`, 'ECHO crlf one\ncrlf two']);
    },
    T,
  );

  it(
    'prompts starting with / or ! are delivered as text, not run as commands',
    async () => {
      await umbel(['spawn', 'bang', ...codexArgs]);
      await umbel(['send', 'bang', '/not-a-command please']);
      expect(await umbel(['wait', 'bang', '--timeout', '90s'])).toMatchObject({ code: 0, stdout: 'MOCK-REPLY: /not-a-command please\n' });
      await umbel(['send', 'bang', '!touch bang-ran.txt']);
      expect(await umbel(['wait', 'bang', '--timeout', '90s'])).toMatchObject({ code: 0, stdout: 'MOCK-REPLY: !touch bang-ran.txt\n' });
      expect(existsSync(join(work, 'bang-ran.txt'))).toBe(false); // no local shell command ran
      const lines = await rolloutOf('bang');
      expect(promptsIn(lines)).toEqual(['/not-a-command please', '!touch bang-ran.txt']);
      expect(JSON.stringify(lines)).not.toContain('<user_shell_command>');
    },
    T,
  );

  it(
    'an approval prompt is needs-input (126); `umbel keys` approves it and the turn completes',
    async () => {
      await umbel(['spawn', 'perm', ...codexArgs, '--permission-mode', 'on-request']);
      await umbel(['send', 'perm', 'ASK touch approved-by-keys.txt; echo approved']);
      const blocked = await umbel(['wait', 'perm', '--json', '--timeout', '90s']);
      expect(blocked.code).toBe(126);
      expect(JSON.parse(blocked.stdout)).toMatchObject({
        reason: 'needs-input',
        inputKind: 'permission',
        tool: 'Bash',
        message: 'Mock wants to run: touch approved-by-keys.txt; echo approved',
      });
      expect(existsSync(join(work, 'approved-by-keys.txt'))).toBe(false);
      expect((await umbel(['status', 'perm'])).stdout).toMatch(/state:\s+needs-input/);
      expect(await umbel(['keys', 'perm', 'y'])).toMatchObject({ code: 0 });
      expect(await umbel(['wait', 'perm', '--timeout', '90s'])).toMatchObject({ code: 0, stdout: 'TOOL-RESULT: approved\n' });
      expect(existsSync(join(work, 'approved-by-keys.txt'))).toBe(true);
    },
    T,
  );

  it(
    'an API error fires no hook, yet the wait ends as provider-error (122) before its timeout; the worker lives on',
    async () => {
      await umbel(['spawn', 'err', ...codexArgs]);
      await umbel(['send', 'err', 'FAIL 500 upstream exploded']);
      const r = await umbel(['wait', 'err', '--json', '--timeout', '120s']);
      expect(r.code).toBe(122);
      const outcome = JSON.parse(r.stdout);
      expect(outcome).toMatchObject({ reason: 'provider-error', turn: 1 });
      expect(outcome.message).toContain('experiencing high demand');
      // the only signal was the rollout's task_complete{error}: no stop/interrupt event was written
      const kinds = (await umbel(['logs', 'err', '--json'])).stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { kind: string }).kind);
      expect(kinds).toContain('prompt');
      expect(kinds.filter((k: string) => k === 'stop' || k === 'stop-failure' || k === 'interrupt')).toEqual([]);
      await umbel(['send', 'err', 'ECHO still alive']);
      expect(await umbel(['wait', 'err', '--timeout', '90s'])).toMatchObject({ code: 0, stdout: 'still alive\n' });
    },
    T,
  );

  it(
    'kill leaves no codex process of the worker (daemon included); the tombstone still reads',
    async () => {
      await umbel(['spawn', 'gone', ...codexArgs]);
      await umbel(['send', 'gone', 'ECHO remember me']);
      expect((await umbel(['wait', 'gone', '--timeout', '90s'])).stdout).toBe('remember me\n');
      const before = await processesOf('gone');
      expect(before.some((p) => p.includes('fake-codex/main.mjs'))).toBe(true);
      expect(await umbel(['kill', 'gone'])).toMatchObject({ code: 0, stdout: 'killed: gone\n' });
      expect(await processesOf('gone')).toEqual([]);
      // the managed home never started codex's app-server daemon
      expect(existsSync(join(home, 'providers/codex/home/fake-codex-daemon.pids'))).toBe(false);
      expect((await umbel(['read', 'gone'])).stdout).toBe('remember me\n');
      expect((await umbel(['status', 'gone'])).stdout).toMatch(/state:\s+killed/);
    },
    T,
  );
});

describe('umbel -p --provider codex on the fake codex', () => {
  it(
    'text output equals what `codex exec` prints for the same prompt',
    async () => {
      const prompt = 'ECHO same answer\nacross two lines';
      const execHome = join(scratch, 'exec-codex-home'); // codex exec writes sessions: use a copy
      await cp(userCodexHome, execHome, { recursive: true });
      const exec = await run(fakeCodex, ['exec', '--skip-git-repo-check', prompt], { env: { ...env, CODEX_HOME: execHome } });
      expect(exec.code).toBe(0);
      expect(exec.stdout).toBe('same answer\nacross two lines\n');
      const print = await umbel(['-p', prompt, ...codexArgs]);
      expect(print, print.stderr).toMatchObject({ code: 0, stdout: exec.stdout });
      const dflt = await umbel(['-p', 'hello there', ...codexArgs]);
      expect(dflt.stdout).toBe((await run(fakeCodex, ['exec', '--skip-git-repo-check', 'hello there'], { env: { ...env, CODEX_HOME: execHome } })).stdout);
    },
    T,
  );

  it(
    'json follows the Claude result contract; an API error is is_error with exit 1',
    async () => {
      const ok = await umbel(['-p', 'ECHO as json', '--output-format', 'json', ...codexArgs]);
      expect(ok.code, ok.stderr).toBe(0);
      const json = JSON.parse(ok.stdout);
      expect(json).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'as json', provider: 'codex', num_turns: 1 });
      expect(json.session_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(Object.keys(json.usage)).toEqual(
        expect.arrayContaining(['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens']),
      );
      expect(json.usage).not.toHaveProperty('cached_input_tokens'); // codex's name for cache reads is mapped
      expect(json.usage.input_tokens).toBeGreaterThan(0);
      const failed = await umbel(['-p', 'FAIL 500 boom', '--output-format', 'json', ...codexArgs]);
      expect(failed.code).toBe(1);
      expect(JSON.parse(failed.stdout)).toMatchObject({ type: 'result', is_error: true, terminal_reason: 'api_error', umbel: { reason: 'provider-error' } });
      const text = await umbel(['-p', 'FAIL 500 boom', ...codexArgs]);
      expect(text.code).toBe(1);
      expect(text.stdout).toContain('experiencing high demand');
    },
    T,
  );

  it(
    'stream-json: init, the tool call and its result, then the result; one session id throughout',
    async () => {
      const r = await umbel(['-p', 'TOOL echo streamed', '--output-format', 'stream-json', '--verbose', ...codexArgs]);
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init', provider: 'codex' });
      const assistant = lines.filter((l) => l.type === 'assistant');
      expect(assistant.map((l) => l.message.content[0].type)).toEqual(['tool_use', 'text']);
      expect(assistant[1].message.content[0].text).toBe('TOOL-RESULT: streamed');
      // like `claude -p`: user lines carry tool results only, never the prompt itself
      const user = lines.filter((l) => l.type === 'user');
      expect(user.map((l) => l.message.content[0].type)).toEqual(['tool_result']);
      const result = lines.at(-1);
      expect(result).toMatchObject({ type: 'result', subtype: 'success', result: 'TOOL-RESULT: streamed', num_turns: 2 });
      expect(result.session_id).toMatch(/^[0-9a-f-]{36}$/);
      // `claude -p` stamps every line with the session id of its result
      expect(lines.slice(0, -1).map((l) => l.session_id)).toEqual(lines.slice(0, -1).map(() => result.session_id));
    },
    T,
  );

  it(
    'leaves no anonymous worker and no codex process behind; SIGTERM mid-turn too',
    async () => {
      const workers = JSON.parse((await umbel(['ls', '--json'])).stdout).map((w: { name: string }) => w.name);
      expect(workers.filter((n: string) => n.startsWith('anon-'))).toEqual([]);
      const before = new Set(await readdir(join(home, 'workers')));
      const pending = startUmbel(['-p', 'DELAY 600000 ECHO never', ...codexArgs]);
      let anon: string | undefined;
      // event-driven enough: the worker dir appears at spawn, its prompt event once the turn runs
      for (let i = 0; i < 1200 && !anon; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const fresh = (await readdir(join(home, 'workers'))).find((n) => !before.has(n) && n.startsWith('anon-'));
        if (fresh && (await readdir(join(home, 'workers', fresh, 'events')).catch(() => [] as string[])).some((f) => f.includes('-prompt'))) anon = fresh;
      }
      expect(anon).toBeDefined();
      pending.child.kill('SIGTERM');
      expect((await pending.done).code).toBe(143);
      expect(await readdir(join(home, 'workers'))).not.toContain(anon);
      expect(await processesOf(anon as string)).toEqual([]);
    },
    T,
  );
});

describe("the user's own CODEX_HOME", () => {
  it(
    'is byte-identical after every scenario above; auth.json and AGENTS.md are linked, not copied',
    async () => {
      expect(await snapshot(userCodexHome)).toEqual(userSnapshot);
      const managed = join(home, 'providers/codex/home');
      expect((await lstat(join(managed, 'auth.json'))).isSymbolicLink()).toBe(true);
      expect(await readlink(join(managed, 'auth.json'))).toBe(join(userCodexHome, 'auth.json'));
      expect(await readlink(join(managed, 'AGENTS.md'))).toBe(join(userCodexHome, 'AGENTS.md'));
      const config = await readFile(join(managed, 'config.toml'), 'utf8');
      expect(config).toContain('model_provider = "mock"');
      expect(config).toContain(`[projects."${work}"]`);
      expect(config).toMatch(/daemon_auto_start = false/);
      // the key travelled by name in the env buffer, never into a file umbel wrote
      for (const file of ['config.toml', 'hooks.json']) expect(await readFile(join(managed, file), 'utf8')).not.toContain(KEY_VALUE);
    },
    T,
  );
});
