/**
 * The MCP tool descriptions, the `provider` field of umbel_spawn and `umbel_help providers` name
 * the providers the engine actually has, each with the help text it supplies.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { createUmbel, type ProviderV1 } from '@umbel/core';
import { createMemorySubstrate, createMockProvider } from '@umbel/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from './server.js';

let home: string;
let client: Client;
let close: () => Promise<void>;
let tools: Map<string, Tool>;

const echo: ProviderV1 = {
  ...createMockProvider({ providerId: 'echo' }),
  displayName: 'Echo agent',
  description: 'A tiny agent that answers every prompt with "echo: <prompt>"; needs nothing.',
};
const plain: ProviderV1 = { ...createMockProvider({ providerId: 'plain' }), displayName: 'Plain CLI' };

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-mcp-provider-text-'));
  const engine = createUmbel({ substrate: createMemorySubstrate(), providers: [echo, plain], home, env: { PATH: process.env.PATH } });
  const server = createMcpServer(engine, { log: () => undefined });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'provider-text-test', version: '0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  close = () => server.close();
  tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
});
afterAll(async () => {
  await close?.();
  await rm(home, { recursive: true, force: true });
});

describe('the providers an MCP client is told about', () => {
  it("umbel_spawn's description and its provider field list the engine's providers, not a fixed three", () => {
    const spawn = tools.get('umbel_spawn');
    expect(spawn?.description).toContain('echo');
    expect(spawn?.description).toContain('plain');
    expect(spawn?.description).not.toMatch(/claude, codex or gemini/);
    const provider = (spawn?.inputSchema.properties as Record<string, { description?: string }>).provider;
    expect(provider?.description).toContain('echo (Echo agent): A tiny agent that answers every prompt with "echo: <prompt>"; needs nothing.');
    expect(provider?.description).toContain('plain (Plain CLI)');
    expect(provider?.description).not.toContain('gemini');
  });

  it("umbel_help's description names the loaded providers", () => {
    expect(tools.get('umbel_help')?.description).toMatch(/providers \(echo, plain\b/);
  });

  it('umbel_help providers lists every loaded provider with its description first', async () => {
    const result = (await client.callTool({ name: 'umbel_help', arguments: { topic: 'providers' } })) as CallToolResult;
    const text = (result.structuredContent as { text: string }).text;
    expect(text).toMatch(/## Loaded in this server/);
    expect(text).toContain('- `echo` (Echo agent): A tiny agent that answers every prompt with "echo: <prompt>"; needs nothing.');
    expect(text).toContain('- `plain` (Plain CLI)');
    expect(text.indexOf('`echo`')).toBeLessThan(text.indexOf('## claude'));
  });

  it('still refuses unknown fields of umbel_spawn as a usage error', async () => {
    const result = (await client.callTool({ name: 'umbel_spawn', arguments: { provider: 'echo', bogus: 1 } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content[0] as { text: string }).text).error.code).toBe('UMBEL_USAGE');
  });
});
