// Real-CLI tier: the REAL pinned `codex` (pnpm install:real-clis --only codex) driven by the built
// `umbel` bin with `--provider codex` (UMBEL_CODEX_BIN = the absolute path of the pinned binary),
// its model API served by the local Responses mock on 127.0.0.1 (test-fixtures/mock-servers/
// openai-responses.mjs). No network, no model service. When the binary is not installed these
// tests FAIL (realCliPath throws), they never skip. Needs `pnpm build` (the umbel bin runs dist/).
//
// Every test plays a fresh user: its own CODEX_HOME whose config.toml selects a custom model
// provider pointing at the mock (reference codex.md §0), its own umbel state root (so its own
// managed CODEX_HOME and tmux socket) and a git project. The provider key travels by name
// (`--env MOCK_API_KEY`).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, lstat, mkdir, mkdtemp, readdir, readFile, readlink, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { startResponsesMock } from '../../test-fixtures/mock-servers/openai-responses.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins, realCliPath } from '../../test-fixtures/real/clis.mjs';

type Json = any;
type Mock = { url: string; requests: () => Array<Record<string, Json>>; close: () => Promise<void> };

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'packages/umbel/bin/umbel.js');
const KEY_NAME = 'MOCK_API_KEY';
const KEY_VALUE = 'sk-real-codex-mock-key';
/** Per-test budget: the real codex on a loaded 2-core CI box (nothing asserts on time). */
const T = 300_000;

let codex: string;
let mock: Mock;
let scratch: string;
const users: User[] = [];

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

interface User {
  dir: string;
  state: string;
  work: string;
  codexHome: string;
  env: Record<string, string>;
  umbel(args: string[]): Promise<Result>;
  snapshot: Map<string, string>;
}

function run(file: string, args: string[], env: Record<string, string>, cwd: string): Promise<Result> {
  return new Promise((resolvePromise) => {
    const child = execFile(file, args, { cwd, env, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      resolvePromise({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin?.end();
  });
}

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

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** A fresh user: own CODEX_HOME (custom provider → `baseUrl`), own umbel state root, a git project. */
async function freshUser(baseUrl = mock.url): Promise<User> {
  if (!codex) codex = realCliPath('codex'); // throws "run `pnpm install:real-clis`" when missing: fail, never skip
  const dir = await mkdtemp(join(scratch, 'user-'));
  const state = join(dir, 'state');
  const work = join(dir, 'project');
  const codexHome = join(dir, 'codex-home');
  await mkdir(join(work, '.git'), { recursive: true }); // a git repo: "Trust this folder?" unless pre-trusted
  await mkdir(join(dir, 'home'), { recursive: true });
  await mkdir(codexHome, { recursive: true });
  await writeFile(
    join(codexHome, 'config.toml'),
    [
      'model = "mock-model"',
      'model_provider = "mock"',
      '',
      '[model_providers.mock]',
      'name = "Mock"',
      `base_url = "${baseUrl}"`,
      `env_key = "${KEY_NAME}"`,
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
    ].join('\n'),
  );
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: join(dir, 'home'),
    LANG: 'C.UTF-8',
    UMBEL_HOME: state,
    UMBEL_CODEX_BIN: codex,
    CODEX_HOME: codexHome,
    [KEY_NAME]: KEY_VALUE,
    ...(process.env.TMUX_TMPDIR ? { TMUX_TMPDIR: process.env.TMUX_TMPDIR } : {}),
  };
  const user: User = {
    dir,
    state,
    work,
    codexHome,
    env,
    umbel: (args) => run(process.execPath, [bin, ...args], env, work),
    snapshot: await snapshot(codexHome),
  };
  users.push(user);
  return user;
}

const codexArgs = ['--provider', 'codex', '--env', KEY_NAME];

/** Live processes launched for `worker` of `user` (marked by the env umbel sets at launch). */
async function processesOf(user: User, worker: string): Promise<string[]> {
  const marker = Buffer.from(`UMBEL_EVENTS_DIR=${join(user.state, 'workers', worker, 'events')}\0`);
  const found: string[] = [];
  for (const pid of (await readdir('/proc')).filter((n) => /^\d+$/.test(n))) {
    try {
      if ((await readFile(`/proc/${pid}/environ`)).includes(marker))
        found.push(`${pid} ${(await readFile(`/proc/${pid}/cmdline`, 'utf8')).replaceAll('\0', ' ').trim()}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The user turns the mock received for a prompt (the hidden title request excluded). */
const turnsFor = (prompt: string) => mock.requests().filter((q) => q.kind === 'turn' && q.prompt === prompt);

beforeAll(async () => {
  if (!existsSync(join(root, 'packages/cli/dist/cli.js'))) throw new Error('build first: pnpm build (pnpm test does)');
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-real-codex-')));
  mock = await startResponsesMock();
}, T);

/**
 * Kill every worker of one user through the CLI, retrying while the CLI itself fails (a package
 * being rebuilt meanwhile). Loud when it never succeeds: a leaked codex would outlive the run.
 */
async function killAllWorkers(user: User): Promise<void> {
  let last: Result | undefined;
  for (let attempt = 0; attempt < 10; attempt++) {
    last = await user.umbel(['ls', '--json']);
    if (last.code === 0) {
      const names: string[] = JSON.parse(last.stdout || '[]').map((w: { name: string }) => w.name);
      if (names.length === 0) return;
      for (const name of names) await user.umbel(['kill', name, '--purge']);
      continue;
    }
    await new Promise((r) => setTimeout(r, 1000 * (attempt + 1)));
  }
  throw new Error(`could not kill the workers of ${user.state}: ${last?.stderr ?? ''}`);
}

afterAll(async () => {
  try {
    for (const user of users) await killAllWorkers(user);
  } finally {
    await mock?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}, T);

describe(`umbel --provider codex on the real ${readPins().codex.package}@${readPins().codex.version} against the Responses mock`, () => {
  it(
    'is the pinned version',
    async () => {
      const user = await freshUser();
      const r = await run(codex, ['--version'], user.env, user.work);
      expect(r.stdout.trim()).toBe(`codex-cli ${readPins().codex.version}`);
    },
    T,
  );

  it(
    'answers exact, turn after turn, multi-line exact; the user CODEX_HOME is untouched',
    async () => {
      const user = await freshUser();
      const spawned = await user.umbel(['spawn', 'w1', ...codexArgs]);
      expect(spawned, spawned.stderr).toMatchObject({ code: 0, stdout: 'w1\n' });
      expect((await user.umbel(['send', 'w1', 'ECHO first answer'])).stdout).toBe('1\n');
      expect(await user.umbel(['wait', 'w1', '--timeout', '120s'])).toMatchObject({ code: 0, stdout: 'first answer\n' });
      expect((await user.umbel(['send', 'w1', 'ECHO second answer'])).stdout).toBe('2\n');
      const second = JSON.parse((await user.umbel(['wait', 'w1', '--json', '--timeout', '120s'])).stdout);
      expect(second).toMatchObject({ reason: 'completed', result: 'second answer', turn: 2, provider: 'codex' });
      expect(second.transcriptPath).toContain(join(user.state, 'providers/codex/home/sessions/'));
      const body = 'line one\nline "two" with $HOME and `ticks`\n\n  indented ünïcödé 🚀';
      expect((await user.umbel(['send', 'w1', `ECHO ${body}`])).stdout).toBe('3\n');
      expect(JSON.parse((await user.umbel(['wait', 'w1', '--json', '--timeout', '120s'])).stdout)).toMatchObject({ reason: 'completed', result: body });
      // what the model API received, byte-exact, each once (the title request aside)
      for (const p of ['ECHO first answer', 'ECHO second answer', `ECHO ${body}`]) expect(turnsFor(p)).toHaveLength(1);
      expect(turnsFor('ECHO first answer')[0].headers.authorization).toBe(`Bearer ${KEY_VALUE}`);
      expect((await user.umbel(['read', 'w1', '--turn', '1'])).stdout).toBe('first answer\n');
      expect(await snapshot(user.codexHome)).toEqual(user.snapshot);
    },
    T,
  );

  it(
    'prompts starting with / or ! reach the model as text',
    async () => {
      const user = await freshUser();
      expect((await user.umbel(['spawn', 'bang', ...codexArgs])).code).toBe(0);
      await user.umbel(['send', 'bang', '/not-a-command please']);
      expect(await user.umbel(['wait', 'bang', '--timeout', '120s'])).toMatchObject({ code: 0, stdout: 'MOCK-REPLY: /not-a-command please\n' });
      await user.umbel(['send', 'bang', '!touch bang-ran.txt']);
      expect(await user.umbel(['wait', 'bang', '--timeout', '120s'])).toMatchObject({ code: 0, stdout: 'MOCK-REPLY: !touch bang-ran.txt\n' });
      expect(existsSync(join(user.work, 'bang-ran.txt'))).toBe(false);
    },
    T,
  );

  it(
    'permission → needs-input (126) → approved with `umbel keys` → completed',
    async () => {
      const user = await freshUser();
      expect((await user.umbel(['spawn', 'perm', ...codexArgs, '--permission-mode', 'on-request'])).code).toBe(0);
      await user.umbel(['send', 'perm', 'ASK touch approved-by-keys.txt; echo approved']);
      const blocked = await user.umbel(['wait', 'perm', '--json', '--timeout', '120s']);
      expect(blocked.code, blocked.stdout).toBe(126);
      expect(JSON.parse(blocked.stdout)).toMatchObject({
        reason: 'needs-input',
        inputKind: 'permission',
        tool: 'Bash',
        message: 'Mock wants to run: touch approved-by-keys.txt; echo approved',
      });
      expect(existsSync(join(user.work, 'approved-by-keys.txt'))).toBe(false);
      expect((await user.umbel(['keys', 'perm', 'y'])).code).toBe(0);
      const done = await user.umbel(['wait', 'perm', '--timeout', '120s']);
      expect(done, done.stderr).toMatchObject({ code: 0, stdout: 'TOOL-RESULT: approved\n' });
      expect(existsSync(join(user.work, 'approved-by-keys.txt'))).toBe(true);
    },
    T,
  );

  it(
    'a model failure (no hook fires) is provider-error (122), and the worker answers again',
    async () => {
      const user = await freshUser();
      expect((await user.umbel(['spawn', 'err', ...codexArgs])).code).toBe(0);
      await user.umbel(['send', 'err', 'FAIL 500 upstream exploded']);
      const r = await user.umbel(['wait', 'err', '--json', '--timeout', '120s']);
      expect(r.code, r.stdout).toBe(122);
      expect(JSON.parse(r.stdout)).toMatchObject({ reason: 'provider-error' });
      await user.umbel(['send', 'err', 'ECHO back again']);
      expect(await user.umbel(['wait', 'err', '--timeout', '120s'])).toMatchObject({ code: 0, stdout: 'back again\n' });
    },
    T,
  );

  it(
    'a dead endpoint is provider-error before the timeout, not an endless reconnect',
    async () => {
      const user = await freshUser(`http://127.0.0.1:${await closedPort()}/v1`);
      expect((await user.umbel(['spawn', 'dead-api', ...codexArgs])).code).toBe(0);
      await user.umbel(['send', 'dead-api', 'ECHO nobody listens']);
      const r = await user.umbel(['wait', 'dead-api', '--json', '--timeout', '150s']);
      expect(r.code, r.stdout).toBe(122);
      expect(JSON.parse(r.stdout)).toMatchObject({ reason: 'provider-error' });
    },
    T,
  );

  it(
    'kill leaves no process of the worker (launcher, codex binary, no daemon)',
    async () => {
      const user = await freshUser();
      expect((await user.umbel(['spawn', 'gone', ...codexArgs])).code).toBe(0);
      await user.umbel(['send', 'gone', 'ECHO remember me']);
      expect((await user.umbel(['wait', 'gone', '--timeout', '120s'])).stdout).toBe('remember me\n');
      const before = await processesOf(user, 'gone');
      expect(before.some((p) => /codex/.test(p))).toBe(true);
      expect(before.filter((p) => /app-server/.test(p))).toEqual([]); // the daemon never started
      expect(await user.umbel(['kill', 'gone'])).toMatchObject({ code: 0, stdout: 'killed: gone\n' });
      expect(await processesOf(user, 'gone')).toEqual([]);
      expect(existsSync(join(user.state, 'providers/codex/home/packages/app-server-daemon'))).toBe(false);
      expect((await user.umbel(['read', 'gone'])).stdout).toBe('remember me\n');
    },
    T,
  );

  it(
    '`umbel -p --provider codex` prints what `codex exec` prints for the same prompt (text), and json/stream-json',
    async () => {
      const user = await freshUser();
      const prompt = 'ECHO same answer\nacross two lines';
      const execHome = join(user.dir, 'exec-codex-home'); // codex exec writes sessions: use a copy
      await cp(user.codexHome, execHome, { recursive: true });
      const exec = await run(codex, ['exec', '--skip-git-repo-check', prompt], { ...user.env, CODEX_HOME: execHome }, user.work);
      expect(exec.code, exec.stderr).toBe(0);
      expect(exec.stdout).toBe('same answer\nacross two lines\n');
      const print = await user.umbel(['-p', prompt, ...codexArgs]);
      expect(print, print.stderr).toMatchObject({ code: 0, stdout: exec.stdout });
      const json = await user.umbel(['-p', 'ECHO as json', '--output-format', 'json', ...codexArgs]);
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'as json', provider: 'codex' });
      const stream = await user.umbel(['-p', 'TOOL echo streamed', '--output-format', 'stream-json', '--verbose', ...codexArgs]);
      expect(stream.code, stream.stderr).toBe(0);
      const lines = stream.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init' });
      expect(lines.some((l) => l.type === 'assistant' && l.message.content[0].type === 'tool_use')).toBe(true);
      expect(lines.some((l) => l.type === 'user' && l.message.content[0].type === 'tool_result')).toBe(true);
      expect(lines.at(-1)).toMatchObject({ type: 'result', result: 'TOOL-RESULT: streamed' });
      const failed = await user.umbel(['-p', 'FAIL 500 boom', ...codexArgs]);
      expect(failed.code, failed.stderr).toBe(1);
      expect(JSON.parse((await user.umbel(['ls', '--json'])).stdout)).toEqual([]); // the anonymous workers are gone
      expect(await snapshot(user.codexHome)).toEqual(user.snapshot);
    },
    T,
  );
});
