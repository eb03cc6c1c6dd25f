// Helpers for the real-CLI tier tests that drive the BUILT `umbel` bin (packages/umbel/bin/umbel.js)
// against a real pinned CLI and a local mock model server. Dependency-free Node ESM.
//
//   const u = umbelRunner({ cwd, env });          // env = umbel's OWN environment (like a user's shell)
//   await u.run(['spawn', 'w1', '--env', 'ANTHROPIC_API_KEY', ...]);   // → {code, stdout, stderr}
//   processesOf({ argsIncludes: [...], cwd, envIncludes: [...] })      // the process table, from /proc
//   readJsonl(path), userPrompts(entries)
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
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
const CLI_DIST = ['core', 'tmux', 'provider-claude', 'provider-codex', 'provider-gemini', 'cli'].map((p) => join(BUILD_ROOT, 'packages', p, 'dist/index.js'));

/**
 * Throw a loud error when the packages the `umbel` bin needs are not built (the real tier never
 * skips). `pnpm test` builds first; `pnpm test:real` alone does not.
 * @param {string[]} [extra] more files that must exist (e.g. the MCP or workflow dist)
 */
export function assertBuilt(extra = []) {
  const missing = [...CLI_DIST, ...extra].filter((f) => !existsSync(f));
  if (missing.length > 0) {
    throw new Error(`umbel is not built (missing ${missing.map((f) => f.slice(BUILD_ROOT.length + 1)).join(', ')}). Run \`pnpm build\` first.`);
  }
}

/**
 * Run the built `umbel` bin with exactly `env` (nothing of the test runner's env), stdin closed
 * after `input` (default: empty, as in CI with no stdin).
 * @param {{cwd: string, env: Record<string, string>}} base
 */
export function umbelRunner(base) {
  /**
   * @param {string[]} args
   * @param {{input?: string, env?: Record<string, string>, cwd?: string}} [options]
   * @returns {Promise<{code: number, signal: string | null, stdout: string, stderr: string}>}
   */
  function run(args, options = {}) {
    return new Promise((resolvePromise, reject) => {
      const child = spawn(process.execPath, [UMBEL_BIN, ...args], {
        cwd: options.cwd ?? base.cwd,
        env: { ...base.env, ...(options.env ?? {}) },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d) => {
        stdout += d;
      });
      child.stderr.setEncoding('utf8').on('data', (d) => {
        stderr += d;
      });
      child.on('error', reject);
      child.on('close', (code, signal) => resolvePromise({ code: code ?? 128, signal, stdout, stderr }));
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.input ?? '');
    });
  }
  return { run };
}

/** Run any command with exactly `env`; stdin closed. */
export function runCommand(file, args, { cwd, env, input = '' }) {
  return new Promise((resolvePromise, reject) => {
    const child = execFile(file, args, { cwd, env, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number' && !error.signal) return reject(error);
      resolvePromise({ code: error ? (typeof error.code === 'number' ? error.code : 128) : 0, stdout, stderr });
    });
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
  });
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
