/**
 * What a pool matches on, without env values on disk. A claim must find a pool whose workers have
 * exactly the environment the call would give a cold worker, but env values (API keys, tokens) may
 * never be written to the state root. A plain hash would not do: many values have little entropy
 * (`1`, `true`, a short password, a base URL) and a hash of them is found by trying candidates. So
 * the environment is digested with HMAC-SHA256 under a random 256-bit key generated once per state
 * root (`pools/.key`, 0600, never printed). Without the key a digest says nothing about the values,
 * and nothing can be tried offline against it; whoever can read the key can read the user's files
 * (and the workers' own environments) already.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { link, rm, writeFile } from 'node:fs/promises';
import { readStateFile } from '../engine/state-file.js';
import { join } from 'node:path';
import { PoolCorruptError } from '../contract/errors.js';
import { asStateError, mkdirPrivate } from '@umbel/provider';
import type { PoolRecord, PoolSandbox, SandboxRequest } from '../contract/schemas.js';
import { wideningOf } from '../sandbox/launch.js';

const KEY_RE = /^[0-9a-f]{64}$/;

/**
 * The options a pool's workers share, other than the environment. `worktree.base` is a ref (a pool
 * follows it); `commit` is where it points now, resolved by a claim for the pool and for the call.
 */
export type PoolSpec = Pick<PoolRecord, 'provider' | 'cwd' | 'model' | 'permissionMode' | 'allowedTools' | 'appendSystemPrompt' | 'unattended' | 'sandbox'> & {
  readonly worktree?: { readonly repo: string; readonly base: string; readonly commit?: string | undefined } | undefined;
};

/** The fields of a spec, in the order they are compared, digested and named in messages. */
export const SPEC_FIELDS = ['provider', 'cwd', 'model', 'permissionMode', 'allowedTools', 'appendSystemPrompt', 'unattended'] as const;

/**
 * The state root's pool key: read, or created once (two racing creators agree: the first link wins).
 * `keys` is the engine's memory of it (EngineContext.poolKeys).
 */
export async function poolKey(keys: Map<string, Buffer>, poolsDir: string): Promise<Buffer> {
  const cached = keys.get(poolsDir);
  if (cached) return cached;
  const path = join(poolsDir, '.key');
  let text = await readStateFile(path).catch((error: { code?: string }) => {
    if (error.code === 'ENOENT') return undefined;
    throw asStateError(error, path);
  });
  if (text === undefined) {
    await mkdirPrivate(poolsDir);
    const tmp = join(poolsDir, `.key.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      await writeFile(tmp, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
      // link() never replaces an existing key: the first creator's key is everyone's.
      await link(tmp, path).catch((error: { code?: string }) => {
        if (error.code !== 'EEXIST') throw error;
      });
    } catch (error) {
      throw asStateError(error, path);
    } finally {
      await rm(tmp, { force: true });
    }
    text = await readStateFile(path);
  }
  const hex = text.trim();
  if (!KEY_RE.test(hex)) throw new PoolCorruptError(path, 'not a pool key');
  const key = Buffer.from(hex, 'hex');
  keys.set(poolsDir, key);
  return key;
}

function hmac(key: Buffer, label: string, value: unknown): string {
  return createHmac('sha256', key).update(`umbel-pool-${label}-v1\0`).update(JSON.stringify(value)).digest('hex');
}

/** The digest of a complete worker environment (names and values, in name order). */
export function envDigest(key: Buffer, env: Readonly<Record<string, string>>): string {
  return hmac(
    key,
    'env',
    Object.keys(env)
      .sort()
      .map((name) => [name, env[name]]),
  );
}

/** The digest of spec + environment: the default pool name is derived from it (unchanged for a pool without worktree and sandbox). */
export function specDigest(key: Buffer, spec: PoolSpec, env: string): string {
  const isolated = spec.worktree || spec.sandbox ? [spec.worktree ? { repo: spec.worktree.repo, base: spec.worktree.base } : null, spec.sandbox ?? null] : [];
  return hmac(key, 'spec', [...SPEC_FIELDS.map((f) => spec[f] ?? null), env, ...isolated]);
}

/** A sandbox request as a pool keeps and compares it: its widenings, each sorted and without repeats. */
export function poolSandbox(request: SandboxRequest | undefined): PoolSandbox | undefined {
  if (request === undefined || request === false) return undefined;
  const widen = wideningOf(request);
  const norm = (list: readonly string[]) => [...new Set(list)].sort();
  return { write: norm(widen.write), read: norm(widen.read), allow: norm(widen.allow) };
}

/** Whether two digests are equal (in constant time). */
export function sameDigest(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** What differs between a pool and a call, in words (env values are never shown: only that one differs). */
export function differences(record: PoolSpec & { readonly envDigest: string }, spec: PoolSpec, env: string): string[] {
  const out: string[] = [];
  for (const field of SPEC_FIELDS) {
    const want = spec[field];
    const have = record[field];
    if ((want ?? undefined) !== (have ?? undefined)) out.push(`${field}: the pool has ${shown(have)}, the call ${shown(want)}`);
  }
  out.push(...isolationDifferences(record, spec));
  if (!sameDigest(record.envDigest, env)) {
    out.push('the worker environment differs (a --env name or value, or an inherited variable such as PATH or HOME)');
  }
  return out;
}

/**
 * Worktree and sandbox: a pool matches only a call that asks for the same (a plain call never gets an
 * isolated or confined member, nor the other way round). The worktree's repository must be the same,
 * and its base the same commit when both were resolved (a claim), else the same ref (a start).
 */
function isolationDifferences(pool: PoolSpec, call: PoolSpec): string[] {
  const out: string[] = [];
  const [have, want] = [pool.worktree, call.worktree];
  if (!have || !want) {
    if (have || want)
      out.push(`worktree: the pool has ${have ? `worktrees from ${have.base}` : 'none'}, the call ${want ? `a worktree from ${want.base}` : 'none'}`);
  } else if (have.repo !== want.repo) out.push(`worktree: the pool's are of '${have.repo}', the call's of '${want.repo}'`);
  else if (have.commit !== undefined && want.commit !== undefined ? have.commit !== want.commit : have.base !== want.base) {
    out.push(`worktree base: the pool's ${at(have)}, the call's ${at(want)} (a member made before the base moved is never handed out)`);
  }
  if (JSON.stringify(pool.sandbox ?? null) !== JSON.stringify(call.sandbox ?? null)) {
    out.push(`sandbox: the pool has ${confined(pool.sandbox)}, the call ${confined(call.sandbox)}`);
  }
  return out;
}

function at(w: { readonly base: string; readonly commit?: string | undefined }): string {
  return w.commit === undefined ? `'${w.base}'` : `'${w.base}' is at ${w.commit.slice(0, 12)}`;
}

function confined(sandbox: PoolSandbox | undefined): string {
  if (!sandbox) return 'none';
  const widened = [...sandbox.write.map((p) => `write ${p}`), ...sandbox.read.map((p) => `read ${p}`), ...sandbox.allow.map((h) => `allow ${h}`)];
  return widened.length ? `a sandbox widened by ${widened.join(', ')}` : 'the default sandbox';
}

function shown(value: string | boolean | undefined): string {
  return value === undefined ? 'none' : typeof value === 'string' ? `'${value}'` : String(value);
}
