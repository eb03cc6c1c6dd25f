/** Billing over MCP (issue 17): the shared `billing` field of umbel_spawn, and `billing` in what the tools return. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createUmbel, type ProviderV1 } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMcpServer } from './server.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
let client: Client;
let close: () => Promise<void>;

/** The mock CLI, declaring MOCK_API_KEY as what bills the API (a hand-written ProviderV1 that also lists it to inherit). */
const billed = (): ProviderV1 => ({ ...createMockProvider(), billing: { apiEnv: ['MOCK_API_KEY'] } });

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-mcp-billing-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-mcp-billing-work-'));
  substrate = createMemorySubstrate();
  const engine = createUmbel({ substrate, providers: [billed()], home, env: { PATH: process.env.PATH, HOME: '/nonexistent-home', MOCK_API_KEY: 'sk-mock' } });
  const server = createMcpServer(engine, { log: () => undefined });
  const [a, b] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'umbel-billing-test', version: '0.0.0' });
  await Promise.all([server.connect(b), client.connect(a)]);
  close = () => server.close();
});

afterEach(async () => {
  await close();
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;

describe('billing over MCP', () => {
  it('umbel_spawn takes billing; a key passed with billing "subscription" is refused with its own code and nothing is left', async () => {
    const refused = await call('umbel_spawn', {
      name: 'w1',
      provider: 'mock',
      cwd: work,
      env: { MOCK_API_KEY: { fromEnv: 'MOCK_API_KEY' } },
      billing: 'subscription',
    });
    expect(refused.isError).toBe(true);
    const error = JSON.parse((refused.content[0] as { text: string }).text).error;
    expect(error).toMatchObject({ code: 'UMBEL_BILLING_REFUSED' });
    expect(error.message).not.toContain('sk-mock');
    const list = await call('umbel_list', {});
    expect(list.structuredContent).toMatchObject({ workers: [] });
    expect(await substrate.list()).toEqual([]);
  });

  it("the server's key is not inherited even though the provider lists it; status says how the worker bills", async () => {
    const spawned = await call('umbel_spawn', { name: 'w2', provider: 'mock', cwd: work, billing: 'any' });
    expect(spawned.isError, JSON.stringify(spawned.content)).toBeFalsy();
    expect(spawned.structuredContent).toMatchObject({ name: 'w2', billing: 'unknown' });
    expect(substrate.launches.map((l) => l.env.MOCK_API_KEY)).toEqual([undefined]);
    const bad = await call('umbel_spawn', { name: 'w3', provider: 'mock', cwd: work, billing: 'free' });
    expect(bad.isError).toBe(true);
  });
});
