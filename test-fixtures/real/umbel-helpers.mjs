// Helpers for the tests that drive the BUILT `umbel` bin (packages/umbel/bin/umbel.js): the real-CLI
// tier (tests/real) against a real pinned CLI and a local mock model server, and the end-to-end tests
// of @umbel/cli (packages/cli/src/e2e*.test.ts) against the fakes. Dependency-free Node ESM; the types
// are in umbel-helpers.d.mts.
//
//   const u = umbelRunner({ cwd, env: testEnv({ home, umbelHome, ...more }) });  // umbel's OWN environment
//   await u.run(['spawn', 'w1', '--env', 'ANTHROPIC_API_KEY', ...]);   // → {code, signal, stdout, stderr}
//   const { child, done } = u.start(['wait', 'w1']);                   // a run to signal midway
//   processesOf({ argsIncludes: [...], cwd, envIncludes: [...] })      // the process table, from /proc
//   workerProcesses(umbelHome, 'w1')                                   // the processes of one worker
//   afterAll(() => cleanUp({ workers: [u.run], reap: [root], close: [mock], remove: [root] }))
//   readJsonl(path), userPrompts(entries), snapshotTree(dir), codexMockConfig({...}), runGeminiPrint({...}),
//   connectUmbelMcp({ env, cwd })
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Repository root. */
export const REPO_ROOT = resolve(here, '..', '..');

/**
 * The tree whose built packages the tests run: this repository, or `$UMBEL_REAL_TIER_BUILD` — a copy of
 * `packages/` (symlinks kept, `node_modules` next to it linking to this repo's) used to run the tier
 * against a build with a planted defect without touching the shared `dist/` folders.
 */
export const BUILD_ROOT = resolve(process.env.UMBEL_REAL_TIER_BUILD || REPO_ROOT);

/** The unscoped `umbel` package's bin (runs the built @umbel/cli). */
export const UMBEL_BIN = join(BUILD_ROOT, 'packages/umbel/bin/umbel.js');

/** The standalone MCP bin. */
export const UMBEL_MCP_BIN = join(BUILD_ROOT, 'packages/mcp/bin/umbel-mcp.js');

/** dist files the umbel bin loads (one per package on its import path). */
const CLI_DIST = ['core', 'tmux', 'provider-claude', 'provider-codex', 'provider-gemini', 'runtime', 'cli'].map((p) =>
  join(BUILD_ROOT, 'packages', p, 'dist/index.js'),
);

/**
 * Throw a loud error when the packages the `umbel` bin needs are not built (the real tier never
 * skips). `pnpm test` builds first; `pnpm test:real` alone does not.
 * @param {string[]} [extra] more files that must exist, relative to BUILD_ROOT (e.g. the MCP or workflow dist)
 */
export function assertBuilt(extra = []) {
  const missing = [...CLI_DIST, ...extra.map((f) => resolve(BUILD_ROOT, f))].filter((f) => !existsSync(f));
  if (missing.length > 0) {
    throw new Error(`umbel is not built (missing ${missing.map((f) => f.slice(BUILD_ROOT.length + 1)).join(', ')}). Run \`pnpm build\` first.`);
  }
}

/**
 * `base` overlaid with each of `layers` in turn; a name mapped to `undefined` is removed.
 * @param {Record<string, string>} base
 * @param {...(Record<string, string | undefined> | undefined)} layers
 * @returns {Record<string, string>}
 */
function overlay(base, ...layers) {
  const out = { ...base };
  for (const layer of layers) {
    for (const [name, value] of Object.entries(layer ?? {})) {
      if (value === undefined) delete out[name];
      else out[name] = value;
    }
  }
  return out;
}

/**
 * The environment a test runs umbel (or a CLI) with: nothing of the test runner's own env, like a
 * user's shell started with `env -i`. PATH, `HOME=home`, LANG=C.UTF-8, `UMBEL_HOME=umbelHome` when
 * given, then `extra`; TMUX_TMPDIR passed through when the runner has one.
 * @param {{home: string, umbelHome?: string} & Record<string, string | undefined>} vars
 * @returns {Record<string, string>}
 */
export function testEnv({ home, umbelHome, ...extra }) {
  return overlay(
    { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' },
    umbelHome === undefined ? {} : { UMBEL_HOME: umbelHome },
    extra,
    process.env.TMUX_TMPDIR ? { TMUX_TMPDIR: process.env.TMUX_TMPDIR } : {},
  );
}

/**
 * Start `file args` with exactly `env` and collect its output. With `input`, stdin is a pipe that
 * gets `input` and is closed; without, stdin is /dev/null. `done` resolves when the process has
 * exited and its output is closed (`code` 128 when a signal ended it); it rejects when the process
 * could not be started.
 * @param {string} file
 * @param {string[]} args
 * @param {{cwd?: string, env?: Record<string, string>, input?: string}} [options]
 */
export function startProcess(file, args, { cwd, env, input } = {}) {
  const child = spawn(file, args, { cwd, env, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d) => {
    stderr += d;
  });
  const done = new Promise((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolvePromise({ code: code ?? 128, signal, stdout, stderr }));
  });
  if (input !== undefined) {
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  }
  return { child, done };
}

/** Run any command with exactly `env`; stdin gets `input` (default: empty) and is closed. */
export function runCommand(file, args, { cwd, env, input = '' }) {
  return startProcess(file, args, { cwd, env, input }).done;
}

/**
 * The built `umbel` bin with exactly `base.env` (nothing of the test runner's env) in `base.cwd`.
 * `run` closes stdin after `input` (default: empty, as in CI with no stdin); `options.env` is laid
 * over `base.env` (a name mapped to `undefined` is removed). `start` runs with stdin /dev/null and
 * hands back the child, for a test that signals it midway.
 * @param {{cwd: string, env: Record<string, string>}} base
 */
export function umbelRunner(base) {
  const optionsOf = (options) => ({ cwd: options.cwd ?? base.cwd, env: overlay(base.env, options.env) });
  return {
    run: (args, options = {}) => startProcess(process.execPath, [UMBEL_BIN, ...args], { ...optionsOf(options), input: options.input ?? '' }).done,
    start: (args, options = {}) => startProcess(process.execPath, [UMBEL_BIN, ...args], optionsOf(options)),
  };
}

/** How many `umbel kill` processes purgeWorkers runs at once. */
const PURGE_AT_ONCE = 8;

/**
 * Kill and purge every worker of one state root through the CLI (`run` is an umbelRunner's run),
 * at most {@link PURGE_AT_ONCE} at a time, listing again until none is left; while the CLI itself fails (a package being rebuilt meanwhile)
 * it retries with a growing pause. Throws when workers are still listed after `attempts` rounds.
 * @param {(args: string[]) => Promise<{code: number, stdout: string, stderr: string}>} run
 * @param {{attempts?: number}} [opts]
 */
export async function purgeWorkers(run, { attempts = 10 } = {}) {
  let problem = '';
  for (let attempt = 0; attempt < attempts; attempt++) {
    const listed = await run(['ls', '--json']);
    if (listed.code === 0) {
      const names = JSON.parse(listed.stdout || '[]').map((w) => w.name);
      if (names.length === 0) return;
      problem = `still listed: ${names.join(', ')}`;
      // several at once: one kill is a whole umbel process, and a file may leave 20 workers behind
      for (let i = 0; i < names.length; i += PURGE_AT_ONCE) await Promise.all(names.slice(i, i + PURGE_AT_ONCE).map((name) => run(['kill', name, '--purge'])));
      continue;
    }
    problem = `\`umbel ls\` failed (exit ${listed.code}): ${listed.stderr}`;
    await new Promise((r) => setTimeout(r, 1000 * (attempt + 1)));
  }
  throw new Error(`could not kill every worker in ${attempts} rounds; ${problem}`);
}

/**
 * A test file's afterAll, in this order: close the `disconnect` clients (MCP; a failure to close
 * one is ignored, it may be gone already), purge the workers of every runner in `workers`
 * (purgeWorkers), run the `verify` checks (that nothing survived), reap every process whose argv
 * mentions a root in `reap` (reapProcesses: what umbel's own kill did not end), `close` the mock
 * servers, remove the folders in `remove`. Every step runs even when an earlier one failed; the
 * failures are thrown at the end. Missing (undefined) entries are skipped, so it is safe after a
 * beforeAll that failed halfway.
 * @param {{disconnect?: Array<{close(): Promise<unknown>} | undefined>, workers?: Array<((args: string[]) => Promise<{code: number, stdout: string, stderr: string}>) | undefined>, verify?: Array<() => Promise<unknown>>, reap?: Array<string | undefined>, close?: Array<{close(): Promise<unknown>} | undefined>, remove?: Array<string | undefined>}} steps
 */
export async function cleanUp({ disconnect = [], workers = [], verify = [], reap = [], close = [], remove = [] }) {
  const failures = [];
  const attempt = async (step) => {
    try {
      await step();
    } catch (error) {
      failures.push(error);
    }
  };
  for (const client of disconnect) {
    try {
      await client?.close();
    } catch {
      // gone already
    }
  }
  for (const run of workers) if (run) await attempt(() => purgeWorkers(run));
  for (const step of verify) await attempt(step);
  for (const root of reap) if (root) await attempt(() => reapProcesses(root));
  for (const closable of close) if (closable) await attempt(() => closable.close());
  for (const dir of remove) if (dir) await attempt(() => rm(dir, { recursive: true, force: true }));
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, `cleanUp: ${failures.length} steps failed: ${failures.map((e) => e?.message ?? e).join(' | ')}`);
}

function readOr(path, fallback) {
  try {
    return readFileSync(path);
  } catch {
    return fallback;
  }
}

/**
 * Every process (from /proc) whose argv contains one of `argsIncludes`, whose cwd is `cwd`, or whose
 * environment holds one of `envIncludes` (exact `NAME=VALUE` entries). The calling process is left out.
 * Processes that vanish while being read are skipped.
 * @param {{argsIncludes?: string[], cwd?: string, envIncludes?: string[]}} match
 * @returns {{pid: number, args: string, cwd?: string, why: string}[]}
 */
export function processesOf({ argsIncludes = [], cwd, envIncludes = [] }) {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const cmdline = readOr(`/proc/${pid}/cmdline`, undefined);
    if (cmdline === undefined) continue;
    const args = cmdline.toString('utf8').split('\0').filter(Boolean).join(' ');
    let procCwd;
    try {
      procCwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      procCwd = undefined;
    }
    const environ = readOr(`/proc/${pid}/environ`, Buffer.alloc(0)).toString('utf8').split('\0');
    const why = [];
    for (const needle of argsIncludes) if (args.includes(needle)) why.push(`args ∋ ${needle}`);
    if (cwd !== undefined && procCwd === cwd) why.push(`cwd = ${cwd}`);
    for (const needle of envIncludes) if (environ.includes(needle)) why.push(`env ∋ ${needle}`);
    if (why.length > 0) found.push({ pid, args, cwd: procCwd, why: why.join(', ') });
  }
  return found;
}

/**
 * The live processes of worker `name` of the state root `umbelHome`: UMBEL_EVENTS_DIR is set for the
 * CLI at launch and inherited by everything it starts (a relaunch child, a detached daemon that left
 * the pane's process tree). Zombies have an empty environ, so they are not listed.
 * @param {string} umbelHome
 * @param {string} name
 */
export function workerProcesses(umbelHome, name) {
  return processesOf({ envIncludes: [`UMBEL_EVENTS_DIR=${join(umbelHome, 'workers', name, 'events')}`] });
}

/**
 * The environment of a live process, from /proc.
 * @param {number} pid
 * @returns {Record<string, string>}
 */
export function environOf(pid) {
  const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return Object.fromEntries(entries.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
}

/**
 * Every file under `dir` (symlinks as `-> target`, folders as `dir`), path and mode → sha256 of its
 * bytes: compare two snapshots to prove a folder was left byte-identical.
 * @param {string} dir
 * @returns {Promise<Map<string, string>>}
 */
export async function snapshotTree(dir) {
  const out = new Map();
  const walk = async (d) => {
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

/** The variables that point GitHub Copilot CLI at an OpenAI-style chat mock at `baseUrl`, offline (its BYOK mode). */
export function copilotMockEnv(baseUrl) {
  return {
    TERM: 'xterm-256color',
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: baseUrl,
    COPILOT_PROVIDER_API_KEY: 'sk-mock-copilot-key',
    COPILOT_PROVIDER_TYPE: 'openai',
    COPILOT_MODEL: 'mock-model',
  };
}

/** `--env` flags passing {@link copilotMockEnv}'s provider variables to a worker by name. */
export const COPILOT_BYOK_FLAGS = ['COPILOT_PROVIDER_BASE_URL', 'COPILOT_PROVIDER_API_KEY', 'COPILOT_PROVIDER_TYPE', 'COPILOT_MODEL'].flatMap((n) => [
  '--env',
  n,
]);

/**
 * A codex `config.toml` selecting the custom model provider `mock` at `baseUrl` (no sign-in screen),
 * its key read from the variable `envKey`: `topLines` are top-level keys (before any table),
 * `providerLines` go into its table, `tail` after it.
 * @param {{baseUrl: string, envKey: string, topLines?: string[], providerLines?: string[], tail?: string[]}} options
 */
export function codexMockConfig({ baseUrl, envKey, topLines = [], providerLines = [], tail = [] }) {
  return [
    'model = "mock-model"',
    'model_provider = "mock"',
    ...topLines,
    '',
    '[model_providers.mock]',
    'name = "Mock"',
    `base_url = "${baseUrl}"`,
    `env_key = "${envKey}"`,
    ...providerLines,
    '',
    // /tmp is no writable root: codex would mount /tmp/.git read-only for each command, and the
    // empty /tmp/.git it leaves on the host meanwhile is a git root to every other CLI under /tmp
    // (codex-FACTS.md "Sandbox"). The worker's private TMPDIR stays writable.
    '[sandbox_workspace_write]',
    'exclude_slash_tmp = true',
    '',
    ...tail,
  ].join('\n');
}

/**
 * `gemini -p PROMPT` itself (the real or the fake CLI at `bin`), run in `cwd` with nothing of the
 * test runner's env but PATH, on its own `home` (seeded with API-key auth plus `settings`; `env`
 * adds variables), against the Gemini API at `baseUrl` with `apiKey`: what `umbel -p` is compared with.
 * @param {{bin: string, prompt: string, cwd: string, home: string, apiKey: string, baseUrl: string, settings?: Record<string, unknown>, env?: Record<string, string>}} options
 */
export async function runGeminiPrint({ bin, prompt, cwd, home, apiKey, baseUrl, settings = {}, env = {} }) {
  await mkdir(join(home, '.gemini'), { recursive: true });
  await writeFile(join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, ...settings }));
  return runCommand(bin, ['-p', prompt], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      GEMINI_CLI_HOME: home,
      GEMINI_API_KEY: apiKey,
      GOOGLE_GEMINI_BASE_URL: baseUrl,
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      ...env,
    },
  });
}

/**
 * An MCP SDK client (the SDK as @umbel/mcp depends on it; tests/real has no dependencies of its own)
 * connected over stdio to the built `umbel-mcp` bin, run with exactly `env` in `cwd`. The server's
 * stderr goes to `onStderr`.
 * @param {{env: Record<string, string>, cwd: string, onStderr?: (text: string) => void}} options
 */
export async function connectUmbelMcp({ env, cwd, onStderr }) {
  const req = createRequire(join(REPO_ROOT, 'packages/mcp/package.json'));
  const { Client } = await import(req.resolve('@modelcontextprotocol/sdk/client/index.js'));
  const { StdioClientTransport } = await import(req.resolve('@modelcontextprotocol/sdk/client/stdio.js'));
  const transport = new StdioClientTransport({ command: process.execPath, args: [UMBEL_MCP_BIN], env, cwd, stderr: 'pipe' });
  transport.stderr?.on('data', (chunk) => onStderr?.(chunk.toString('utf8')));
  const client = new Client({ name: 'umbel-real-tier', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

/**
 * Parse a JSONL file (lines that fail to parse are skipped, as a reader of a live file must).
 * @param {string} path
 * @returns {any[]}
 */
export function readJsonl(path) {
  const out = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // a partial last line
    }
  }
  return out;
}

/**
 * The prompts a person typed, as Claude Code's transcript records them: `type:"user"` entries whose
 * content is the prompt text (a string, or text blocks), tool results left out.
 * @param {any[]} entries transcript entries
 * @returns {string[]}
 */
export function userPrompts(entries) {
  const prompts = [];
  for (const e of entries) {
    if (e?.type !== 'user' || e.isMeta) continue;
    const content = e.message?.content;
    if (typeof content === 'string') prompts.push(content);
    else if (Array.isArray(content) && content.every((b) => b?.type === 'text')) prompts.push(content.map((b) => b.text).join(''));
  }
  return prompts;
}

/**
 * Poll `probe` (a cheap read, e.g. of the process table) until it returns a truthy value or
 * `timeoutMs` passes; returns the last value. For conditions with no event to wait on.
 * @template T
 * @param {() => T} probe
 * @param {{timeoutMs?: number, intervalMs?: number}} [opts]
 * @returns {Promise<T>}
 */
export async function eventually(probe, { timeoutMs = 30000, intervalMs = 100 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let value = probe();
  while (!value && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, intervalMs));
    value = probe();
  }
  return value;
}

/**
 * Poll `check` (sync or async) every 50 ms until it holds; after `ms`, fail naming `what` and, with
 * `explain`, what the world looked like then (so a failure on a loaded CI box says why).
 * @param {() => boolean | Promise<boolean>} check
 * @param {string} what
 * @param {number} [ms]
 * @param {() => string | Promise<string>} [explain]
 */
export async function until(check, what, ms = 120_000, explain) {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (await check()) return;
  const state = explain ? await Promise.resolve(explain()).catch((error) => `(explain failed: ${error})`) : undefined;
  throw new Error(`timed out waiting for ${what}${state === undefined ? '' : `; then: ${state}`}`);
}

/**
 * Wait until no detached teardown of `umbel -p` (`umbel pool finish --detached`) of the state root
 * `umbelHome` runs: `-p` exits once its answer is out, and that process removes its worker (and
 * refills its pool) afterwards. A test that checks what `-p` left behind waits for this first.
 * @param {string} umbelHome
 * @param {{timeoutMs?: number}} [opts]
 */
export async function teardownsDone(umbelHome, { timeoutMs = 60000 } = {}) {
  const running = () => processesOf({ envIncludes: [`UMBEL_HOME=${umbelHome}`] }).filter((p) => p.args.includes('pool finish --detached'));
  if (!(await eventually(() => running().length === 0, { timeoutMs, intervalMs: 50 }))) {
    throw new Error(
      `a detached teardown of ${umbelHome} still runs after ${timeoutMs} ms: ${running()
        .map((p) => p.args)
        .join('; ')}`,
    );
  }
}

/**
 * Last-resort cleanup for a test file's afterAll: end every process whose argv mentions `marker`
 * (a test's own mkdtemp root: its tmux server, launch.sh wrappers, CLI processes, umbel runs) —
 * SIGTERM, then SIGKILL what is left after `graceMs`. Returns what it found. Needed when the umbel
 * under test cannot kill (e.g. a planted defect), so nothing outlives the test file.
 * @param {string} marker
 * @param {{graceMs?: number}} [opts]
 */
export async function reapProcesses(marker, { graceMs = 5000 } = {}) {
  if (!marker || marker.length < 8) throw new TypeError('reapProcesses: a specific marker (a temp root) is required');
  const found = processesOf({ argsIncludes: [marker] });
  const signalAll = (signal) => {
    for (const p of found) {
      try {
        process.kill(p.pid, signal);
      } catch {
        // already gone
      }
    }
  };
  const alive = () => found.filter((p) => existsSync(`/proc/${p.pid}`));
  signalAll('SIGTERM');
  await eventually(() => alive().length === 0, { timeoutMs: graceMs });
  if (alive().length > 0) signalAll('SIGKILL');
  return found;
}
