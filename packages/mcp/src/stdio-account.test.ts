/**
 * Account outcomes over MCP on the fakes: the BUILT `umbel-mcp` bin (the SDK's stdio client), real
 * tmux, and the fake claude, codex and gemini from test-fixtures — a 429 (with and without
 * retry-after) comes back from `umbel_wait` as rate-limited (118, `resetsAt` when recorded, a `next`
 * that says when to retry), a 401 as auth-failed (119, `next`: sign in again). Needs `pnpm build`.
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanUp, codexMockConfig, connectUmbelMcp, REPO_ROOT, testEnv } from '../../../test-fixtures/real/umbel-helpers.mjs';

type Json = any;
const T = 300_000;
const roots: string[] = [];
const clients: Json[] = [];
const mocks: { close(): Promise<void> }[] = [];
const fake = (cli: string) => join(REPO_ROOT, 'test-fixtures/bin', cli);

afterAll(() => cleanUp({ disconnect: clients, reap: roots, close: mocks, remove: roots }), T);

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

/** Send `prompt` and wait for its outcome (a few short waits: MCP waits are bounded). */
async function turn(client: Json, name: string, prompt: string): Promise<Json> {
  await call(client, 'umbel_send', { name, prompt });
  let outcome = await call(client, 'umbel_wait', { name, timeout: '50s' });
  for (let i = 0; i < 4 && outcome.reason === 'timeout'; i++) outcome = await call(client, 'umbel_wait', { name, timeout: '50s' });
  return outcome;
}

/** A fresh temp root (home, project) for one provider, removed in afterAll. */
function root(provider: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `umbel-mcp-account-${provider}-`)));
  roots.push(dir);
  mkdirSync(join(dir, 'home'), { recursive: true });
  mkdirSync(join(dir, 'project'), { recursive: true });
  return dir;
}

function expectRefused(outcome: Json): void {
  expect(outcome).toMatchObject({ reason: 'auth-failed', exitCode: 119 });
  expect(outcome.next).toMatch(/sign in again/i);
}

describe('account outcomes over MCP on the fakes', () => {
  it(
    'claude: 429 with and without retry-after → rate-limited, 401 → auth-failed',
    async () => {
      const dir = root('claude');
      const config = join(dir, 'claude-config');
      mkdirSync(config, { recursive: true });
      const work = join(dir, 'project');
      writeFileSync(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: { [work]: { hasTrustDialogAccepted: true } } }));
      const client = await serve(testEnv({ home: join(dir, 'home'), umbelHome: join(dir, 'state'), UMBEL_CLAUDE_BIN: fake('claude') }), dir);
      const env = { CLAUDE_CONFIG_DIR: config, CLAUDE_CODE_MAX_RETRIES: '0' };
      expect(await call(client, 'umbel_spawn', { name: 'c', cwd: work, env, startupTimeout: '90s' })).toMatchObject({ alive: true });
      for (const prompt of ['FAIL 429 retry-after=3 rate limited', 'FAIL 429 rate limited']) {
        const limited = await turn(client, 'c', prompt);
        expect(limited).toMatchObject({ reason: 'rate-limited', exitCode: 118 });
        expect(limited).not.toHaveProperty('resetsAt');
        expect(limited.next).toMatch(/no reset time/);
      }
      expectRefused(await turn(client, 'c', 'FAIL 401 invalid x-api-key'));
      await call(client, 'umbel_kill', { name: 'c', purge: true });
    },
    T,
  );

  it(
    'codex: 429 → rate-limited, a plan limit → resetsAt named in next, 401 → auth-failed',
    async () => {
      const dir = root('codex');
      const work = join(dir, 'project');
      const codexHome = join(dir, 'codex-home');
      mkdirSync(join(work, '.git'), { recursive: true });
      mkdirSync(codexHome, { recursive: true });
      writeFileSync(join(codexHome, 'config.toml'), codexMockConfig({ baseUrl: 'http://127.0.0.1:9/v1', envKey: 'MOCK_API_KEY' }));
      const client = await serve(
        testEnv({
          home: join(dir, 'home'),
          umbelHome: join(dir, 'state'),
          UMBEL_CODEX_BIN: fake('codex'),
          CODEX_HOME: codexHome,
          MOCK_API_KEY: 'sk-not-a-secret',
        }),
        dir,
      );
      const env = { MOCK_API_KEY: { fromEnv: 'MOCK_API_KEY' } };
      expect(await call(client, 'umbel_spawn', { name: 'x', provider: 'codex', cwd: work, env, startupTimeout: '90s' })).toMatchObject({ alive: true });
      expect(await turn(client, 'x', 'FAIL 429 retry-after=1 Rate limit reached')).toMatchObject({ reason: 'rate-limited', exitCode: 118 });
      expectRefused(await turn(client, 'x', 'FAIL 401 Incorrect API key provided'));
      const plan = await turn(client, 'x', 'FAIL 429 limit=usage reset=3600 You have hit your usage limit');
      expect(plan).toMatchObject({ reason: 'rate-limited', exitCode: 118, limit: 'usage_limit_exceeded' });
      expect(plan.next).toContain(`after ${plan.resetsAt}`);
      await call(client, 'umbel_kill', { name: 'x', purge: true });
    },
    T,
  );

  it(
    'gemini: the daily quota dialog → rate-limited, a retryable 429 it would retry forever → rate-limited, 401 → auth-failed',
    async () => {
      const dir = root('gemini');
      const work = join(dir, 'project');
      mkdirSync(join(dir, 'home', '.gemini'), { recursive: true });
      writeFileSync(join(dir, 'home', '.gemini', 'settings.json'), '{ "privacy": { "usageStatisticsEnabled": false }, "ui": { "hideTips": true } }\n');
      const { startGeminiMock } = (await import(join(REPO_ROOT, 'test-fixtures/mock-servers/gemini.mjs'))) as {
        startGeminiMock(): Promise<{ url: string; close(): Promise<void> }>;
      };
      const mock = await startGeminiMock();
      mocks.push(mock);
      const client = await serve(
        testEnv({
          home: join(dir, 'home'),
          umbelHome: join(dir, 'state'),
          UMBEL_GEMINI_BIN: fake('gemini'),
          GEMINI_API_KEY: 'test-key-not-a-secret',
          GOOGLE_GEMINI_BASE_URL: mock.url,
        }),
        dir,
      );
      const env = { GEMINI_API_KEY: { fromEnv: 'GEMINI_API_KEY' }, GOOGLE_GEMINI_BASE_URL: { fromEnv: 'GOOGLE_GEMINI_BASE_URL' } };
      expect(
        await call(client, 'umbel_spawn', { name: 'g', provider: 'gemini', cwd: work, env: { ...env, FAKE_GEMINI_RETRY_MS: '20' }, startupTimeout: '90s' }),
      ).toMatchObject({ alive: true });
      expectRefused(await turn(client, 'g', 'FAIL 401 Request had invalid authentication credentials.'));
      for (const prompt of ['FAIL 429 Resource has been exhausted', 'FAIL 429 retry-after=2 Resource has been exhausted']) {
        expect(await turn(client, 'g', prompt)).toMatchObject({ reason: 'rate-limited', exitCode: 118, message: 'Resource has been exhausted' });
      }
      const limited = await turn(client, 'g', 'FAIL 429 limit=usage You exceeded your current quota, please check your plan and billing details.');
      expect(limited).toMatchObject({ reason: 'rate-limited', exitCode: 118 });
      expect(limited.message).toContain('Usage limit reached for');
      await call(client, 'umbel_kill', { name: 'g', purge: true });
    },
    T,
  );
});
