/**
 * The MCP face through the SDK's own Client over an in-memory transport, against the real engine
 * on the memory substrate and the mock provider (no tmux, no model service).
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  ActionsOptionsSchema,
  CaptureOptionsSchema,
  createUmbel,
  DiffOptionsSchema,
  KeysOptionsSchema,
  KillOptionsSchema,
  ReviveOptionsSchema,
  type Outcome,
  PruneOptionsSchema,
  ReadOptionsSchema,
  SendOptionsSchema,
  SpawnOptionsSchema,
  type Umbel,
  WaitOptionsSchema,
  WorkerNotFoundError,
  errorBody,
} from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SERVER_INSTRUCTIONS } from './instructions.js';
import { forMcp } from './mcp-text.js';
import { MCP_WAIT_TIMEOUT_MS } from './schemas.js';
import { createMcpServer, TOOL_NAMES } from './server.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
let engine: Umbel;
let client: Client;
let closeServer: () => Promise<void>;
/** Every outcome the engine returned to the server, in order (to see what happened server-side). */
let outcomes: Outcome[];
/** Parsed options of every engine.wait call. */
let waitCalls: unknown[];
let waitSettled: Array<() => void>;

const serverEnv = { PATH: process.env.PATH, HOME: '/nonexistent-home', MOCK_API_KEY: 'k', PRESENT_VAR: 'from-server-env' };

async function connect(settings: Parameters<typeof createMcpServer>[1] = {}): Promise<void> {
  const server = createMcpServer(engine, { log: () => undefined, ...settings });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'umbel-test', version: '0.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  closeServer = () => server.close();
}

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-mcp-home-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-mcp-work-'));
  substrate = createMemorySubstrate();
  const real = createUmbel({ substrate, providers: [createMockProvider()], home, env: serverEnv });
  outcomes = [];
  waitCalls = [];
  waitSettled = [];
  // The real engine, with wait() observed.
  engine = Object.assign(Object.create(real) as Umbel, {
    wait: async (...args: Parameters<Umbel['wait']>) => {
      waitCalls.push(args[0]);
      try {
        const outcome = await real.wait(...args);
        outcomes.push(outcome);
        return outcome;
      } finally {
        for (const f of waitSettled.splice(0)) f();
      }
    },
  });
  await connect();
});

afterEach(async () => {
  await client.close().catch(() => undefined);
  await closeServer().catch(() => undefined);
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

/** Call a tool and return the result, asserting the text copy equals the structured content. */
async function call(name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (!result.isError) {
    expect(result.structuredContent).toBeDefined();
    const text = result.content[0];
    expect(text?.type).toBe('text');
    expect(JSON.parse((text as { text: string }).text)).toEqual(result.structuredContent);
  }
  return result;
}

async function ok<T = Record<string, unknown>>(name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = await call(name, args);
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent as T;
}

async function failure(name: string, args: Record<string, unknown>): Promise<{ code: string; message: string; hint?: string; issues?: { path: string }[] }> {
  const result = await call(name, args);
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const body = JSON.parse((result.content[0] as { text: string }).text) as { error: { code: string; message: string } };
  return body.error;
}

const spawnMock = (extra: Record<string, unknown> = {}) => ok('umbel_spawn', { name: 'w1', provider: 'mock', cwd: work, ...extra });

describe('tools/list and instructions', () => {
  it('lists every verb with the core schemas as input', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
    const byName = new Map<string, Tool>(tools.map((t) => [t.name, t]));
    const expected: Record<string, readonly string[]> = {
      umbel_spawn: [...Object.keys(SpawnOptionsSchema.shape), 'pool'],
      umbel_send: Object.keys(SendOptionsSchema.shape),
      umbel_wait: [...Object.keys(WaitOptionsSchema.shape), 'full'],
      umbel_keys: Object.keys(KeysOptionsSchema.shape),
      umbel_status: ['name'],
      umbel_list: [],
      umbel_read: Object.keys(ReadOptionsSchema.shape),
      umbel_actions: Object.keys(ActionsOptionsSchema.shape),
      umbel_diff: Object.keys(DiffOptionsSchema.shape),
      umbel_kill: Object.keys(KillOptionsSchema.shape),
      umbel_revive: Object.keys(ReviveOptionsSchema.shape),
      umbel_capture: Object.keys(CaptureOptionsSchema.shape),
      umbel_logs: ['name'],
      umbel_prune: Object.keys(PruneOptionsSchema.shape),
      umbel_help: ['topic'],
    };
    for (const [name, keys] of Object.entries(expected)) {
      const tool = byName.get(name);
      expect(tool, name).toBeDefined();
      const properties = (tool?.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
      expect(Object.keys(properties).sort(), name).toEqual([...keys].sort());
      for (const [key, property] of Object.entries(properties)) expect(property.description, `${name}.${key}`).toBeTruthy();
      expect(tool?.outputSchema, name).toBeDefined();
      expect(tool?.description, name).toBeTruthy();
    }
    expect(byName.get('umbel_spawn')?.inputSchema.required ?? []).toEqual([]);
    expect(byName.get('umbel_send')?.inputSchema.required).toEqual(['name', 'prompt']);
  });

  it('sends short instructions with the lifecycle and every outcome', () => {
    const instructions = client.getInstructions() ?? '';
    expect(instructions).toBe(SERVER_INSTRUCTIONS);
    expect(instructions.length).toBeGreaterThanOrEqual(200);
    expect(instructions.length).toBeLessThanOrEqual(1500);
    expect(instructions).toContain('umbel_spawn → umbel_send → umbel_wait → umbel_read');
    expect(instructions).toMatch(/does NOT wait/);
    for (const reason of [
      'completed',
      'timeout',
      'needs-input',
      'dead',
      'provider-error',
      'rate-limited',
      'auth-failed',
      'idle',
      'aborted',
      'guardrail-halted',
    ])
      expect(instructions).toContain(`${reason}:`);
    for (const tool of ['umbel_capture', 'umbel_keys', 'umbel_kill', 'umbel_logs', 'umbel_help']) expect(instructions).toContain(tool);
  });
});

describe('the lifecycle', () => {
  it('spawn → send → wait → read, with structured content and a text copy', async () => {
    const status = await spawnMock();
    expect(status).toMatchObject({ name: 'w1', provider: 'mock', state: 'ready', alive: true });
    expect(await ok('umbel_send', { name: 'w1', prompt: 'ECHO first\nline two' })).toEqual({ worker: 'w1', turn: 1 });
    const outcome = await ok<Outcome & { next: string }>('umbel_wait', { name: 'w1', timeout: '20s' });
    expect(outcome).toMatchObject({ worker: 'w1', turn: 1, reason: 'completed', exitCode: 0, result: 'first\nline two' });
    expect(outcome.next).toMatch(/umbel_read/);
    expect(await ok('umbel_read', { name: 'w1' })).toMatchObject({ worker: 'w1', turn: 1, result: 'first\nline two', complete: true });
    expect(await ok('umbel_status', { name: 'w1' })).toMatchObject({ state: 'ready', turn: 1, completedTurn: 1 });
    expect((await ok<{ workers: { name: string }[] }>('umbel_list')).workers.map((w) => w.name)).toEqual(['w1']);
    const logs = await ok<{ worker: string; entries: { kind: string }[] }>('umbel_logs', { name: 'w1' });
    expect(logs.entries.map((e) => e.kind)).toEqual(expect.arrayContaining(['session', 'prompt', 'stop']));
    expect(await ok('umbel_kill', { name: 'w1' })).toEqual({ worker: 'w1', killed: true, purged: false });
    expect(await ok('umbel_prune', {})).toEqual({ removed: ['w1'], kept: 0 });
  });

  it('wait without a timeout uses the MCP default, not the CLI one', async () => {
    await spawnMock();
    await ok('umbel_send', { name: 'w1', prompt: 'ECHO quick' });
    await ok('umbel_wait', { name: 'w1' });
    expect(waitCalls.at(-1)).toMatchObject({ timeout: MCP_WAIT_TIMEOUT_MS });
    expect(MCP_WAIT_TIMEOUT_MS).toBeLessThan(60_000);
  });

  it('read shortens a long answer to head and tail unless asked for all of it, a section, head or tail', async () => {
    await spawnMock();
    const body = Array.from({ length: 400 }, (_, i) => `line ${i} ${'w'.repeat(30)}`).join('\n');
    const answer = `# Report\n## Findings\nthe finding\n## Body\n${body}`;
    await ok('umbel_send', { name: 'w1', prompt: `ECHO ${answer}` });
    expect(await ok('umbel_wait', { name: 'w1', timeout: '20s' })).toMatchObject({ reason: 'completed' });
    const auto = await ok<{ result: string; elidedTokens?: number }>('umbel_read', { name: 'w1' });
    expect(auto.result.length).toBeLessThan(answer.length);
    expect(auto.result.startsWith('# Report\n## Findings')).toBe(true);
    expect(auto.result.endsWith(`line 399 ${'w'.repeat(30)}`)).toBe(true);
    expect(auto.result).toMatch(/\.\.\. \[~\d+ tokens elided, call umbel_read with full=true to see all\] \.\.\./);
    expect(auto.elidedTokens).toBeGreaterThan(0);
    const full = await ok<{ result: string; elidedTokens?: number }>('umbel_read', { name: 'w1', full: true });
    expect(full.result).toBe(answer);
    expect(full.elidedTokens).toBeUndefined();
    expect(await ok('umbel_read', { name: 'w1', section: 'Findings' })).toMatchObject({ result: '## Findings\nthe finding' });
    expect(await ok('umbel_read', { name: 'w1', tail: 10 })).toMatchObject({ result: `line 399 ${'w'.repeat(30)}` });
  });

  it('needs-input: capture shows the prompt, keys answer it, the next wait completes', async () => {
    await spawnMock();
    await ok('umbel_send', { name: 'w1', prompt: 'ASK Bash' });
    const blocked = await ok<Outcome & { next: string }>('umbel_wait', { name: 'w1', timeout: '20s' });
    expect(blocked).toMatchObject({ reason: 'needs-input', exitCode: 126, inputKind: 'permission', tool: 'Bash' });
    expect(blocked.next).toMatch(/umbel_capture/);
    expect((await ok<{ text: string; live: boolean }>('umbel_capture', { name: 'w1', lines: 20 })).text).toContain('Allow Bash?');
    expect(await ok('umbel_keys', { name: 'w1', keys: ['1'] })).toEqual({ worker: 'w1', keys: ['1'] });
    expect(await ok('umbel_wait', { name: 'w1', timeout: '20s' })).toMatchObject({ reason: 'completed', result: 'approved Bash' });
  });

  it('rate-limited and auth-failed are normal results: their code, the reset, and a next that says when to retry or to sign in', async () => {
    await spawnMock();
    await ok('umbel_send', { name: 'w1', prompt: "LIMIT reset=2026-12-01T14:17:00.000Z You've hit your 5-hour limit" });
    const limited = await ok<Outcome & { next: string }>('umbel_wait', { name: 'w1', timeout: '20s' });
    expect(limited).toMatchObject({ reason: 'rate-limited', exitCode: 118, resetsAt: '2026-12-01T14:17:00.000Z' });
    expect(limited.next).toContain('after 2026-12-01T14:17:00.000Z');
    await ok('umbel_send', { name: 'w1', prompt: 'LIMIT Request rejected (429)' });
    const noReset = await ok<Outcome & { next: string }>('umbel_wait', { name: 'w1', timeout: '20s' });
    expect(noReset).toMatchObject({ reason: 'rate-limited', exitCode: 118 });
    expect(noReset.next).toMatch(/no reset time/);
    await ok('umbel_send', { name: 'w1', prompt: 'DENIED Please run /login' });
    const refused = await ok<Outcome & { next: string }>('umbel_wait', { name: 'w1', timeout: '20s' });
    expect(refused).toMatchObject({ reason: 'auth-failed', exitCode: 119, message: 'Please run /login' });
    expect(refused.next).toMatch(/sign in again/i);
  });

  it('dead and provider-error are normal results, with evidence', async () => {
    await spawnMock();
    await ok('umbel_send', { name: 'w1', prompt: 'FAIL API Error: 500 boom' });
    expect(await ok('umbel_wait', { name: 'w1', timeout: '20s' })).toMatchObject({ reason: 'provider-error', exitCode: 122, message: 'API Error: 500 boom' });
    await ok('umbel_send', { name: 'w1', prompt: 'DIE 3' });
    const dead = await ok<Outcome & { next: string }>('umbel_wait', { name: 'w1', timeout: '20s' });
    expect(dead).toMatchObject({ reason: 'dead', exitCode: 125, exit: { status: 3 } });
    expect(dead.next).toMatch(/umbel_logs/);
    expect(await ok('umbel_status', { name: 'w1' })).toMatchObject({ state: 'dead', alive: false });
  });

  it('idle and guardrail-halted are reachable through the wait tool', async () => {
    await spawnMock();
    await ok('umbel_send', { name: 'w1', prompt: 'HANG' });
    expect(await ok('umbel_wait', { name: 'w1', timeout: '30s', idleTimeout: '500ms' })).toMatchObject({ reason: 'idle', exitCode: 123 });
    await ok('umbel_spawn', { name: 'w2', provider: 'mock', cwd: work });
    await ok('umbel_send', { name: 'w2', prompt: 'ECHO not good enough' });
    const halted = await ok<Outcome & { next: string }>('umbel_wait', { name: 'w2', timeout: '30s', check: 'echo rejected-by-check; exit 1', retries: 1 });
    expect(halted).toMatchObject({ reason: 'guardrail-halted', exitCode: 127 });
    expect(halted.attempts).toHaveLength(2);
    expect(halted.attempts?.[0]).toMatchObject({ accepted: false, checkExitCode: 1 });
    expect(halted.next).toMatch(/attempts/);
  });

  it('a short timeout returns outcome timeout, and the worker keeps going', async () => {
    await spawnMock();
    await ok('umbel_send', { name: 'w1', prompt: 'HANG' });
    const outcome = await ok<Outcome & { next: string }>('umbel_wait', { name: 'w1', timeout: '300ms' });
    expect(outcome).toMatchObject({ reason: 'timeout', exitCode: 124 });
    expect(outcome.next).toMatch(/umbel_wait again/);
    expect(await ok('umbel_status', { name: 'w1' })).toMatchObject({ alive: true, state: 'busy' });
  });
});

describe('progress and cancellation', () => {
  it('sends progress while waiting; cancelling returns aborted server-side and leaves the worker running', async () => {
    await client.close();
    await closeServer();
    await connect({ progressIntervalMs: 100 });
    await spawnMock();
    await ok('umbel_send', { name: 'w1', prompt: 'HANG' });
    const controller = new AbortController();
    const progress: { progress: number; message?: string }[] = [];
    const settled = new Promise<void>((resolve) => waitSettled.push(resolve));
    const pending = client.callTool({ name: 'umbel_wait', arguments: { name: 'w1', timeout: '40s' } }, undefined, {
      signal: controller.signal,
      timeout: 50_000,
      onprogress: (p) => {
        progress.push(p);
        if (progress.length === 3) controller.abort('test cancels');
      },
    });
    await expect(pending).rejects.toThrow();
    await settled;
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.map((p) => p.progress)).toEqual([...progress.map((p) => p.progress)].sort((a, b) => a - b));
    expect(new Set(progress.map((p) => p.progress)).size).toBe(progress.length);
    expect(progress[0]?.message).toBeTruthy();
    expect(outcomes.at(-1)).toMatchObject({ reason: 'aborted', exitCode: 130 });
    expect(await ok('umbel_status', { name: 'w1' })).toMatchObject({ alive: true });
  });

  it('closing the server aborts a pending wait', async () => {
    await spawnMock();
    await ok('umbel_send', { name: 'w1', prompt: 'HANG' });
    const started = new Promise<void>((resolve) => {
      const check = () => (waitCalls.length ? resolve() : setTimeout(check, 10));
      check();
    });
    const settled = new Promise<void>((resolve) => waitSettled.push(resolve));
    const pending = client.callTool({ name: 'umbel_wait', arguments: { name: 'w1', timeout: '40s' } }).catch((error: unknown) => error);
    await started;
    await closeServer();
    await settled;
    expect(outcomes.at(-1)).toMatchObject({ reason: 'aborted' });
    await pending;
  });
});

describe('errors are isError results with a code', () => {
  it('bad input → UMBEL_USAGE with the issue path', async () => {
    const error = await failure('umbel_send', { name: 'Not A Name', prompt: 'hi' });
    expect(error.code).toBe('UMBEL_USAGE');
    expect(error.issues?.map((i) => i.path)).toContain('name');
    expect((await failure('umbel_wait', { name: 'w1', timeout: 'soon' })).code).toBe('UMBEL_USAGE');
    expect((await failure('umbel_spawn', { provider: 'mock', cwd: work, bogus: true })).code).toBe('UMBEL_USAGE');
    expect((await failure('umbel_keys', { name: 'w1', keys: [] })).code).toBe('UMBEL_USAGE');
  });

  it('typed engine errors keep their code and hint', async () => {
    const notFound = await failure('umbel_status', { name: 'ghost' });
    expect(notFound).toMatchObject({ code: 'UMBEL_WORKER_NOT_FOUND' });
    expect(notFound.hint).toBeTruthy();
    expect((await failure('umbel_spawn', { provider: 'nope', cwd: work })).code).toBe('UMBEL_PROVIDER_UNKNOWN');
    await spawnMock();
    expect((await failure('umbel_spawn', { name: 'w1', provider: 'mock', cwd: work })).code).toBe('UMBEL_WORKER_EXISTS');
    expect((await failure('umbel_wait', { name: 'w1', turn: 5 })).code).toBe('UMBEL_TURN_NOT_FOUND');
  });

  it("the body is core's errorBody, facts included, its texts in the tools' words", async () => {
    const body = errorBody(new WorkerNotFoundError('ghost'));
    const error = await failure('umbel_status', { name: 'ghost' });
    expect(error).toEqual({ ...body, hint: forMcp(body.hint ?? '') });
    expect(error).toMatchObject({ worker: 'ghost' });
  });

  it('spawn env: {fromEnv} resolves from the server env; an unset one fails before any I/O', async () => {
    const error = await failure('umbel_spawn', { name: 'w2', provider: 'mock', cwd: work, env: { TOKEN: { fromEnv: 'UMBEL_TEST_UNSET_VAR' } } });
    expect(error.code).toBe('UMBEL_ENV_UNRESOLVED');
    expect(error.message).toContain('UMBEL_TEST_UNSET_VAR');
    expect(substrate.launches).toHaveLength(0);
    expect(await readdir(home)).toEqual([]);
    await spawnMock({ env: { FROM_SERVER: { fromEnv: 'PRESENT_VAR' }, LITERAL: 'lit' } });
    expect(substrate.launches[0]?.env).toMatchObject({ FROM_SERVER: 'from-server-env', LITERAL: 'lit' });
  });
});
