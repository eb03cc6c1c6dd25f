// Real-CLI tier: the BUILT standalone MCP server (`umbel-mcp`) over stdio, driven by the MCP SDK's own
// client, supervising a REAL pinned `claude` worker against the local Anthropic mock. The key goes to
// the worker as `{fromEnv: "ANTHROPIC_API_KEY"}`, resolved from the server's own env. No network.
// When the binary or the build is missing this FAILS, it never skips.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeTier } from '../../test-fixtures/real/claude-tier.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins } from '../../test-fixtures/real/clis.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { seedClaudeConfig } from '../../test-fixtures/real/seed-claude.mjs';
import { cleanUp, connectUmbelMcp, processesOf, type UmbelRun } from '../../test-fixtures/real/umbel-helpers.mjs';

type Json = any;
type Mock = { url: string; close: () => Promise<void> };

let root: string;
let work: string;
let config: string;
let mock: Mock;
let umbel: UmbelRun;
let client: Json;
let stderr = '';

async function call(name: string, args: Record<string, unknown>): Promise<Json> {
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 300_000 });
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}\n${stderr}`).toBeFalsy();
  return result.structuredContent;
}

beforeAll(async () => {
  const tier = await claudeTier('umbel-real-mcp-', { built: ['packages/mcp/dist/bin.js'] });
  ({ root, mock, run: umbel } = tier);
  work = join(root, 'work');
  config = join(root, 'config');
  mkdirSync(work, { recursive: true });
  seedClaudeConfig({ configDir: config }); // NOT trusting `work`
  client = await connectUmbelMcp({
    env: tier.env, // the key in ANTHROPIC_API_KEY, for `{fromEnv}`
    cwd: root,
    onStderr: (text) => {
      stderr += text;
    },
  });
}, 120_000);

afterAll(
  () =>
    cleanUp({
      disconnect: [client],
      // Whatever the test left: through the umbel CLI on the same UMBEL_HOME.
      workers: [umbel],
      reap: [root],
      close: [mock],
      remove: [root],
    }),
  300_000,
);

describe(`MCP over stdio with the real claude ${readPins().claude.version}`, () => {
  it('spawn → send → wait → read → kill through the SDK client', { timeout: 600_000 }, async () => {
    const status = await call('umbel_spawn', {
      name: 'mcp-real',
      cwd: work,
      env: {
        ANTHROPIC_API_KEY: { fromEnv: 'ANTHROPIC_API_KEY' },
        ANTHROPIC_BASE_URL: mock.url,
        CLAUDE_CONFIG_DIR: config,
        CLAUDE_CODE_MAX_RETRIES: '1',
      },
      startupTimeout: '180s',
    });
    expect(status).toMatchObject({ name: 'mcp-real', provider: 'claude', state: 'ready', alive: true });
    // umbel answered the real trust dialog for `work` (Claude saves its config on its own time: polled).
    const trusted = () => JSON.parse(readFileSync(join(config, '.claude.json'), 'utf8')).projects?.[work]?.hasTrustDialogAccepted;
    await expect.poll(trusted, { timeout: 20_000, interval: 200 }).toBe(true);

    expect(await call('umbel_send', { name: 'mcp-real', prompt: 'ECHO over mcp' })).toEqual({ worker: 'mcp-real', turn: 1 });
    expect(await call('umbel_wait', { name: 'mcp-real', timeout: '240s' })).toMatchObject({ reason: 'completed', turn: 1, result: 'over mcp', exitCode: 0 });
    expect(await call('umbel_send', { name: 'mcp-real', prompt: 'ECHO second over mcp' })).toEqual({ worker: 'mcp-real', turn: 2 });
    expect(await call('umbel_wait', { name: 'mcp-real', timeout: '240s' })).toMatchObject({ reason: 'completed', turn: 2, result: 'second over mcp' });
    expect(await call('umbel_read', { name: 'mcp-real', turn: 1 })).toMatchObject({ result: 'over mcp', complete: true });
    const transcript = (await call('umbel_status', { name: 'mcp-real' })).transcriptPath;
    expect(existsSync(transcript)).toBe(true);

    expect(await call('umbel_kill', { name: 'mcp-real' })).toMatchObject({ worker: 'mcp-real', killed: true });
    const left = processesOf({ cwd: work, envIncludes: [`CLAUDE_CONFIG_DIR=${config}`] }).filter((p: { args: string }) => !/^\S*tmux /.test(p.args));
    expect(left).toEqual([]);
  });
});
