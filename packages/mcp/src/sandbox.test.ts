/**
 * The MCP face of confined workers: umbel_spawn with sandbox (true or widened) launches the CLI in
 * srt and umbel_status shows the policy; a machine without bubblewrap refuses it with
 * UMBEL_SANDBOX_UNAVAILABLE before anything is made; a pool started with sandbox is claimed only by a
 * spawn with the same sandbox. SDK client over
 * an in-memory transport, the real engine on the memory substrate.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createUmbel } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMcpServer } from './server.js';

let root: string;
let cwd: string;
let substrate: MemorySubstrate;
const closers: (() => Promise<unknown>)[] = [];

async function connect(pathValue: string | undefined): Promise<Client> {
  const engine = createUmbel({ substrate, providers: [createMockProvider()], home: join(root, 'home'), env: { PATH: pathValue, HOME: join(root, 'user') } });
  const server = createMcpServer(engine, { log: () => undefined });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'sandbox-test', version: '0.0.0' });
  await Promise.all([server.connect(b), client.connect(a)]);
  closers.push(
    () => client.close(),
    () => server.close(),
  );
  return client;
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'umbel-mcp-sbx-')));
  cwd = join(root, 'project');
  mkdirSync(cwd);
  substrate = createMemorySubstrate();
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => undefined);
  for (const s of await substrate.list()) await substrate.kill(s);
  rmSync(root, { recursive: true, force: true });
});

const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe('confined workers over MCP', () => {
  it('spawn with sandbox {allow, write} wraps the launch in srt; status shows the policy and its widenings', async () => {
    const client = await connect(process.env.PATH);
    const spawned = await call(client, 'umbel_spawn', { name: 'w1', provider: 'mock', cwd, sandbox: { allow: ['api.example.com'], write: ['/data/out'] } });
    expect(spawned.isError, text(spawned)).toBeFalsy();
    expect(substrate.launches.at(-1)?.argv).toContain('--settings');
    const status = (await call(client, 'umbel_status', { name: 'w1' })).structuredContent;
    expect(status).toMatchObject({ sandbox: { enabled: true, network: ['api.example.com'], widened: { allow: ['api.example.com'], write: ['/data/out'] } } });
  });

  it('without bubblewrap it is refused (UMBEL_SANDBOX_UNAVAILABLE) before anything is made', async () => {
    if (process.platform !== 'linux') return;
    const client = await connect(join(root, 'empty-bin'));
    const refused = await call(client, 'umbel_spawn', { name: 'w2', provider: 'mock', cwd, sandbox: true });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('UMBEL_SANDBOX_UNAVAILABLE');
    expect(substrate.launches).toHaveLength(0);
    expect(existsSync(join(root, 'home', 'workers', 'w2'))).toBe(false);
  });

  it('umbel_pool_start with sandbox confines its members; only umbel_spawn with the same sandbox claims one', async () => {
    const client = await connect(process.env.PATH);
    const pool = await call(client, 'umbel_pool_start', { provider: 'mock', cwd, size: 1, sandbox: true });
    expect(pool.isError, text(pool)).toBeFalsy();
    const member = (pool.structuredContent as { workers: { worker: string }[] }).workers[0]?.worker;
    expect(pool.structuredContent).toMatchObject({ sandbox: { write: [], read: [], allow: [] } });
    // a plain pooled spawn starts a worker of its own (never an isolated member)
    const plain = await call(client, 'umbel_spawn', { provider: 'mock', cwd, pool: 'auto' });
    expect((plain.structuredContent as { name: string }).name).not.toBe(member);
    const claimed = await call(client, 'umbel_spawn', { provider: 'mock', cwd, sandbox: true, pool: 'auto' });
    expect(claimed.isError, text(claimed)).toBeFalsy();
    expect(claimed.structuredContent).toMatchObject({ name: member, sandbox: { enabled: true } });
    await call(client, 'umbel_pool_stop', {});
  });
});
