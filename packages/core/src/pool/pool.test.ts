import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUmbel } from '../engine/engine.js';
import { UmbelError } from '../contract/errors.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';
import type { Umbel } from '../contract/umbel.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
let umbel: Umbel;
const CANARY = 'canary-9f2c41e7-not-on-disk';
const callerEnv = { PATH: process.env.PATH, HOME: '/nonexistent-home', MOCK_API_KEY: 'inherited-key', CANARY_SOURCE: CANARY };

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-pool-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-pool-work-'));
  substrate = createMemorySubstrate();
  umbel = createUmbel({ substrate, providers: [createMockProvider()], home, env: callerEnv });
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
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

const start = (extra: Record<string, unknown> = {}) => umbel.pool.start({ provider: 'mock', cwd: work, size: 2, ...extra });
const claim = (extra: Record<string, unknown> = {}) => umbel.pool.claim({ provider: 'mock', cwd: work, ...extra });
const states = async (name?: string) => (await umbel.pool.status({ name }))[0]?.workers.map((w) => w.state).sort();

/** Every file under `dir`, recursively. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

describe('pool start and status', () => {
  it('keeps N workers at their ready prompt, named after the pool; one pool per set of options', async () => {
    const pool = await start({ size: 3 });
    expect(pool).toMatchObject({ provider: 'mock', cwd: expect.any(String), size: 3, counts: { ready: 3, starting: 0, claimed: 0, dead: 0 } });
    expect(pool.name).toMatch(/^mock-[0-9a-f]{8}$/);
    for (const w of pool.workers) expect(w.worker.startsWith(`${pool.name}-`)).toBe(true);
    const listed = await umbel.list();
    expect(
      listed
        .filter((w) => w.state === 'ready')
        .map((w) => w.name)
        .sort(),
    ).toEqual(pool.workers.map((w) => w.worker).sort());
    // The same options name the same pool: starting it again resizes it, nothing else.
    const again = await start({ size: 4 });
    expect(again.name).toBe(pool.name);
    expect(again.counts.ready).toBe(4);
    expect((await umbel.pool.status()).map((p) => p.name)).toEqual([pool.name]);
    // Other options are another pool; the same --name with other options is refused.
    const other = await start({ model: 'big', size: 1 });
    expect(other.name).not.toBe(pool.name);
    expect(await code(start({ name: other.name, model: 'small' }))).toBe('UMBEL_POOL_EXISTS');
  });

  it('refuses bad input before anything is written', async () => {
    expect(await code(umbel.pool.start({ provider: 'mock', cwd: work, size: 0 }))).toBe('UMBEL_USAGE');
    expect(await code(umbel.pool.start({ provider: 'mock', cwd: join(work, 'missing') }))).toBe('UMBEL_CWD_MISSING');
    expect(await code(umbel.pool.start({ provider: 'nope', cwd: work }))).toBe('UMBEL_PROVIDER_UNKNOWN');
    expect(await code(umbel.pool.start({ provider: 'mock', cwd: work, name: 'Bad Name' }))).toBe('UMBEL_USAGE');
    expect(existsSync(join(home, 'workers'))).toBe(false);
    expect(await umbel.pool.status()).toEqual([]);
    // Without any pool a claim is no match, and writes nothing (not even the key).
    expect(await claim()).toEqual({ reason: 'no-match', refill: false });
    expect(existsSync(join(home, 'pools'))).toBe(false);
  });

  it('a pool whose workers cannot start is removed again, with the spawn error', async () => {
    expect(await code(start({ env: { MOCK_CLI_SIGN_IN: '1' } }))).toBe('UMBEL_NOT_SIGNED_IN');
    expect(await umbel.pool.status()).toEqual([]);
    expect(await umbel.list()).toEqual([]);
    expect(await substrate.list()).toEqual([]);
  });
});

describe('pool claim', () => {
  it('is atomic: 10 parallel claims on a pool of 4 get 4 distinct warm workers, the other 6 none', async () => {
    const pool = await start({ size: 4 });
    // Separate engines on the same state root, like separate processes.
    const engines = Array.from({ length: 10 }, () => createUmbel({ substrate, providers: [createMockProvider()], home, env: callerEnv }));
    const claims = await Promise.all(engines.map((e) => e.pool.claim({ provider: 'mock', cwd: work })));
    const warm = claims.filter((c) => c.reason === 'claimed').map((c) => c.worker);
    expect(warm).toHaveLength(4);
    expect(new Set(warm).size).toBe(4);
    expect(warm.sort()).toEqual(pool.workers.map((w) => w.worker).sort());
    expect(claims.filter((c) => c.reason === 'empty')).toHaveLength(6);
    for (const c of claims) expect(c).toMatchObject({ pool: pool.name, refill: true });
    expect((await umbel.pool.status({ name: pool.name }))[0]?.counts).toMatchObject({ ready: 0, claimed: 4 });
    // Each answers its own prompt; a released worker is gone (never reused).
    await Promise.all(warm.map((w) => umbel.send({ name: w as string, prompt: `ECHO answer of ${w}` })));
    const outcomes = await Promise.all(warm.map((w) => umbel.wait({ name: w as string, timeout: '10s' })));
    expect(outcomes.map((o) => o.result)).toEqual(warm.map((w) => `answer of ${w}`));
    for (const w of warm) await umbel.pool.release({ pool: pool.name, worker: w as string });
    expect(await umbel.list()).toEqual([]);
    expect(await states(pool.name)).toEqual([]);
  });

  it('matches every option: another model, cwd or permission mode is no match', async () => {
    const pool = await start({ size: 1, model: 'm1', permissionMode: 'bypass' });
    expect(await claim({ model: 'm2', permissionMode: 'bypass' })).toEqual({ reason: 'no-match', refill: false });
    expect(await claim({ model: 'm1' })).toEqual({ reason: 'no-match', refill: false });
    expect(await claim({ model: 'm1', permissionMode: 'bypass', cwd: tmpdir() })).toEqual({ reason: 'no-match', refill: false });
    expect(await claim({ model: 'm1', permissionMode: 'bypass' })).toMatchObject({ reason: 'claimed', pool: pool.name });
    // Asking for a pool by name: a mismatch says what differs; an unknown name is an error.
    expect(await code(claim({ pool: pool.name, model: 'm2', permissionMode: 'bypass' }))).toBe('UMBEL_POOL_MISMATCH');
    expect(await code(claim({ pool: 'no-such-pool' }))).toBe('UMBEL_POOL_NOT_FOUND');
  });

  it('matches the environment without its values on disk', async () => {
    const pool = await start({ size: 2, env: { SECRET_TOKEN: CANARY, SHORT: '1' } });
    // The same values (a literal or taken from the caller's env) match; another value does not.
    expect(await claim({ env: { SECRET_TOKEN: 'other-value', SHORT: '1' } })).toEqual({ reason: 'no-match', refill: false });
    expect(await claim({ env: { SECRET_TOKEN: CANARY } })).toEqual({ reason: 'no-match', refill: false });
    expect(await claim({ env: { SECRET_TOKEN: CANARY, SHORT: '2' } })).toEqual({ reason: 'no-match', refill: false });
    expect(await claim()).toEqual({ reason: 'no-match', refill: false });
    const other = createUmbel({ substrate, providers: [createMockProvider()], home, env: { ...callerEnv, MOCK_API_KEY: 'another-inherited-key' } });
    expect(await other.pool.claim({ provider: 'mock', cwd: work, env: { SECRET_TOKEN: CANARY, SHORT: '1' } })).toEqual({ reason: 'no-match', refill: false });
    expect(await claim({ env: { SECRET_TOKEN: { fromEnv: 'CANARY_SOURCE' }, SHORT: '1' } })).toMatchObject({ reason: 'claimed', pool: pool.name });
    // Nothing under the state root holds the value, in clear or encoded, nor a plain hash of it.
    const forms = [
      CANARY,
      Buffer.from(CANARY).toString('base64'),
      Buffer.from(CANARY).toString('hex'),
      createHash('sha256').update(CANARY).digest('hex'),
      createHash('sha256').update(`SECRET_TOKEN=${CANARY}`).digest('hex'),
    ];
    const files = await filesUnder(home);
    expect(files.some((f) => f.endsWith('pool.json'))).toBe(true);
    for (const file of files) {
      const text = await readFile(file, 'latin1');
      for (const form of forms) expect(text.includes(form), `${file} holds ${form}`).toBe(false);
    }
    // The record names the variable, never its value; the key is private.
    const record = JSON.parse(await readFile(join(home, 'pools', pool.name, 'pool.json'), 'utf8'));
    expect(record.envNames).toEqual(['SECRET_TOKEN', 'SHORT']);
    expect(record.envDigest).toMatch(/^[0-9a-f]{64}$/);
    expect((await stat(join(home, 'pools', '.key'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(home, 'pools'))).mode & 0o777).toBe(0o700);
    // The digest is keyed per state root (no plain hash to try candidates against): the same
    // options and values in another state root digest differently.
    const home2 = await mkdtemp(join(tmpdir(), 'umbel-pool-other-'));
    try {
      const second = createUmbel({ substrate, providers: [createMockProvider()], home: home2, env: callerEnv });
      const twin = await second.pool.start({ provider: 'mock', cwd: work, size: 1, env: { SECRET_TOKEN: CANARY, SHORT: '1' } });
      const twinRecord = JSON.parse(await readFile(join(home2, 'pools', twin.name, 'pool.json'), 'utf8'));
      expect(twinRecord.envDigest).not.toBe(record.envDigest);
      expect(twin.name).not.toBe(pool.name);
      await second.pool.stop();
    } finally {
      await rm(home2, { recursive: true, force: true });
    }
  });

  it('never hands out a dead worker; status says dead and the next refill replaces it', async () => {
    const pool = await start({ size: 2 });
    const [a, b] = pool.workers.map((w) => w.worker) as [string, string];
    await substrate.crash(`umbel-${a}`, { signal: 'SIGKILL' });
    const status = (await umbel.pool.status({ name: pool.name }))[0];
    expect(status?.workers.find((w) => w.worker === a)).toMatchObject({ state: 'dead', reason: expect.stringContaining('SIGKILL') });
    expect(status?.counts).toMatchObject({ ready: 1, dead: 1 });
    expect(await claim()).toMatchObject({ reason: 'claimed', worker: b });
    expect(await claim()).toMatchObject({ reason: 'empty', pool: pool.name });
    // Like a tmux kill-server: every session gone at once.
    await umbel.pool.release({ pool: pool.name, worker: b });
    const refilled = await umbel.pool.refill({ name: pool.name });
    expect(refilled).toMatchObject({ pool: pool.name, busy: false });
    expect(refilled.started).toHaveLength(2);
    for (const name of await substrate.list()) await substrate.kill(name);
    expect(await states(pool.name)).toEqual(['dead', 'dead']);
    expect(await claim()).toMatchObject({ reason: 'empty' });
    await umbel.pool.refill({ name: pool.name });
    expect(await states(pool.name)).toEqual(['ready', 'ready']);
  });

  it('a worker that was sent a prompt outside the pool is never claimed', async () => {
    const pool = await start({ size: 1 });
    const w = pool.workers[0]?.worker as string;
    await umbel.send({ name: w, prompt: 'ECHO used' });
    expect((await umbel.pool.status({ name: pool.name }))[0]?.workers[0]).toMatchObject({ state: 'dead', reason: expect.stringContaining('prompt') });
    expect(await claim()).toMatchObject({ reason: 'empty' });
    expect(await umbel.list()).toEqual([]);
  });
});

describe('pool refill', () => {
  it('replaces used workers, trims a surplus, and refuses another environment', async () => {
    const pool = await start({ size: 3, env: { TOKEN: 'abc' } });
    const taken = await claim({ env: { TOKEN: 'abc' } });
    await umbel.pool.release({ pool: pool.name, worker: taken.worker as string });
    expect(await states(pool.name)).toEqual(['ready', 'ready']);
    // The values are not stored: a refill brings them, and must bring the same ones.
    expect(await code(umbel.pool.refill({ name: pool.name }))).toBe('UMBEL_POOL_MISMATCH');
    expect(await code(umbel.pool.refill({ name: pool.name, env: { TOKEN: 'abd' } }))).toBe('UMBEL_POOL_MISMATCH');
    const refilled = await umbel.pool.refill({ name: pool.name, env: { TOKEN: 'abc' } });
    expect(refilled.started).toHaveLength(1);
    expect(await states(pool.name)).toEqual(['ready', 'ready', 'ready']);
    await umbel.pool.start({ provider: 'mock', cwd: work, env: { TOKEN: 'abc' }, size: 1 });
    expect(await states(pool.name)).toEqual(['ready']);
    expect((await umbel.list()).length).toBe(1);
  });

  it('removes the half-started worker of a refill that was killed, and breaks its lock', async () => {
    const pool = await start({ size: 1 });
    const dir = join(home, 'pools', pool.name);
    // A refill killed outright: its lock (owner gone), a `starting/` marker and a worker it launched.
    await mkdir(join(dir, 'refill.lock'));
    await writeFile(join(dir, 'refill.lock', 'owner'), JSON.stringify({ pid: 2 ** 22 + 7, at: Date.now() }));
    const orphan = `${pool.name}-orphan`;
    await umbel.spawn({ name: orphan, provider: 'mock', cwd: work });
    await writeFile(join(dir, 'starting', orphan), '');
    expect((await umbel.pool.status({ name: pool.name }))[0]).toMatchObject({ refilling: false });
    expect((await umbel.pool.status({ name: pool.name }))[0]?.workers.find((w) => w.worker === orphan)).toMatchObject({ state: 'dead' });
    const refilled = await umbel.pool.refill({ name: pool.name });
    expect(refilled.removed).toContain(orphan);
    expect((await umbel.list()).map((w) => w.name)).not.toContain(orphan);
    expect(await states(pool.name)).toEqual(['ready']);
  });

  it('breaks a refill lock whose pid now belongs to another process (pid and start time, as every owned lock)', async () => {
    const pool = await start({ size: 1 });
    await umbel.pool.release({ pool: pool.name, worker: (await claim()).worker as string });
    const lock = join(home, 'pools', pool.name, 'refill.lock');
    await mkdir(lock);
    await writeFile(join(lock, 'owner'), JSON.stringify({ pid: process.pid, start: 'not-this-process', at: Date.now() }));
    expect((await umbel.pool.status({ name: pool.name }))[0]).toMatchObject({ refilling: false });
    expect(await umbel.pool.refill({ name: pool.name })).toMatchObject({ busy: false, started: [expect.any(String)] });
    expect(await states(pool.name)).toEqual(['ready']);
  });

  it('a second refill while one runs does nothing (busy); the first fills the pool', async () => {
    const pool = await start({ size: 1, env: { MOCK_CLI_START_MS: '300' } });
    await umbel.pool.release({ pool: pool.name, worker: (await claim({ env: { MOCK_CLI_START_MS: '300' } })).worker as string });
    const env = { MOCK_CLI_START_MS: '300' };
    const [one, two] = await Promise.all([umbel.pool.refill({ name: pool.name, env }), umbel.pool.refill({ name: pool.name, env })]);
    expect([one.busy, two.busy].sort()).toEqual([false, true]);
    expect([...one.started, ...two.started]).toHaveLength(1);
    expect(await states(pool.name)).toEqual(['ready']);
  });
});

describe('the teardown after a call (umbel -p hands it to a detached process)', () => {
  const DEAD_PID = 2 ** 22 + 7;
  const claimedDir = (pool: string) => join(home, 'pools', pool, 'claimed');

  it('a release by another process takes the claim over; one that fails keeps its marker with the error, status and prune see it', async () => {
    const pool = await start({ size: 1 });
    const { worker } = await claim();
    // The claim as a `-p` process (another pid) left it when it handed the teardown over.
    await rename(join(claimedDir(pool.name), `${worker}@${process.pid}`), join(claimedDir(pool.name), `${worker}@${DEAD_PID}`));
    let failures = 1;
    const flaky = {
      ...substrate,
      kill: async (session: string) => {
        if (failures-- > 0) throw new Error('the host refused the kill');
        return substrate.kill(session);
      },
    };
    const releaser = createUmbel({ substrate: flaky, providers: [createMockProvider()], home, env: callerEnv });
    await expect(releaser.pool.release({ pool: pool.name, worker: worker as string, claimedBy: DEAD_PID })).rejects.toThrow('the host refused the kill');
    // Taken over by this process, and marked with why it failed: dead, never claimable, the worker still there.
    expect(await readdir(claimedDir(pool.name))).toEqual([`${worker}@${process.pid}`]);
    const shown = (await umbel.pool.status({ name: pool.name }))[0]?.workers.find((w) => w.worker === worker);
    expect(shown).toMatchObject({ state: 'dead', reason: expect.stringContaining('its teardown failed: the host refused the kill') });
    expect((await umbel.status({ name: worker as string })).alive).toBe(true);
    expect((await umbel.prune()).removed).toContain(worker);
    expect(await readdir(claimedDir(pool.name))).toEqual([]);
    expect((await umbel.list()).map((w) => w.name)).not.toContain(worker);
  });

  it('a release that succeeds removes the worker and the marker of the claimer it took over from', async () => {
    const pool = await start({ size: 1 });
    const { worker } = await claim();
    await rename(join(claimedDir(pool.name), `${worker}@${process.pid}`), join(claimedDir(pool.name), `${worker}@${DEAD_PID}`));
    await umbel.pool.release({ pool: pool.name, worker: worker as string, claimedBy: DEAD_PID });
    expect(await readdir(claimedDir(pool.name))).toEqual([]);
    expect((await umbel.list()).map((w) => w.name)).not.toContain(worker);
  });

  it('prune finishes a teardown that was killed: a live worker whose claimer is gone is removed', async () => {
    const pool = await start({ size: 2 });
    const { worker } = await claim();
    await rename(join(claimedDir(pool.name), `${worker}@${process.pid}`), join(claimedDir(pool.name), `${worker}@${DEAD_PID}`));
    expect((await umbel.status({ name: worker as string })).alive).toBe(true);
    const pruned = await umbel.prune();
    expect(pruned.removed).toEqual([worker]);
    expect(await readdir(claimedDir(pool.name))).toEqual([]);
    expect(await states(pool.name)).toEqual(['ready']);
  });

  it('a refill in flight counts: a claim on an empty pool takes the worker a running refill is starting', async () => {
    const env = { MOCK_CLI_START_MS: '400' };
    const pool = await start({ size: 1, env });
    await umbel.pool.release({ pool: pool.name, worker: (await claim({ env })).worker as string });
    const refill = umbel.pool.refill({ name: pool.name, env });
    const starting = join(home, 'pools', pool.name, 'starting');
    for (let i = 0; i < 400 && (await readdir(starting)).length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    const [inFlight] = await readdir(starting);
    expect(await claim({ env })).toMatchObject({ reason: 'claimed', worker: inFlight, pool: pool.name });
    await refill;
  });

  it('a refill reserved for another process is in flight before it begins: a claim on the emptied pool waits for it', async () => {
    const env = { MOCK_CLI_START_MS: '200' };
    const pool = await start({ size: 1, env });
    await umbel.pool.release({ pool: pool.name, worker: (await claim({ env })).worker as string });
    // What `umbel -p` does before it exits: take the lock, hand it to its detached process (here: this one).
    const reservation = await umbel.pool.reserveRefill({ name: pool.name });
    expect(reservation).toBeDefined();
    expect(await umbel.pool.reserveRefill({ name: pool.name })).toBeUndefined(); // one refill at a time
    expect((await umbel.pool.status({ name: pool.name }))[0]).toMatchObject({ refilling: true, workers: [] });
    // No idle worker, no spawn under way yet: the claim waits for the refill all the same.
    const claimed = claim({ env });
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(await reservation?.handTo(process.pid)).toBe(true);
    const refill = umbel.pool.refill({ name: pool.name, env }, { handedOver: true });
    expect(await claimed).toMatchObject({ reason: 'claimed', pool: pool.name, worker: expect.stringMatching(new RegExp(`^${pool.name}-`)) });
    expect((await refill).busy).toBe(false);
  });

  it('a reserved refill whose process is gone never makes a claim wait; the next refill breaks its lock', async () => {
    const pool = await start({ size: 1 });
    await umbel.pool.release({ pool: pool.name, worker: (await claim()).worker as string });
    const reservation = await umbel.pool.reserveRefill({ name: pool.name });
    expect(await reservation?.handTo(DEAD_PID)).toBe(true);
    expect((await umbel.pool.status({ name: pool.name }))[0]?.refilling).toBe(false);
    expect(await claim()).toEqual({ pool: pool.name, reason: 'empty', refill: true });
    expect((await umbel.pool.refill({ name: pool.name })).started).toHaveLength(1);
    expect(await states(pool.name)).toEqual(['ready']);
    expect(await umbel.pool.reserveRefill({ name: 'no-such-pool' })).toBeUndefined();
  });

  it('a refill handed over that cannot even begin gives the lock up: no claim waits for it', async () => {
    const pool = await start({ size: 1, env: { TOKEN: 'abc' } });
    const reservation = await umbel.pool.reserveRefill({ name: pool.name });
    expect(await reservation?.handTo(process.pid)).toBe(true);
    expect(await code(umbel.pool.refill({ name: pool.name, env: { TOKEN: 'abd' } }, { handedOver: true }))).toBe('UMBEL_POOL_MISMATCH');
    expect((await umbel.pool.status({ name: pool.name }))[0]).toMatchObject({ refilling: false, lastError: expect.stringContaining('does not match') });
    expect(existsSync(join(home, 'pools', pool.name, 'refill.lock'))).toBe(false);
  });

  it('a refill that cannot even begin (another environment) is recorded in status', async () => {
    const pool = await start({ size: 1, env: { TOKEN: 'abc' } });
    expect(await code(umbel.pool.refill({ name: pool.name, env: { TOKEN: 'abd' } }))).toBe('UMBEL_POOL_MISMATCH');
    expect((await umbel.pool.status({ name: pool.name }))[0]?.lastError).toContain('does not match');
  });
});

describe('pool stop and prune', () => {
  it('stop leaves nothing: idle and claimed workers, sessions, the pool directory', async () => {
    const pool = await start({ size: 3 });
    await claim();
    expect(await umbel.pool.stop({ name: pool.name })).toEqual([{ pool: pool.name, removed: expect.arrayContaining(pool.workers.map((w) => w.worker)) }]);
    expect(await umbel.list()).toEqual([]);
    expect(await substrate.list()).toEqual([]);
    expect(await readdir(join(home, 'pools'))).toEqual(['.key']);
    expect(await code(umbel.pool.stop({ name: pool.name }))).toBe('UMBEL_POOL_NOT_FOUND');
    expect(await claim()).toEqual({ reason: 'no-match', refill: false });
  });

  it('stop during a start cancels its spawns: no worker is left half-started', async () => {
    const starting = umbel.pool.start({ provider: 'mock', cwd: work, size: 3, env: { MOCK_CLI_START_MS: '1500' } });
    starting.catch(() => undefined);
    for (let i = 0; i < 200 && (await substrate.list()).length < 3; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await substrate.list()).length).toBe(3);
    const [name] = (await readdir(join(home, 'pools'))).filter((n) => !n.startsWith('.'));
    await umbel.pool.stop({ name });
    expect(await code(starting)).toBe('UMBEL_POOL_NOT_FOUND');
    expect(await umbel.list()).toEqual([]);
    expect(await substrate.list()).toEqual([]);
    expect(await readdir(join(home, 'pools'))).toEqual(['.key']);
  });

  it('prune removes dead pool workers and keeps the live ones claimable', async () => {
    const pool = await start({ size: 2 });
    const [a, b] = pool.workers.map((w) => w.worker) as [string, string];
    await substrate.crash(`umbel-${a}`, { status: 1 });
    const pruned = await umbel.prune();
    expect(pruned.removed).toEqual([a]);
    expect((await umbel.pool.status({ name: pool.name }))[0]?.workers).toEqual([{ worker: b, state: 'ready' }]);
    expect(await claim()).toMatchObject({ reason: 'claimed', worker: b });
    // A claimed worker in use is live too.
    expect((await umbel.prune()).removed).toEqual([]);
    expect((await umbel.status({ name: b })).alive).toBe(true);
  });
});
