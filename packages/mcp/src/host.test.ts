/**
 * `host` on umbel_spawn: the field is core's (SpawnOptionsSchema), the server hands it to the engine
 * as given (a fleet routes it; @umbel/remote's createFleet), and a remote worker's status, with its
 * host, comes back as structured content. An engine without hosts refuses it with a typed error.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createUmbel, type SpawnOptions, type Umbel } from '@umbel/core';
import { createMemorySubstrate, createMockProvider } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMcpServer } from './server.js';

let home: string;
let client: Client;
let close: () => Promise<void>;

async function serve(engine: Umbel): Promise<void> {
  const server = createMcpServer(engine, { log: () => undefined });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'umbel-test', version: '0.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  close = () => server.close();
}

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-mcp-host-'));
});
afterEach(async () => {
  await client?.close().catch(() => undefined);
  await close?.().catch(() => undefined);
  await rm(home, { recursive: true, force: true });
});

describe('umbel_spawn with host', () => {
  it('documents host and passes it to the engine; the status comes back with its host', async () => {
    const real = createUmbel({ substrate: createMemorySubstrate(), providers: [createMockProvider()], home, env: {} });
    const spawned: SpawnOptions[] = [];
    const fleetLike = Object.assign(Object.create(real) as Umbel, {
      spawn: async (options: SpawnOptions) => {
        spawned.push(options);
        return {
          name: 'r1',
          provider: 'mock',
          state: 'ready',
          alive: true,
          cwd: '/srv/x',
          createdAt: new Date().toISOString(),
          turn: 0,
          completedTurn: 0,
          billing: 'unknown',
          anonymous: false,
          host: 'gpu',
        };
      },
    });
    await serve(fleetLike);
    const { tools } = await client.listTools();
    const spawnTool = tools.find((t) => t.name === 'umbel_spawn');
    expect((spawnTool?.inputSchema.properties as Record<string, { description?: string }>).host?.description).toMatch(/host of the config file/);
    const result = (await client.callTool({ name: 'umbel_spawn', arguments: { name: 'r1', provider: 'mock', host: 'gpu', cwd: '/srv/x' } })) as CallToolResult;
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(spawned).toMatchObject([{ name: 'r1', host: 'gpu', cwd: '/srv/x' }]);
    expect(result.structuredContent).toMatchObject({ name: 'r1', host: 'gpu' });
  });

  it('an engine without hosts refuses one (UMBEL_HOST_UNKNOWN), nothing started', async () => {
    const substrate = createMemorySubstrate();
    await serve(createUmbel({ substrate, providers: [createMockProvider()], home, env: {} }));
    const result = (await client.callTool({ name: 'umbel_spawn', arguments: { name: 'r2', provider: 'mock', host: 'gpu' } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content[0] as { text: string }).text).error).toMatchObject({ code: 'UMBEL_HOST_UNKNOWN' });
    expect(await substrate.list()).toEqual([]);
  });
});
