/**
 * The MCP face with every provider: the default engine of @umbel/runtime (tmux + the providers) served in
 * process over the SDK's in-memory transport, driving the fake codex, gemini, opencode and qwen from
 * test-fixtures through spawn → send → wait → read → kill. (Claude is covered over stdio in
 * stdio.test.ts and against the real binary in tests/real.)
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDefaultUmbel } from '@umbel/runtime';
import { codexMockConfig, testEnv } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { createMcpServer } from './server.js';

const root = resolve(import.meta.dirname, '../../..');
const T = 300_000;
let scratch: string;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-mcp-providers-')));
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  if (scratch) await rm(scratch, { recursive: true, force: true });
}, T);

async function connect(env: Record<string, string>): Promise<Client> {
  const engine = await createDefaultUmbel({ env, cwd: scratch });
  const server = createMcpServer(engine, { log: () => undefined });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'providers-test', version: '0' });
  await client.connect(clientSide);
  cleanups.push(async () => {
    for (const w of await engine.list()) await engine.kill({ name: w.name, purge: true });
    await client.close();
    await server.close();
  });
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: T })) as CallToolResult;
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
  return result.structuredContent as Record<string, unknown>;
}

async function roundTrip(client: Client, provider: string, cwd: string, env: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<void> {
  const name = `mcp-${provider}`;
  expect(await call(client, 'umbel_spawn', { name, provider, cwd, env, ...extra })).toMatchObject({ name, provider, alive: true });
  expect(await call(client, 'umbel_send', { name, prompt: `ECHO ${provider} over MCP` })).toEqual({ worker: name, turn: 1 });
  expect(await call(client, 'umbel_wait', { name, timeout: '240s' })).toMatchObject({ reason: 'completed', result: `${provider} over MCP`, turn: 1 });
  expect(await call(client, 'umbel_read', { name })).toMatchObject({ result: `${provider} over MCP`, complete: true });
  expect(await call(client, 'umbel_kill', { name, purge: true })).toMatchObject({ worker: name, purged: true });
}

describe('the MCP face with every provider', () => {
  it(
    'codex (fake): spawn → send → wait → read → kill',
    async () => {
      const base = join(scratch, 'codex');
      const work = join(base, 'project');
      const codexHome = join(base, 'user-codex-home');
      await mkdir(join(work, '.git'), { recursive: true });
      await mkdir(join(base, 'home'), { recursive: true });
      await mkdir(codexHome, { recursive: true });
      await writeFile(join(codexHome, 'config.toml'), codexMockConfig({ baseUrl: 'http://127.0.0.1:9/v1', envKey: 'MOCK_API_KEY' }));
      const client = await connect(
        testEnv({
          home: join(base, 'home'),
          umbelHome: join(base, 'state'),
          UMBEL_CODEX_BIN: join(root, 'test-fixtures/bin/codex'),
          CODEX_HOME: codexHome,
          MOCK_API_KEY: 'sk-fake-not-a-secret',
        }),
      );
      await roundTrip(client, 'codex', work, { MOCK_API_KEY: { fromEnv: 'MOCK_API_KEY' } });
    },
    T,
  );

  it(
    'gemini (fake): spawn → send → wait → read → kill',
    async () => {
      const base = join(scratch, 'gemini');
      const work = join(base, 'project');
      await mkdir(work, { recursive: true });
      await mkdir(join(base, 'home', '.gemini'), { recursive: true });
      const { startGeminiMock } = (await import(join(root, 'test-fixtures/mock-servers/gemini.mjs'))) as {
        startGeminiMock: () => Promise<{ url: string; close(): Promise<void> }>;
      };
      const mock = await startGeminiMock();
      cleanups.push(() => mock.close());
      const client = await connect(
        testEnv({
          home: join(base, 'home'),
          umbelHome: join(base, 'state'),
          UMBEL_GEMINI_BIN: join(root, 'test-fixtures/bin/gemini'),
          GEMINI_API_KEY: 'test-key-not-a-secret',
          GOOGLE_GEMINI_BASE_URL: mock.url,
        }),
      );
      await roundTrip(client, 'gemini', work, { GEMINI_API_KEY: { fromEnv: 'GEMINI_API_KEY' } });
    },
    T,
  );

  it(
    'qwen (fake): spawn → send → wait → read → kill',
    async () => {
      const base = join(scratch, 'qwen');
      const work = join(base, 'project');
      await mkdir(work, { recursive: true });
      await mkdir(join(base, 'home'), { recursive: true });
      const { startChatMock } = (await import(join(root, 'test-fixtures/mock-servers/openai-chat.mjs'))) as {
        startChatMock: () => Promise<{ url: string; close(): Promise<void> }>;
      };
      const mock = await startChatMock();
      cleanups.push(() => mock.close());
      const client = await connect(
        testEnv({
          home: join(base, 'home'),
          umbelHome: join(base, 'state'),
          UMBEL_QWEN_BIN: join(root, 'test-fixtures/bin/qwen'),
          OPENAI_API_KEY: 'test-key-not-a-secret',
          OPENAI_BASE_URL: mock.url,
        }),
      );
      await roundTrip(client, 'qwen', work, { OPENAI_API_KEY: { fromEnv: 'OPENAI_API_KEY' } });
    },
    T,
  );

  it(
    'opencode (fake): spawn → send → wait → read → kill, with a user config dir never installed online',
    async () => {
      const base = join(scratch, 'opencode');
      const work = join(base, 'project');
      await mkdir(join(work, '.git'), { recursive: true });
      const { startChatMock } = (await import(join(root, 'test-fixtures/mock-servers/openai-chat.mjs'))) as {
        startChatMock: () => Promise<{ url: string; close(): Promise<void> }>;
      };
      const mock = await startChatMock();
      cleanups.push(() => mock.close());
      const { seedOpencodeUser } = (await import(
        join(root, 'test-fixtures/fake-opencode/seed.mjs')
      )) as typeof import('../../../test-fixtures/fake-opencode/seed.mjs');
      const seeded = seedOpencodeUser({ home: join(base, 'home'), baseUrl: mock.url, installed: false });
      const client = await connect(
        testEnv({ home: join(base, 'home'), umbelHome: join(base, 'state'), UMBEL_OPENCODE_BIN: join(root, 'test-fixtures/bin/opencode'), ...seeded }),
      );
      // the fake holds its start 10 minutes on that dir unless umbel defuses the plugin-install trap
      await roundTrip(client, 'opencode', work, { FAKE_OPENCODE_INSTALL_STALL_MS: '600000' }, { startupTimeout: '180s' });
    },
    T,
  );
});
