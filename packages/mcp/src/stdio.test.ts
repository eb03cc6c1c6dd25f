/**
 * The BUILT `umbel-mcp` bin over stdio: raw JSON-RPC (every stdout line is JSON-RPC, exit on stdin
 * close and on SIGTERM, UMBEL_HOME honoured), and the SDK's own stdio client driving the default
 * engine (real tmux + the fake `claude` from test-fixtures, talking to the local Anthropic mock).
 *
 * The bin runs from dist/: beforeAll builds @umbel/mcp and its dependencies when a dist is missing
 * or older than its sources (the root test script builds everything first, so this is usually a
 * no-op). All waits are event-driven with generous deadlines.
 */
import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Outcome, statePaths, type WorkerMeta } from '@umbel/core';
import { createTmuxSubstrate } from '@umbel/tmux';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_NAMES } from './server.js';

const here = dirname(fileURLToPath(import.meta.url));
const PACKAGE_DIR = join(here, '..');
const ROOT = join(PACKAGE_DIR, '..', '..');
const BIN = join(PACKAGE_DIR, 'bin', 'umbel-mcp.js');
const FAKE_CLAUDE = join(ROOT, 'test-fixtures', 'bin', 'claude');
const ANTHROPIC_MOCK = join(ROOT, 'test-fixtures', 'mock-servers', 'anthropic.mjs');
/** Packages whose dist the bin loads. */
const BUILT = [
  'core',
  'tmux',
  'provider-claude',
  'provider-codex',
  'provider-gemini',
  'provider-opencode',
  'provider-copilot',
  'provider-qwen',
  'runtime',
  'mcp',
];
/** How long the server may take to exit after stdin closes or SIGTERM (upstream's regression bound). */
const EXIT_WITHIN_MS = 5_000;

// --- build ---

async function newestSource(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== '__fixtures__') newest = Math.max(newest, await newestSource(path));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) newest = Math.max(newest, (await stat(path)).mtimeMs);
  }
  return newest;
}

async function isStale(pkg: string): Promise<boolean> {
  const dir = join(ROOT, 'packages', pkg);
  const outputs = pkg === 'mcp' ? ['dist/index.js', 'dist/bin.js'] : ['dist/index.js'];
  const source = Math.max(await newestSource(join(dir, 'src')), statSync(join(dir, 'package.json')).mtimeMs);
  return outputs.some((file) => !existsSync(join(dir, file)) || statSync(join(dir, file)).mtimeMs < source);
}

beforeAll(async () => {
  const stale: string[] = [];
  for (const pkg of BUILT) if (await isStale(pkg)) stale.push(pkg);
  if (!stale.length) return;
  await new Promise<void>((resolve, reject) => {
    execFile(
      'pnpm',
      ['--filter', '@umbel/mcp...', 'run', 'build'],
      { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, CI: 'true' } },
      (error, stdout, stderr) => (error ? reject(new Error(`build failed (stale: ${stale.join(', ')}):\n${stdout}\n${stderr}`)) : resolve()),
    );
  });
}, 900_000);

// --- a scratch world per test ---

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function scratch(prefix: string): Promise<{ root: string; home: string; userHome: string; work: string }> {
  const root = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  const home = join(root, 'umbel-home');
  const userHome = join(root, 'user-home');
  const work = join(root, 'work');
  for (const dir of [home, userHome, work]) await mkdir(dir, { recursive: true });
  cleanups.push(async () => {
    // Reap anything left on this home's private tmux socket (through @umbel/tmux, the only tmux caller).
    const substrate = createTmuxSubstrate({ home, env: { PATH: process.env.PATH } });
    for (const session of await substrate.list().catch(() => [] as string[])) await substrate.kill(session).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  });
  return { root, home, userHome, work };
}

/** A minimal environment for the server: nothing of the test runner's own. */
function serverEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', CI: 'true' };
  if (process.env.TMPDIR) env.TMPDIR = process.env.TMPDIR;
  return { ...env, ...extra };
}

// --- raw stdio ---

interface RawServer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[];
  readonly stderr: () => string;
  send(message: unknown): void;
  response(id: number): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startRaw(env: Record<string, string>): RawServer {
  const child = spawn(process.execPath, [BIN], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  const waiters = new Map<number, (message: Record<string, unknown>) => void>();
  const seen = new Map<number, Record<string, unknown>>();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    partial += chunk;
    let nl = partial.indexOf('\n');
    while (nl !== -1) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      lines.push(line);
      try {
        const message = JSON.parse(line) as Record<string, unknown>;
        if (typeof message.id === 'number') {
          seen.set(message.id, message);
          waiters.get(message.id)?.(message);
        }
      } catch {
        // asserted on later
      }
      nl = partial.indexOf('\n');
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  return {
    child,
    lines,
    stderr: () => stderr,
    send: (message) => child.stdin.write(`${JSON.stringify(message)}\n`),
    response: (id) =>
      new Promise((resolve, reject) => {
        const known = seen.get(id);
        if (known) return resolve(known);
        waiters.set(id, resolve);
        void exited.then(() => reject(new Error(`server exited before answering request ${id}; stderr:\n${stderr}`)));
      }),
    exited,
  };
}

/** Resolves with the exit, or rejects when the process is still running after `ms`. */
function exitWithin(server: RawServer, ms: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not exit within ${ms}ms; stderr:\n${server.stderr()}`)), ms);
    void server.exited.then((result) => {
      clearTimeout(timer);
      resolve(result);
    });
  });
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-test', version: '0' } },
};

async function seedWorker(home: string, name: string, cwd: string): Promise<void> {
  const paths = statePaths(home).worker(name);
  await mkdir(paths.events, { recursive: true });
  const meta: WorkerMeta = {
    version: 1,
    name,
    provider: 'claude',
    cwd,
    unattended: false,
    anonymous: false,
    createdAt: new Date().toISOString(),
    substrateSession: `umbel-${name}`,
    providerFiles: [],
    envNames: [],
  };
  await writeFile(paths.meta, JSON.stringify(meta));
}

describe('the built bin over raw stdio', () => {
  it('speaks only JSON-RPC on stdout, honours UMBEL_HOME, and exits when stdin closes', async () => {
    const { home, userHome, work } = await scratch('umbel-mcp-raw-');
    await seedWorker(home, 'seeded', work);
    const server = startRaw(serverEnv({ UMBEL_HOME: home, HOME: userHome }));
    server.send(INITIALIZE);
    const init = await server.response(1);
    expect(init.result).toMatchObject({ serverInfo: { name: 'umbel' }, capabilities: { tools: {} } });
    expect((init.result as { instructions?: string }).instructions).toContain('umbel_wait');
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    server.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    server.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'umbel_list', arguments: {} } });
    server.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'umbel_send', arguments: { name: 'Bad Name', prompt: 'x' } } });
    const tools = (await server.response(2)).result as { tools: { name: string }[] };
    expect(tools.tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
    const list = (await server.response(3)).result as CallToolResult;
    expect(list.isError).toBeFalsy();
    expect((list.structuredContent as { workers: { name: string }[] }).workers.map((w) => w.name)).toEqual(['seeded']);
    const bad = (await server.response(4)).result as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(JSON.parse((bad.content[0] as { text: string }).text)).toMatchObject({ error: { code: 'UMBEL_USAGE' } });

    server.child.stdin.end();
    expect(await exitWithin(server, EXIT_WITHIN_MS)).toEqual({ code: 0, signal: null });
    expect(server.lines.length).toBeGreaterThanOrEqual(4);
    for (const line of server.lines) {
      const message = JSON.parse(line) as Record<string, unknown>;
      expect(message.jsonrpc, line).toBe('2.0');
      expect('result' in message || 'error' in message || 'method' in message, line).toBe(true);
    }
  });

  it('answers the calls already sent when the client closes stdin at once (piped use)', async () => {
    const { home, userHome, work } = await scratch('umbel-mcp-pipe-');
    await seedWorker(home, 'seeded', work);
    const server = startRaw(serverEnv({ UMBEL_HOME: home, HOME: userHome }));
    server.send(INITIALIZE);
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    server.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'umbel_list', arguments: {} } });
    server.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'umbel_status', arguments: { name: 'seeded' } } });
    server.child.stdin.end();
    expect(await exitWithin(server, EXIT_WITHIN_MS)).toEqual({ code: 0, signal: null });
    const ids = server.lines.map((line) => (JSON.parse(line) as { id?: number }).id);
    expect(ids).toEqual(expect.arrayContaining([1, 2, 3]));
  });

  it('--help and --version print and exit 0 without starting a server; other arguments are a usage error', async () => {
    const { root, userHome } = await scratch('umbel-mcp-help-');
    const fresh = join(root, 'fresh-state');
    const env = serverEnv({ UMBEL_HOME: fresh, HOME: userHome });
    // stdin stays open: a server that started would wait on it, and the run would not end.
    const bin = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
        child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
        const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_WITHIN_MS);
        child.on('close', (code) => {
          clearTimeout(timer);
          child.stdin.destroy();
          resolve({ code, stdout, stderr });
        });
      });
    for (const flag of ['--help', '-h']) {
      const help = await bin([flag]);
      expect(help.code, flag).toBe(0);
      expect(help.stdout).toMatch(/^Usage: umbel-mcp\b/);
      for (const word of ['UMBEL_HOME', 'UMBEL_CLAUDE_BIN', 'stdio', 'umbel_spawn']) expect(help.stdout).toContain(word);
    }
    const pkg = JSON.parse(await readFile(join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) expect(await bin([flag])).toEqual({ code: 0, stdout: `umbel-mcp ${pkg.version}\n`, stderr: '' });
    const bad = await bin(['--bogus']);
    expect(bad).toMatchObject({ code: 2, stdout: '' });
    expect(bad.stderr).toContain("umbel-mcp: unknown argument '--bogus'");
    // Nothing was started: no state root was made.
    expect(existsSync(fresh)).toBe(false);
  });

  it('exits on SIGTERM', async () => {
    const { home, userHome } = await scratch('umbel-mcp-term-');
    const server = startRaw(serverEnv({ UMBEL_HOME: home, HOME: userHome }));
    server.send(INITIALIZE);
    await server.response(1);
    server.child.kill('SIGTERM');
    expect(await exitWithin(server, EXIT_WITHIN_MS)).toEqual({ code: 0, signal: null });
  });
});

// --- the SDK's stdio client against the default engine and the fake claude ---

interface AnthropicMock {
  readonly url: string;
  close(): Promise<void>;
}

describe('the SDK stdio client, default engine, fake claude', () => {
  let mock: AnthropicMock;
  beforeAll(async () => {
    const module = (await import(ANTHROPIC_MOCK)) as { startAnthropicMock: (options?: { port?: number }) => Promise<AnthropicMock> };
    mock = await module.startAnthropicMock({ port: 0 });
  });
  afterAll(async () => {
    await mock?.close();
  });

  it('spawn → send → wait (timeout, cancel, needs-input, completed) → read → kill', async () => {
    const { home, userHome, work } = await scratch('umbel-mcp-e2e-');
    // A signed-in-looking Claude Code config (onboarding done); the trust and API-key dialogs are left to the provider.
    await writeFile(join(userHome, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN],
      env: serverEnv({
        UMBEL_HOME: home,
        HOME: userHome,
        UMBEL_CLAUDE_BIN: FAKE_CLAUDE,
        ANTHROPIC_BASE_URL: mock.url,
        ANTHROPIC_API_KEY: 'sk-ant-mcp-e2e-test',
        MCP_E2E_SECRET: 'from-the-server-env',
      }),
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const client = new Client({ name: 'umbel-e2e', version: '0.0.0' });
    await client.connect(transport);
    cleanups.push(() => client.close());
    const call = async <T>(name: string, args: Record<string, unknown>, options?: Parameters<Client['callTool']>[2]): Promise<T> => {
      const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000, ...options })) as CallToolResult;
      expect(result.isError, `${name}: ${JSON.stringify(result.content)}\n${stderr}`).toBeFalsy();
      return result.structuredContent as T;
    };

    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
    const status = await call<{ state: string }>('umbel_spawn', {
      name: 'e2e',
      cwd: work,
      env: { MCP_E2E_TOKEN: { fromEnv: 'MCP_E2E_SECRET' } },
      permissionMode: 'default',
      startupTimeout: '90s',
    });
    expect(status).toMatchObject({ name: 'e2e', provider: 'claude', state: 'ready', alive: true });

    // A slow turn: a short wait times out; a wait cancelled at its first progress notification
    // rejects on the client; the worker keeps going and the next wait gets the answer.
    expect(await call('umbel_send', { name: 'e2e', prompt: 'DELAY 12000 ECHO slow answer' })).toEqual({ worker: 'e2e', turn: 1 });
    expect(await call<Outcome>('umbel_wait', { name: 'e2e', timeout: '200ms' })).toMatchObject({ reason: 'timeout', exitCode: 124 });
    const controller = new AbortController();
    let progressed = 0;
    const cancelled = client.callTool({ name: 'umbel_wait', arguments: { name: 'e2e', timeout: '40s' } }, undefined, {
      signal: controller.signal,
      timeout: 120_000,
      onprogress: () => {
        progressed += 1;
        controller.abort('test cancels');
      },
    });
    await expect(cancelled).rejects.toThrow();
    expect(progressed).toBeGreaterThanOrEqual(1);
    expect(await call('umbel_status', { name: 'e2e' })).toMatchObject({ alive: true, state: 'busy' });
    const done = await call<Outcome>('umbel_wait', { name: 'e2e', timeout: '45s' });
    expect(done).toMatchObject({ reason: 'completed', turn: 1, result: 'slow answer' });

    // needs-input on a shell tool; the tool sees the {fromEnv} variable resolved from the server's env.
    await call('umbel_send', { name: 'e2e', prompt: 'TOOL printenv MCP_E2E_TOKEN' });
    const blocked = await call<Outcome>('umbel_wait', { name: 'e2e', timeout: '45s' });
    expect(blocked).toMatchObject({ reason: 'needs-input', exitCode: 126, turn: 2 });
    expect((await call<{ text: string }>('umbel_capture', { name: 'e2e' })).text).toContain('printenv MCP_E2E_TOKEN');
    await call('umbel_keys', { name: 'e2e', keys: ['Enter'] });
    const approved = await call<Outcome>('umbel_wait', { name: 'e2e', timeout: '45s' });
    expect(approved).toMatchObject({ reason: 'completed', turn: 2 });
    expect(approved.result).toContain('TOOL-RESULT: from-the-server-env');

    await call('umbel_send', { name: 'e2e', prompt: 'ECHO third turn' });
    expect(await call<Outcome>('umbel_wait', { name: 'e2e', timeout: '45s' })).toMatchObject({ reason: 'completed', turn: 3, result: 'third turn' });
    expect(await call('umbel_read', { name: 'e2e', turn: 1 })).toMatchObject({ result: 'slow answer', complete: true });
    expect(await call('umbel_status', { name: 'e2e' })).toMatchObject({ state: 'ready', turn: 3, completedTurn: 3 });
    expect(await call('umbel_kill', { name: 'e2e' })).toMatchObject({ worker: 'e2e', killed: true });
    expect(await call<Outcome>('umbel_status', { name: 'e2e' })).toMatchObject({ alive: false });
  }, 300_000);
});
