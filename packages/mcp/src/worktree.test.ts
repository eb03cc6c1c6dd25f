/**
 * The MCP face of isolated workers: umbel_spawn with worktree, umbel_status's worktree, umbel_diff
 * against base, umbel_kill's purge refusal and discardWorktree. SDK client over an in-memory
 * transport, the real engine on the memory substrate, a real git repository.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createUmbel } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMcpServer } from './server.js';

let root: string;
let repo: string;
let substrate: MemorySubstrate;
let client: Client;
let close: () => Promise<void>;
const gitEnv = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: { ...process.env, ...gitEnv }, encoding: 'utf8' });

beforeEach(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'umbel-mcp-wt-')));
  repo = join(root, 'repo');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'f.txt'), 'base\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'base');
  substrate = createMemorySubstrate();
  // No worktree reserve here (git/spare.test.ts and e2e-worktree test it): the counts are of workers' worktrees.
  const engine = createUmbel({
    substrate,
    providers: [createMockProvider()],
    home: join(root, 'home'),
    env: { PATH: process.env.PATH },
    reserveWorktree: async () => undefined,
  });
  const server = createMcpServer(engine, { log: () => undefined });
  const [a, b] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'worktree-test', version: '0.0.0' });
  await Promise.all([server.connect(b), client.connect(a)]);
  close = () => server.close();
});
afterEach(async () => {
  await client.close().catch(() => undefined);
  await close().catch(() => undefined);
  for (const s of await substrate.list()) await substrate.kill(s);
  rmSync(root, { recursive: true, force: true });
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}
async function ok(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await call(name, args);
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent as Record<string, unknown>;
}

describe('isolated workers over MCP', () => {
  it('spawn with worktree {branch, base}, status, diff against base, kill purge refused, discard', async () => {
    const wt = join(root, 'home', 'worktrees', 'w1');
    const spawned = await ok('umbel_spawn', { name: 'w1', provider: 'mock', cwd: repo, worktree: { branch: 'feature/x', base: 'main' } });
    expect(spawned).toMatchObject({ cwd: wt, worktree: { path: wt, branch: 'feature/x' } });
    writeFileSync(join(wt, 'f.txt'), 'changed\n');
    expect(await ok('umbel_status', { name: 'w1' })).toMatchObject({ worktree: { dirty: true, ahead: 0 } });
    const diff = await ok('umbel_diff', { name: 'w1', against: 'base' });
    expect(diff).toMatchObject({ against: 'base', files: [{ path: 'f.txt', status: 'modified' }] });
    const refused = await call('umbel_kill', { name: 'w1', purge: true });
    expect(refused.isError).toBe(true);
    expect((refused.content[0] as { text: string }).text).toContain('UMBEL_WORKTREE_HAS_WORK');
    expect(existsSync(join(wt, 'f.txt'))).toBe(true);
    expect(await ok('umbel_kill', { name: 'w1', discardWorktree: true })).toMatchObject({ purged: true, worktree: { removed: true } });
    expect(existsSync(wt)).toBe(false);
    expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  });

  it('umbel_pool_start with worktree: umbel_spawn with worktree and pool auto claims a member on its own branch umbel/<member>', async () => {
    const pool = await ok('umbel_pool_start', { provider: 'mock', cwd: repo, size: 1, worktree: { base: 'main' } });
    expect(pool).toMatchObject({ worktree: { repo, base: 'main' } });
    const member = (pool.workers as { worker: string }[])[0]?.worker;
    const plain = await ok('umbel_spawn', { provider: 'mock', cwd: repo, pool: 'auto' });
    expect(plain.name).not.toBe(member);
    const claimed = await ok('umbel_spawn', { provider: 'mock', cwd: repo, worktree: true, pool: 'auto' });
    expect(claimed).toMatchObject({ name: member, worktree: { branch: `umbel/${member}`, path: join(root, 'home', 'worktrees', String(member)) } });
    expect((await call('umbel_pool_start', { provider: 'mock', cwd: repo, worktree: { branch: 'x' } })).isError).toBe(true);
    await ok('umbel_pool_stop', {});
  });

  it('refuses a worktree outside a repository with a typed error', async () => {
    const result = await call('umbel_spawn', { name: 'w2', provider: 'mock', cwd: root, worktree: true });
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toContain('UMBEL_WORKTREE_INVALID');
  });
});
