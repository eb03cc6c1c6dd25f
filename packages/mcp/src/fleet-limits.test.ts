// The MCP face of fleet limits: umbel_spawn's maxWorkers (the shared SpawnOptionsSchema) refuses
// past the limit with an isError result carrying UMBEL_FLEET_LIMIT and the message.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createUmbel } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMcpServer } from './server.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
let client: Client;
let close: () => Promise<void>;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-mcp-limits-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-mcp-limits-work-'));
  substrate = createMemorySubstrate();
  const engine = createUmbel({ substrate, providers: [createMockProvider()], home, env: { PATH: process.env.PATH } });
  const server = createMcpServer(engine, { log: () => undefined });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'umbel-test', version: '0.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  close = () => server.close();
});
afterEach(async () => {
  await close();
  for (const s of await substrate.list()) await substrate.kill(s);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

const spawn = async (name: string) =>
  (await client.callTool({ name: 'umbel_spawn', arguments: { name, provider: 'mock', cwd: work, maxWorkers: 1 } })) as CallToolResult;

describe('umbel_spawn maxWorkers', () => {
  it('refuses past the limit: isError, UMBEL_FLEET_LIMIT, the limit and the live count', async () => {
    expect((await spawn('w1')).isError).toBeFalsy();
    const refused = await spawn('w2');
    expect(refused.isError).toBe(true);
    const text = JSON.stringify(refused.content);
    expect(text).toContain('UMBEL_FLEET_LIMIT');
    expect(text).toMatch(/maxWorkers 1 is reached: 1 workers live/);
  });
});
