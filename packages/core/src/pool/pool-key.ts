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
import type { PoolRecord } from '../contract/schemas.js';

const KEY_RE = /^[0-9a-f]{64}$/;

/** The options a pool's workers share, other than the environment. */
export type PoolSpec = Pick<PoolRecord, 'provider' | 'cwd' | 'model' | 'permissionMode' | 'allowedTools' | 'appendSystemPrompt' | 'unattended'>;

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

/** The digest of spec + environment: the default pool name is derived from it. */
export function specDigest(key: Buffer, spec: PoolSpec, env: string): string {
  return hmac(key, 'spec', [...SPEC_FIELDS.map((f) => spec[f] ?? null), env]);
}

/** Whether two digests are equal (in constant time). */
export function sameDigest(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** What differs between a pool and a call, in words (env values are never shown: only that one differs). */
export function differences(record: PoolRecord, spec: PoolSpec, env: string): string[] {
  const out: string[] = [];
  for (const field of SPEC_FIELDS) {
    const want = spec[field];
    const have = record[field];
    if ((want ?? undefined) !== (have ?? undefined)) out.push(`${field}: the pool has ${shown(have)}, the call ${shown(want)}`);
  }
  if (!sameDigest(record.envDigest, env)) {
    out.push('the worker environment differs (a --env name or value, or an inherited variable such as PATH or HOME)');
  }
  return out;
}

function shown(value: string | boolean | undefined): string {
  return value === undefined ? 'none' : typeof value === 'string' ? `'${value}'` : String(value);
}
