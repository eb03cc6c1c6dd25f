/**
 * Warm pools on the MCP face: umbel_pool_start/status/stop and umbel_spawn's `pool` option, through
 * the SDK's own Client over an in-memory transport, against the real engine on the memory substrate.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createUmbel, PoolRefSchema, PoolStartOptionsSchema, type Umbel } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMcpServer, drainMcpServer } from './server.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
let engine: Umbel;
let client: Client;
let server: ReturnType<typeof createMcpServer>;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-mcp-pool-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-mcp-pool-work-'));
  substrate = createMemorySubstrate();
  engine = createUmbel({ substrate, providers: [createMockProvider()], home, env: { PATH: process.env.PATH, HOME: '/nonexistent-home' } });
  server = createMcpServer(engine, { log: () => undefined });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'umbel-pool-test', version: '0.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
});

afterEach(async () => {
  await client.close().catch(() => undefined);
  await server.close().catch(() => undefined);
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

async function ok<T = Record<string, any>>(name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent as T;
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('the pool tools', () => {
  it('are listed with core schemas as input', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName.get('umbel_pool_start')?.inputSchema.properties ?? {}).sort()).toEqual(Object.keys(PoolStartOptionsSchema.shape).sort());
    for (const name of ['umbel_pool_status', 'umbel_pool_stop'])
      expect(Object.keys(byName.get(name)?.inputSchema.properties ?? {})).toEqual(Object.keys(PoolRefSchema.shape));
    expect(byName.get('umbel_spawn')?.inputSchema.properties).toHaveProperty('pool');
  });

  it("start → umbel_spawn with pool 'auto' gets a warm worker → the server refills in the background → stop leaves nothing", async () => {
    const pool = await ok('umbel_pool_start', { provider: 'mock', cwd: work, size: 2 });
    expect(pool.counts).toMatchObject({ ready: 2 });
    const warm = pool.workers.map((w: { worker: string }) => w.worker);
    const spawned = await ok('umbel_spawn', { provider: 'mock', cwd: work, pool: 'auto' });
    expect(warm).toContain(spawned.name);
    expect(spawned).toMatchObject({ state: 'ready', alive: true, turn: 0 });
    await ok('umbel_send', { name: spawned.name, prompt: 'ECHO from a warm worker' });
    expect(await ok('umbel_wait', { name: spawned.name })).toMatchObject({ reason: 'completed', result: 'from a warm worker' });
    await ok('umbel_kill', { name: spawned.name, purge: true });
    await until(async () => (await ok('umbel_pool_status', { name: pool.name })).pools[0].counts.ready === 2, 'the background refill');
    const status = (await ok('umbel_pool_status', {})).pools[0];
    expect(status.workers.map((w: { worker: string }) => w.worker)).not.toContain(spawned.name);
    // Without `pool` (or with options no pool has) spawn is a normal spawn.
    expect((await ok('umbel_spawn', { provider: 'mock', cwd: work })).name).toMatch(/^anon-/);
    expect((await ok('umbel_spawn', { provider: 'mock', cwd: work, model: 'other', pool: 'auto' })).name).toMatch(/^anon-/);
    const stopped = await ok('umbel_pool_stop', {});
    expect(stopped.stopped).toEqual([{ pool: pool.name, removed: expect.any(Array) }]);
    expect((await engine.list()).filter((w) => w.name.startsWith(pool.name))).toEqual([]);
    expect(await readdir(join(home, 'pools'))).toEqual(['.key']);
  });

  it('a refill still running when the server shuts down is cancelled: no half-started worker', async () => {
    const env = { MOCK_CLI_START_MS: '800' };
    const pool = await ok('umbel_pool_start', { provider: 'mock', cwd: work, size: 1, env });
    const spawned = await ok('umbel_spawn', { provider: 'mock', cwd: work, env, pool: pool.name });
    expect(spawned.name.startsWith(`${pool.name}-`)).toBe(true);
    await until(async () => (await engine.pool.status({ name: pool.name }))[0]?.counts.starting === 1, 'the refill to be spawning');
    await drainMcpServer(server, 10_000);
    const after = (await engine.pool.status({ name: pool.name }))[0];
    expect(after?.counts).toMatchObject({ starting: 0, ready: 0 });
    // Only the claimed worker is left (the client's to kill); the cancelled spawn left nothing.
    expect((await engine.list()).map((w) => w.name)).toEqual([spawned.name]);
    expect(await substrate.list()).toEqual([`umbel-${spawned.name}`]);
  });
});
