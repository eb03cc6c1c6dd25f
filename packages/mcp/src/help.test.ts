/**
 * The `umbel_help` tool through the SDK's own Client over an in-memory transport (the harness of
 * server.test.ts): the index, each topic, and an unknown topic as a normal result.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createUmbel } from '@umbel/core';
import { createMemorySubstrate, createMockProvider } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMcpServer } from './server.js';

interface Help {
  topic?: string;
  found: boolean;
  text: string;
  topics: string[];
}

const TOPICS = ['lifecycle', 'workflow', 'providers'];

let home: string;
let client: Client;
let closeServer: () => Promise<void>;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-mcp-help-'));
  const engine = createUmbel({ substrate: createMemorySubstrate(), providers: [createMockProvider()], home, env: { PATH: process.env.PATH } });
  const server = createMcpServer(engine, { log: () => undefined });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'umbel-help-test', version: '0.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  closeServer = () => server.close();
});

afterEach(async () => {
  await client.close().catch(() => undefined);
  await closeServer().catch(() => undefined);
  await rm(home, { recursive: true, force: true });
});

/** Call umbel_help; assert a normal result whose text copy equals the structured content. */
async function help(args: Record<string, unknown> = {}): Promise<Help> {
  const result = (await client.callTool({ name: 'umbel_help', arguments: args })) as CallToolResult;
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  expect(result.structuredContent).toBeDefined();
  expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
  return result.structuredContent as unknown as Help;
}

describe('umbel_help', () => {
  it('is listed, read-only, with a described optional topic and an output schema', async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'umbel_help');
    expect(tool).toBeDefined();
    expect(tool?.description).toMatch(/lifecycle/);
    expect(tool?.annotations?.readOnlyHint).toBe(true);
    expect(tool?.annotations?.destructiveHint).toBe(false);
    const properties = (tool?.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
    expect(Object.keys(properties)).toEqual(['topic']);
    expect(properties.topic?.description).toMatch(/lifecycle.*workflow.*providers/);
    expect(tool?.inputSchema.required ?? []).toEqual([]);
    expect(tool?.outputSchema).toBeDefined();
  });

  it('without a topic returns an index naming every topic with one line each', async () => {
    const index = await help();
    expect(index.topic).toBeUndefined();
    expect(index.found).toBe(true);
    expect(index.topics).toEqual(TOPICS);
    for (const topic of TOPICS) expect(index.text).toMatch(new RegExp(`^- \`${topic}\`: \\S.*$`, 'm'));
    expect(index.text).toContain('umbel_help');
  });

  it('lifecycle: the verbs in order, send does not wait, and every wait outcome with what to do', async () => {
    const { topic, found, text, topics } = await help({ topic: 'lifecycle' });
    expect({ topic, found, topics }).toEqual({ topic: 'lifecycle', found: true, topics: TOPICS });
    expect(text).toContain('umbel_spawn → umbel_send → umbel_wait → umbel_read');
    expect(text).toMatch(/does NOT wait/);
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
      expect(text).toContain(`\`${reason}\``);
    for (const tool of ['umbel_spawn', 'umbel_wait', 'umbel_keys', 'umbel_capture', 'umbel_logs', 'umbel_status', 'umbel_list', 'umbel_kill', 'umbel_prune'])
      expect(text).toContain(tool);
  });

  it('workflow: umbel run with workers, steps and the check/schema guardrails', async () => {
    const { topic, found, text } = await help({ topic: 'workflow' });
    expect({ topic, found }).toEqual({ topic: 'workflow', found: true });
    expect(text).toContain('umbel run');
    for (const marker of ['workers:', 'steps:', 'provider:', 'needs:', 'check:', 'schema:', 'retries:', '{{ steps.', 'fromEnv', '--resume'])
      expect(text).toContain(marker);
  });

  it('providers: claude, codex, gemini, opencode, copilot and qwen, how each is selected and the env each needs', async () => {
    const { topic, found, text } = await help({ topic: 'providers' });
    expect({ topic, found }).toEqual({ topic: 'providers', found: true });
    for (const provider of ['claude', 'codex', 'gemini', 'opencode', 'copilot', 'qwen']) expect(text).toContain(`"provider": "${provider}"`);
    for (const variable of ['ANTHROPIC_API_KEY', 'CODEX_API_KEY', 'GEMINI_API_KEY', 'OPENCODE_CONFIG', 'UMBEL_OPENCODE_BIN', 'fromEnv'])
      expect(text).toContain(variable);
    expect(text).toContain('## opencode');
    expect(text).toContain('## copilot');
    expect(text).toContain('UMBEL_COPILOT_BIN');
    expect(text).toContain('## qwen');
    expect(text).toContain('UMBEL_QWEN_BIN');
  });

  it('an unknown topic is a normal result: not found, with the available topics', async () => {
    const missing = await help({ topic: 'billing' });
    expect(missing.topic).toBe('billing');
    expect(missing.found).toBe(false);
    expect(missing.topics).toEqual(TOPICS);
    expect(missing.text).toMatch(/not found/i);
    expect(missing.text).toContain('billing');
    for (const topic of TOPICS) expect(missing.text).toContain(topic);
  });

  it('topic names are matched without regard to case or surrounding space', async () => {
    expect(await help({ topic: ' Providers ' })).toMatchObject({ topic: 'providers', found: true });
  });

  it('rejects unknown fields as a usage error', async () => {
    const result = (await client.callTool({ name: 'umbel_help', arguments: { topic: 'lifecycle', verbose: true } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content[0] as { text: string }).text).error.code).toBe('UMBEL_USAGE');
  });
});
