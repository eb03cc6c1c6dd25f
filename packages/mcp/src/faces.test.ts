/**
 * The MCP faces of the evidence verbs and the rough edges of umbel_wait: actions, diff, send with
 * command, wait until, long answers shortened like umbel_read's, a bound that holds across
 * guardrail retries, and hints that name MCP tools. SDK client over an in-memory transport, the
 * real engine on the memory substrate.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createUmbel, type Outcome } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMcpServer } from './server.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
let client: Client;
let close: () => Promise<void>;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-mcp-faces-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-mcp-faces-work-'));
  substrate = createMemorySubstrate();
  const engine = createUmbel({ substrate, providers: [createMockProvider()], home, env: { PATH: process.env.PATH } });
  const server = createMcpServer(engine, { log: () => undefined });
  const [a, b] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'faces-test', version: '0.0.0' });
  await Promise.all([server.connect(b), client.connect(a)]);
  close = () => server.close();
  await ok('umbel_spawn', { name: 'w1', provider: 'mock', cwd: work });
});
afterEach(async () => {
  await client.close().catch(() => undefined);
  await close().catch(() => undefined);
  for (const s of await substrate.list()) await substrate.kill(s);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}
async function ok<T = Record<string, unknown>>(name: string, args: Record<string, unknown>): Promise<T> {
  const result = await call(name, args);
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
  return result.structuredContent as T;
}
async function failure(name: string, args: Record<string, unknown>) {
  const result = await call(name, args);
  expect(result.isError).toBe(true);
  return (JSON.parse((result.content[0] as { text: string }).text) as { error: { code: string; message: string; hint?: string } }).error;
}
type WaitResult = Outcome & { next: string; elidedTokens?: number };

describe('umbel_actions and umbel_diff', () => {
  it('report what a turn did and what it changed', async () => {
    await ok('umbel_send', { name: 'w1', prompt: 'TOOLS write a.txt x | run make' });
    await ok('umbel_wait', { name: 'w1', timeout: '20s' });
    expect(await ok('umbel_actions', { name: 'w1' })).toMatchObject({
      turns: [1],
      toolsUsed: { Write: 1, Bash: 1 },
      filesWritten: [join(work, 'a.txt')],
      shellCommands: ['make'],
      finalMessage: 'done',
    });
    expect(await ok('umbel_actions', { name: 'w1', turn: 'all' })).toMatchObject({ turnCount: 1 });
    expect(await ok('umbel_diff', { name: 'w1' })).toMatchObject({ method: 'transcript', files: [{ path: join(work, 'a.txt'), status: 'written' }] });
    expect(await failure('umbel_diff', { name: 'w1', from: 1 })).toMatchObject({ code: 'UMBEL_USAGE' });
  });
});

describe('umbel_send with command', () => {
  it('runs the CLI command and says there is no model turn', async () => {
    expect(await ok('umbel_send', { name: 'w1', prompt: '/compact', command: true })).toEqual({ worker: 'w1', turn: 1, command: true, modelTurn: false });
  });
});

describe('umbel_wait', () => {
  it('until file ends as its own reason', async () => {
    await ok('umbel_send', { name: 'w1', prompt: 'DELAY 200 TOOLS write done.flag 1' });
    const outcome = await ok<WaitResult>('umbel_wait', { name: 'w1', until: 'file', file: 'done.flag', timeout: '20s' });
    expect(outcome).toMatchObject({ reason: 'file', exitCode: 0, match: join(work, 'done.flag') });
    expect(outcome.next).toMatch(/file appeared/);
    expect(await failure('umbel_wait', { name: 'w1', until: 'file' })).toMatchObject({ code: 'UMBEL_USAGE' });
  });

  it('shortens a long answer like umbel_read, in the result and in the attempts, with a pointer to umbel_read full', async () => {
    const answer = Array.from({ length: 500 }, (_, i) => `line ${i} ${'x'.repeat(36)}`).join('\n');
    expect(answer.length).toBeGreaterThan(20_000);
    await ok('umbel_send', { name: 'w1', prompt: `ECHO ${answer}` });
    const result = await call('umbel_wait', { name: 'w1', timeout: '20s', check: 'exit 0' });
    const text = (result.content[0] as { text: string }).text;
    expect(text.length).toBeLessThan(answer.length);
    const outcome = result.structuredContent as WaitResult;
    expect(outcome.reason).toBe('completed');
    expect(outcome.elidedTokens).toBeGreaterThan(0);
    expect(outcome.result).toMatch(/\.\.\. \[~\d+ tokens elided, call umbel_read with \{"name":"w1","turn":1,"full":true\} to see all\] \.\.\./);
    expect(outcome.result?.startsWith('line 0 ')).toBe(true);
    expect(outcome.result?.endsWith(`line 499 ${'x'.repeat(36)}`)).toBe(true);
    expect(outcome.attempts?.[0]?.answer).toBe(outcome.result);
    const full = await ok<WaitResult>('umbel_wait', { name: 'w1', turn: 1, timeout: '20s', full: true });
    expect(full.result).toBe(answer);
    expect(full.elidedTokens).toBeUndefined();
    expect((await ok<{ result: string }>('umbel_read', { name: 'w1', full: true })).result).toBe(answer);
  });

  it('its bound holds across guardrail retries: still running, and what to call to go on', async () => {
    await ok('umbel_send', { name: 'w1', prompt: 'ECHO draft' });
    // each check takes 2 s and rejects: two retries would take 6 s
    const outcome = await ok<WaitResult>('umbel_wait', { name: 'w1', timeout: '3s', check: 'sleep 2; exit 1', retries: 2 });
    expect(outcome).toMatchObject({ reason: 'timeout', turn: 2 });
    expect(outcome.attempts).toHaveLength(2);
    expect(outcome.next).toBe(
      'Still running (guardrail attempt 2, turn 2): call umbel_wait again with {"name":"w1","turn":2,"retries":1} plus the same check/schema to go on.',
    );
  });

  it('a plain timeout says which turn to wait for', async () => {
    await ok('umbel_send', { name: 'w1', prompt: 'HANG' });
    const outcome = await ok<WaitResult>('umbel_wait', { name: 'w1', timeout: '200ms' });
    expect(outcome.next).toBe('Still working: call umbel_wait again with {"name":"w1","turn":1} to keep waiting (the worker keeps going).');
  });
});

describe('hints over MCP name MCP tools', () => {
  it('an error hint says which tool to call, never a CLI command', async () => {
    expect(await failure('umbel_status', { name: 'ghost' })).toMatchObject({ code: 'UMBEL_WORKER_NOT_FOUND', hint: 'call umbel_list to see the workers' });
    expect(await failure('umbel_spawn', { name: 'w1', provider: 'mock', cwd: work })).toMatchObject({
      code: 'UMBEL_WORKER_EXISTS',
      hint: 'pick another name, or call umbel_kill {"name":"w1","purge":true} first',
    });
    const env = await failure('umbel_spawn', { name: 'w2', provider: 'mock', cwd: work, env: { K: { fromEnv: 'NOT_SET_ANYWHERE' } } });
    expect(env.message).toBe('environment variable NOT_SET_ANYWHERE is not set (needed by env {"NOT_SET_ANYWHERE": {"fromEnv": "NOT_SET_ANYWHERE"}})');
    expect(env.hint).not.toMatch(/--env|umbel [a-z]/);
    await ok('umbel_send', { name: 'w1', prompt: 'HANG' });
    const busy = await failure('umbel_send', { name: 'w1', prompt: '/compact', command: true });
    expect(busy.hint).toBe('wait for it first: umbel_wait {"name":"w1","turn":1}');
  });
});
