// The MCP face with the real pinned codex and gemini (test-fixtures/real/pins.json): the built `umbel-mcp`
// bin, driven by the MCP SDK's stdio client, against the local mock model servers — spawn →
// send → wait → read → kill. Fails (never skips) when a pinned CLI or the build is missing.
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { startGeminiMock } from '../../test-fixtures/mock-servers/gemini.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { startResponsesMock } from '../../test-fixtures/mock-servers/openai-responses.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins, realCliPath } from '../../test-fixtures/real/clis.mjs';
import { assertBuilt, cleanUp, codexMockConfig, connectUmbelMcp, testEnv } from '../../test-fixtures/real/umbel-helpers.mjs';

type Json = any;
const T = 300_000;
const roots: string[] = [];
const clients: Json[] = [];
const mocks: { close(): Promise<void> }[] = [];

async function serve(env: Record<string, string>, cwd: string): Promise<Json> {
  assertBuilt(['packages/mcp/dist/bin.js']);
  const client = await connectUmbelMcp({ env, cwd });
  clients.push(client);
  return client;
}

async function call(client: Json, name: string, args: Record<string, unknown>): Promise<Json> {
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: T });
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
  return result.structuredContent;
}

async function roundTrip(client: Json, provider: string, cwd: string, env: Record<string, unknown>): Promise<void> {
  const name = `real-mcp-${provider}`;
  expect(await call(client, 'umbel_spawn', { name, provider, cwd, env, startupTimeout: '180s' })).toMatchObject({ name, provider, alive: true });
  expect(await call(client, 'umbel_send', { name, prompt: `ECHO ${provider} answers over MCP` })).toEqual({ worker: name, turn: 1 });
  let outcome = await call(client, 'umbel_wait', { name, timeout: '50s' });
  for (let i = 0; i < 4 && outcome.reason === 'timeout'; i++) outcome = await call(client, 'umbel_wait', { name, timeout: '50s' });
  expect(outcome).toMatchObject({ reason: 'completed', result: `${provider} answers over MCP` });
  expect(await call(client, 'umbel_read', { name })).toMatchObject({ result: `${provider} answers over MCP`, complete: true });
  expect(await call(client, 'umbel_kill', { name, purge: true })).toMatchObject({ purged: true });
}

/** A fresh temp root and a mock model server for one provider, both cleaned up in afterAll. */
async function world(provider: string, startMock: () => Promise<Json>): Promise<{ root: string; mock: Json }> {
  const root = realpathSync(await mkdtemp(join(tmpdir(), `umbel-real-mcp-${provider}-`)));
  roots.push(root);
  const mock = await startMock();
  mocks.push(mock);
  return { root, mock };
}

afterAll(() => cleanUp({ disconnect: clients, reap: roots, close: mocks, remove: roots }), T);

describe('the MCP face on the real CLIs', () => {
  it(
    `codex ${readPins().codex.version}: spawn → send → wait → read → kill`,
    async () => {
      const codex = realCliPath('codex');
      const { root, mock } = await world('codex', startResponsesMock);
      const work = join(root, 'project');
      const codexHome = join(root, 'codex-home');
      mkdirSync(join(work, '.git'), { recursive: true });
      mkdirSync(join(root, 'home'), { recursive: true });
      mkdirSync(codexHome, { recursive: true });
      writeFileSync(
        join(codexHome, 'config.toml'),
        codexMockConfig({ baseUrl: mock.url, envKey: 'MOCK_API_KEY', providerLines: ['request_max_retries = 0', 'stream_max_retries = 0'] }),
      );
      const client = await serve(
        testEnv({
          home: join(root, 'home'),
          umbelHome: join(root, 'state'),
          UMBEL_CODEX_BIN: codex,
          CODEX_HOME: codexHome,
          MOCK_API_KEY: 'sk-mock-not-a-secret',
        }),
        root,
      );
      await roundTrip(client, 'codex', work, { MOCK_API_KEY: { fromEnv: 'MOCK_API_KEY' } });
    },
    T,
  );

  it(
    `gemini ${readPins().gemini.version}: spawn → send → wait → read → kill`,
    async () => {
      const gemini = realCliPath('gemini');
      const { root, mock } = await world('gemini', startGeminiMock);
      const work = join(root, 'project');
      mkdirSync(work, { recursive: true });
      mkdirSync(join(root, 'home', '.gemini'), { recursive: true });
      writeFileSync(join(root, 'home', '.gemini', 'settings.json'), '{ "privacy": { "usageStatisticsEnabled": false }, "ui": { "hideTips": true } }\n');
      const client = await serve(
        testEnv({
          home: join(root, 'home'),
          umbelHome: join(root, 'state'),
          UMBEL_GEMINI_BIN: gemini,
          GEMINI_API_KEY: 'test-key-not-a-secret',
          GOOGLE_GEMINI_BASE_URL: mock.url,
        }),
        root,
      );
      await roundTrip(client, 'gemini', work, { GEMINI_API_KEY: { fromEnv: 'GEMINI_API_KEY' }, GOOGLE_GEMINI_BASE_URL: { fromEnv: 'GOOGLE_GEMINI_BASE_URL' } });
    },
    T,
  );
});
