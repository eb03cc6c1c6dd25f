// Real-CLI tier: the BUILT standalone MCP server (`umbel-mcp`) over stdio, driven by the MCP SDK's own
// client, supervising a REAL pinned `claude` worker against the local Anthropic mock. The key goes to
// the worker as `{fromEnv: "ANTHROPIC_API_KEY"}`, resolved from the server's own env. No network.
// When the binary or the build is missing this FAILS, it never skips.
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { startAnthropicMock } from '../../test-fixtures/mock-servers/anthropic.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins, realCliPath } from '../../test-fixtures/real/clis.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { MOCK_API_KEY, seedClaudeConfig } from '../../test-fixtures/real/seed-claude.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { assertBuilt, BUILD_ROOT, processesOf, reapProcesses, REPO_ROOT, UMBEL_MCP_BIN, umbelRunner } from '../../test-fixtures/real/umbel-helpers.mjs';

type Json = any;
type Mock = { url: string; close: () => Promise<void> };

let root: string;
let home: string;
let work: string;
let config: string;
let mock: Mock;
let serverEnv: Record<string, string>;
let client: Json;
let stderr = '';

/** The SDK as @umbel/mcp depends on it (tests/real has no dependencies of its own). */
async function loadSdk(): Promise<{ Client: Json; StdioClientTransport: Json }> {
  const req = createRequire(join(REPO_ROOT, 'packages/mcp/package.json'));
  const { Client } = await import(req.resolve('@modelcontextprotocol/sdk/client/index.js'));
  const { StdioClientTransport } = await import(req.resolve('@modelcontextprotocol/sdk/client/stdio.js'));
  return { Client, StdioClientTransport };
}

async function call(name: string, args: Record<string, unknown>): Promise<Json> {
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 300_000 });
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}\n${stderr}`).toBeFalsy();
  return result.structuredContent;
}

beforeAll(async () => {
  const claude: string = realCliPath('claude'); // throws "run `pnpm install:real-clis`" when missing
  assertBuilt([join(BUILD_ROOT, 'packages/mcp/dist/bin.js')]);
  root = realpathSync(await mkdtemp(join(tmpdir(), 'umbel-real-mcp-')));
  home = join(root, 'umbel-home');
  work = join(root, 'work');
  config = join(root, 'config');
  mkdirSync(work, { recursive: true });
  mkdirSync(join(root, 'user-home'), { recursive: true });
  seedClaudeConfig({ configDir: config }); // NOT trusting `work`
  mock = await startAnthropicMock({ logFile: join(root, 'requests.jsonl') });
  serverEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: join(root, 'user-home'),
    LANG: 'C.UTF-8',
    CI: 'true',
    UMBEL_HOME: home,
    UMBEL_CLAUDE_BIN: claude,
    ANTHROPIC_API_KEY: MOCK_API_KEY,
  };
  if (process.env.TMUX_TMPDIR) serverEnv.TMUX_TMPDIR = process.env.TMUX_TMPDIR;
  const { Client, StdioClientTransport } = await loadSdk();
  const transport = new StdioClientTransport({ command: process.execPath, args: [UMBEL_MCP_BIN], env: serverEnv, cwd: root, stderr: 'pipe' });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  client = new Client({ name: 'umbel-real-tier', version: '0.0.0' });
  await client.connect(transport);
}, 120_000);

afterAll(async () => {
  await client?.close().catch(() => undefined);
  if (serverEnv) {
    // Whatever the test left: through the umbel CLI on the same UMBEL_HOME.
    const { run } = umbelRunner({ cwd: root, env: serverEnv });
    const listed = await run(['ls', '--json']);
    let workers: Array<{ name: string }> = [];
    try {
      workers = JSON.parse(listed.stdout || '[]');
    } catch {
      workers = [];
    }
    for (const w of workers) await run(['kill', w.name, '--purge']);
  }
  if (root) await reapProcesses(root); // whatever umbel's own kill did not end
  await mock?.close();
  if (root) rmSync(root, { recursive: true, force: true });
}, 300_000);

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
    // umbel answered the real trust dialog for `work`.
    expect(JSON.parse(readFileSync(join(config, '.claude.json'), 'utf8')).projects?.[work]?.hasTrustDialogAccepted).toBe(true);

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
