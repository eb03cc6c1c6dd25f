/**
 * Pools of isolated and confined workers on the memory substrate: `pool start` with `worktree`
 * (each member its own worktree on umbel/<member>, from the pool's base) and with `sandbox`; the
 * claim matches them only for a call that asks for the same, a member made before the base moved is
 * never handed out, a release keeps a worktree with work, stop leaves `git worktree list` clean.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUmbel } from '../engine/engine.js';
import { UmbelError, UmbelErrorCode } from '../contract/errors.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';
import type { Umbel } from '../contract/umbel.js';
import { differences, poolSandbox } from './pool-key.js';

let root: string;
let home: string;
let repo: string;
let substrate: MemorySubstrate;
let umbel: Umbel;
const gitEnv = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: { ...process.env, ...gitEnv }, encoding: 'utf8' });
const entries = () => git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)?.length ?? 0;
const branches = () => git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/umbel/').trim();

/** A PATH where bwrap and socat are stand-ins (or missing: then nothing else, the machine has bwrap), before the machine's tools. */
function toolPath(without: string[] = []): string {
  const dir = join(root, `bin-${without.join('-') || 'all'}`);
  mkdirSync(dir, { recursive: true });
  for (const tool of ['bwrap', 'socat'].filter((t) => !without.includes(t))) if (!existsSync(join(dir, tool))) symlinkSync('/bin/true', join(dir, tool));
  return without.length ? dir : `${dir}:${process.env.PATH}`;
}

const engine = (path: string) => createUmbel({ substrate, providers: [createMockProvider()], home, env: { PATH: path, HOME: join(root, 'user'), ...gitEnv } });

beforeEach(async () => {
  root = await realpath(mkdtempSync(join(tmpdir(), 'umbel-pool-iso-')));
  home = join(root, 'state');
  repo = join(root, 'repo');
  mkdirSync(join(repo, 'sub'), { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'sub', 'x.txt'), 'x\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'base');
  substrate = createMemorySubstrate();
  umbel = engine(toolPath());
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  rmSync(root, { recursive: true, force: true });
});

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (UmbelError.isInstance(error)) return error.code;
    throw error;
  }
  return 'no error';
}

const cwd = () => join(repo, 'sub');
const start = (extra: Record<string, unknown>) => umbel.pool.start({ provider: 'mock', cwd: cwd(), size: 2, ...extra });
const claim = (extra: Record<string, unknown> = {}) => umbel.pool.claim({ provider: 'mock', cwd: cwd(), ...extra });

describe('a worktree pool', () => {
  it('makes each member in its own worktree on umbel/<member> from the base; only a --worktree call claims one', async () => {
    const head = git(repo, 'rev-parse', 'HEAD').trim();
    const pool = await start({ worktree: true });
    expect(pool.worktree).toEqual({ repo, base: 'HEAD' });
    expect(pool.counts.ready).toBe(2);
    for (const { worker } of pool.workers) {
      const s = await umbel.status({ name: worker });
      expect(s.worktree).toMatchObject({ path: join(home, 'worktrees', worker), branch: `umbel/${worker}`, base: head });
      expect(s.cwd).toBe(join(home, 'worktrees', worker, 'sub'));
    }
    expect(entries()).toBe(3);
    // A plain call never gets an isolated member; a named branch is the caller's own.
    expect(await claim()).toMatchObject({ reason: 'no-match' });
    expect(await claim({ worktree: { branch: 'mine' } })).toMatchObject({ reason: 'no-match' });
    expect(await claim({ worktree: { base: 'main' } })).toMatchObject({ reason: 'claimed', pool: pool.name });
    expect(await code(claim({ pool: pool.name }))).toBe(UmbelErrorCode.PoolMismatch);
    const got = await claim({ worktree: true });
    expect(got).toMatchObject({ reason: 'claimed', pool: pool.name });
    expect((await umbel.status({ name: String(got.worker) })).worktree?.branch).toBe(`umbel/${got.worker}`);
  });

  it('a member made before the base moved is never handed out: the claim finds the pool empty, the refill makes fresh ones', async () => {
    const pool = await start({ worktree: true });
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'moved');
    const moved = git(repo, 'rev-parse', 'HEAD').trim();
    expect(await claim({ worktree: true })).toMatchObject({ reason: 'empty', pool: pool.name, refill: true });
    expect((await umbel.pool.status({ name: pool.name }))[0]?.workers).toEqual([]);
    await umbel.pool.refill({ name: pool.name });
    const got = await claim({ worktree: true });
    expect(got.reason).toBe('claimed');
    expect((await umbel.status({ name: String(got.worker) })).worktree?.base).toBe(moved);
  });

  it('status says a stale member is dead (the next refill replaces it); stop leaves git worktree list clean', async () => {
    const pool = await start({ worktree: true });
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'moved');
    const status = (await umbel.pool.status({ name: pool.name }))[0];
    expect(status?.counts).toMatchObject({ ready: 0, dead: 2 });
    expect(status?.workers[0]?.reason).toMatch(/the base has moved/);
    await umbel.pool.stop({ name: pool.name });
    expect(entries()).toBe(1);
    expect(branches()).toBe('');
    expect(readdirSync(join(home, 'worktrees')).filter((n) => !n.startsWith('.'))).toEqual([]);
  });

  it('a release follows kill: a clean worktree goes, one with work is kept with its branch, the worker leaves the pool', async () => {
    const pool = await start({ worktree: true });
    const clean = String((await claim({ worktree: true })).worker);
    await umbel.pool.release({ pool: pool.name, worker: clean });
    expect(existsSync(join(home, 'worktrees', clean))).toBe(false);
    const busy = String((await claim({ worktree: true })).worker);
    writeFileSync(join(home, 'worktrees', busy, 'sub', 'new.txt'), 'work\n');
    expect(await code(umbel.pool.release({ pool: pool.name, worker: busy }))).toBe(UmbelErrorCode.WorktreeHasWork);
    expect((await umbel.status({ name: busy })).state).toBe('killed');
    expect(existsSync(join(home, 'worktrees', busy, 'sub', 'new.txt'))).toBe(true);
    expect(branches()).toContain(`umbel/${busy}`);
    expect((await umbel.pool.status({ name: pool.name }))[0]?.workers.map((w) => w.worker)).not.toContain(busy);
  });

  it('refuses a branch and a cwd outside git before anything is made', async () => {
    expect(await code(start({ worktree: { branch: 'x' } }))).toBe(UmbelErrorCode.Usage);
    expect(await code(umbel.pool.start({ provider: 'mock', cwd: root, worktree: true }))).toBe(UmbelErrorCode.WorktreeInvalid);
    expect(await umbel.pool.status()).toEqual([]);
  });
});

describe('a sandboxed pool', () => {
  it('confines every member; only a call with the same sandbox claims one', async () => {
    const pool = await start({ sandbox: true });
    expect(pool.sandbox).toEqual({ write: [], read: [], allow: [] });
    for (const { worker } of pool.workers) expect((await umbel.status({ name: worker })).sandbox?.enabled).toBe(true);
    expect(await claim()).toMatchObject({ reason: 'no-match' });
    expect(await claim({ sandbox: { allow: ['example.com'] } })).toMatchObject({ reason: 'no-match' });
    expect(await claim({ worktree: true, sandbox: true })).toMatchObject({ reason: 'no-match' });
    expect(await claim({ sandbox: true })).toMatchObject({ reason: 'claimed', pool: pool.name });
    // and a plain pool is never claimed by a sandboxed call
    const plain = await start({});
    expect(plain.name).not.toBe(pool.name);
    expect((await claim({ sandbox: true })).pool).toBe(pool.name);
  });

  it('is refused where the sandbox cannot be had, before anything is created', async () => {
    if (process.platform !== 'linux') return;
    umbel = engine(toolPath(['bwrap']));
    expect(await code(start({ sandbox: true }))).toBe(UmbelErrorCode.SandboxUnavailable);
    expect(existsSync(join(home, 'pools'))).toBe(false);
    expect(substrate.launches).toHaveLength(0);
  });
});

describe('the pool key of worktree and sandbox (pure)', () => {
  const base = { provider: 'mock', cwd: '/r', unattended: false, envDigest: 'd' };
  it('compares commits when both are resolved (a claim), refs otherwise (a start)', () => {
    const pool = { ...base, worktree: { repo: '/r', base: 'HEAD' } };
    expect(
      differences({ ...pool, worktree: { ...pool.worktree, commit: 'a' } }, { ...base, worktree: { repo: '/r', base: 'main', commit: 'a' } }, 'd'),
    ).toEqual([]);
    expect(
      differences({ ...pool, worktree: { ...pool.worktree, commit: 'a' } }, { ...base, worktree: { repo: '/r', base: 'HEAD', commit: 'b' } }, 'd')[0],
    ).toMatch(/worktree base: .*moved/);
    expect(differences(pool, { ...base, worktree: { repo: '/r', base: 'main', commit: 'a' } }, 'd')[0]).toMatch(/worktree base/);
    expect(differences(pool, { ...base, worktree: { repo: '/other', base: 'HEAD' } }, 'd')[0]).toMatch(/worktree: the pool's are of/);
    expect(differences(pool, base, 'd')).toEqual(['worktree: the pool has worktrees from HEAD, the call none']);
  });
  it('a sandbox matches on its widenings, in any order', () => {
    expect(poolSandbox(undefined)).toBeUndefined();
    expect(poolSandbox(false)).toBeUndefined();
    const sandbox = poolSandbox({ allow: ['b.com', 'a.com', 'a.com'] });
    expect(sandbox).toEqual({ write: [], read: [], allow: ['a.com', 'b.com'] });
    expect(differences({ ...base, ...(sandbox ? { sandbox } : {}) }, { ...base, sandbox: poolSandbox({ allow: ['a.com', 'b.com'] }) }, 'd')).toEqual([]);
    expect(differences({ ...base, sandbox: poolSandbox(true) }, base, 'd')).toEqual(['sandbox: the pool has the default sandbox, the call none']);
  });
});
