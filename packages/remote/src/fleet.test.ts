/**
 * The fleet over an in-process "host": a second engine on its own state root and substrate, reached
 * through the real wire (serveRpc on the JSON text of each request). Routing, the local records,
 * names unique across the fleet, env values resolved here, unreachable hosts, a host that drops
 * mid-wait, typed errors that keep their codes. The SSH transport itself is tested against a real
 * sshd in packages/cli/src/e2e-remote.test.ts.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createUmbel,
  errorExitCode,
  HostUnreachableError,
  OUTCOME_EXIT_CODES,
  type Umbel,
  UmbelError,
  type WaitProgress,
  type WorkerStatus,
} from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFleet } from './fleet.js';
import { serveRpc } from './serve.js';
import type { CallOptions, Transport } from './ssh-transport.js';
import { RemoteError, type RpcRequest } from './wire.js';

interface FakeHost {
  engine: Umbel;
  substrate: MemorySubstrate;
  home: string;
  down: string | undefined;
  requests: RpcRequest[];
  /** The calls in flight (what `drop` cuts). */
  links: Set<AbortController>;
  /** Drop the host: every call in flight fails as unreachable, and so does every new one until `up()`. */
  drop(reason: string): void;
  up(): void;
}

let dirs: string[];
let local: Umbel;
let localSubstrate: MemorySubstrate;
let localHome: string;
let work: string;
let gpu: FakeHost;
let fleet: Umbel;

const tmp = async (prefix: string) => {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};

async function fakeHost(name: string): Promise<FakeHost> {
  const home = await tmp(`umbel-host-${name}-`);
  const substrate = createMemorySubstrate();
  // The host's own environment: it does NOT have the caller's secret.
  const engine = createUmbel({ substrate, providers: [createMockProvider()], home, env: { PATH: process.env.PATH, HOME: home } });
  const host: FakeHost = {
    engine,
    substrate,
    home,
    down: undefined,
    requests: [],
    links: new Set(),
    drop(reason) {
      host.down = reason;
      for (const c of host.links) c.abort(new HostUnreachableError(name, reason));
    },
    up() {
      host.down = undefined;
    },
  };
  return host;
}

/** The wire, in process: the request as JSON text, served by the host's engine, errors back as RemoteError. */
function transportTo(hosts: Record<string, FakeHost>): Transport {
  return async (name, request, options: CallOptions = {}) => {
    const host = hosts[name];
    if (!host) throw new Error(`no fake host ${name}`);
    if (host.down) throw new HostUnreachableError(name, host.down);
    host.requests.push(JSON.parse(JSON.stringify(request)));
    const link = new AbortController();
    host.links.add(link);
    const dropped = new Promise<never>((_, reject) => link.signal.addEventListener('abort', () => reject(link.signal.reason), { once: true }));
    const signal = options.signal ? AbortSignal.any([options.signal, link.signal]) : link.signal;
    const served = serveRpc(host.engine, JSON.stringify(request), { signal, version: 'test', onProgress: options.onProgress });
    try {
      const response = await Promise.race([served, dropped]);
      if (response.ok) return response.value;
      throw new RemoteError(name, response.error);
    } finally {
      host.links.delete(link);
      link.abort();
    }
  };
}

beforeEach(async () => {
  dirs = [];
  localHome = await tmp('umbel-fleet-local-');
  work = await tmp('umbel-fleet-work-');
  localSubstrate = createMemorySubstrate();
  local = createUmbel({ substrate: localSubstrate, providers: [createMockProvider()], home: localHome, env: { PATH: process.env.PATH } });
  gpu = await fakeHost('gpu');
  fleet = createFleet({
    local,
    hosts: { gpu: { ssh: 'gpu.example' }, quiet: { ssh: 'quiet.example' } },
    env: { PATH: process.env.PATH, CALLER_SECRET: 'secret-from-the-caller' },
    transport: transportTo({ gpu, quiet: { ...gpu, down: 'ssh: connect to host quiet.example port 22: Connection refused' } as FakeHost }),
  });
});

afterEach(async () => {
  for (const s of [localSubstrate, gpu.substrate]) for (const name of await s.list()) await s.kill(name);
  for (const dir of dirs) await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (UmbelError.isInstance(error)) return error.code;
    throw error;
  }
  return 'no error';
}

describe('a worker on a host', () => {
  it('spawn --host runs it there; every later verb routes there with no flag', async () => {
    const status = await fleet.spawn({ name: 'r1', provider: 'mock', cwd: work, host: 'gpu' });
    expect(status).toMatchObject({ name: 'r1', host: 'gpu', state: 'ready', alive: true, anonymous: false });
    // It lives on the host's state root and substrate, not here.
    expect(await gpu.substrate.list()).toEqual(['umbel-r1']);
    expect(await localSubstrate.list()).toEqual([]);
    await expect(stat(join(localHome, 'workers', 'r1'))).rejects.toMatchObject({ code: 'ENOENT' });

    expect(await fleet.send({ name: 'r1', prompt: 'ECHO remote answer' })).toEqual({ worker: 'r1', turn: 1 });
    const progress: WaitProgress[] = [];
    const outcome = await fleet.wait({ name: 'r1', timeout: '10s' }, { onProgress: (p) => progress.push(p) });
    expect(outcome).toMatchObject({ reason: 'completed', result: 'remote answer', turn: 1, exitCode: 0 });
    expect((await fleet.read({ name: 'r1' })).result).toBe('remote answer');
    expect(await fleet.status({ name: 'r1' })).toMatchObject({ name: 'r1', host: 'gpu', state: 'ready', completedTurn: 1 });
    expect((await fleet.capture({ name: 'r1' })).worker).toBe('r1');
    expect((await fleet.logs({ name: 'r1' })).map((e) => e.kind)).toContain('sent');
    expect(await fleet.keys({ name: 'r1', keys: ['Escape'] })).toEqual({ worker: 'r1', keys: ['Escape'] });
    expect(await fleet.kill({ name: 'r1', purge: true })).toMatchObject({ worker: 'r1', purged: true });
    expect(await gpu.substrate.list()).toEqual([]);
    expect(await codeOf(fleet.status({ name: 'r1' }))).toBe('UMBEL_WORKER_NOT_FOUND');
    expect(gpu.requests.map((r) => r.op)).toEqual(['spawn', 'send', 'wait', 'read', 'status', 'capture', 'logs', 'keys', 'kill']);
  });

  it('revive routes to the host with no flag; the host decides (its refusal keeps its code)', async () => {
    await fleet.spawn({ name: 'rv', provider: 'mock', cwd: work, host: 'gpu' });
    await fleet.kill({ name: 'rv' });
    // the host's mock provider declares no resume: the host's typed refusal comes back as it is
    expect(await codeOf(fleet.revive({ name: 'rv' }))).toBe('UMBEL_RESUME_UNSUPPORTED');
    expect(gpu.requests.map((r) => r.op)).toEqual(['spawn', 'kill', 'revive']);
    expect(gpu.requests[2]?.options).toEqual({ name: 'rv' });
  });

  it('records where it lives in the local state root, privately, and drops the record on kill --purge', async () => {
    await fleet.spawn({ name: 'r2', provider: 'mock', cwd: work, host: 'gpu' });
    const dir = join(localHome, 'remote');
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'r2.json'))).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['r2.json']);
    await fleet.kill({ name: 'r2', purge: true });
    expect(await readdir(dir)).toEqual([]);
  });

  it('resolves --env NAME here, from the caller, and the host gets the literal value', async () => {
    await fleet.spawn({ name: 'r3', provider: 'mock', cwd: work, host: 'gpu', env: { MOCK_TOKEN: { fromEnv: 'CALLER_SECRET' } } });
    expect(gpu.substrate.launches[0]?.env.MOCK_TOKEN).toBe('secret-from-the-caller');
    // An unset variable fails here, before anything goes out.
    expect(await codeOf(fleet.spawn({ name: 'r4', provider: 'mock', host: 'gpu', env: { X: { fromEnv: 'NOT_SET_ANYWHERE' } } }))).toBe('UMBEL_ENV_UNRESOLVED');
    expect(gpu.requests.filter((r) => r.op === 'spawn')).toHaveLength(1);
  });

  it('an anonymous worker gets its name here, and stays anonymous', async () => {
    const status = await fleet.spawn({ provider: 'mock', cwd: work, host: 'gpu' });
    expect(status.name).toMatch(/^anon-[a-z0-9]{6}$/);
    expect(status.anonymous).toBe(true);
    expect((await fleet.status({ name: status.name })).anonymous).toBe(true);
  });

  it('a name is unique across this machine and the hosts', async () => {
    await fleet.spawn({ name: 'here', provider: 'mock', cwd: work });
    expect(await codeOf(fleet.spawn({ name: 'here', provider: 'mock', cwd: work, host: 'gpu' }))).toBe('UMBEL_WORKER_EXISTS');
    await fleet.spawn({ name: 'there', provider: 'mock', cwd: work, host: 'gpu' });
    expect(await codeOf(fleet.spawn({ name: 'there', provider: 'mock', cwd: work }))).toBe('UMBEL_WORKER_EXISTS');
    expect(await codeOf(fleet.spawn({ name: 'there', provider: 'mock', cwd: work, host: 'gpu' }))).toBe('UMBEL_WORKER_EXISTS');
    // Removed on the host behind our back: the stale record gives the name back.
    await gpu.engine.kill({ name: 'there', purge: true });
    expect((await fleet.spawn({ name: 'there', provider: 'mock', cwd: work })).host).toBeUndefined();
  });

  it("a failed remote spawn leaves no record (the host's typed error, its code and exit code kept)", async () => {
    let caught: unknown;
    await fleet.spawn({ name: 'bad', provider: 'nope', host: 'gpu' }).catch((e) => (caught = e));
    expect(caught).toMatchObject({ code: 'UMBEL_PROVIDER_UNKNOWN' });
    expect((caught as Error).message).toMatch(/^host gpu: unknown provider 'nope'/);
    expect(errorExitCode(caught)).toBe(2);
    expect(await readdir(join(localHome, 'remote'))).toEqual([]);
    expect(await codeOf(fleet.send({ name: 'bad', prompt: 'x' }))).toBe('UMBEL_WORKER_NOT_FOUND');
  });

  it("the host's errors keep their codes: a usage error is 2, a dead worker 125", async () => {
    await fleet.spawn({ name: 'r5', provider: 'mock', cwd: work, host: 'gpu' });
    expect(await codeOf(fleet.send({ name: 'r5', prompt: '   ' }))).toBe('UMBEL_USAGE');
    expect(await codeOf(fleet.read({ name: 'r5', turn: 9 }))).toBe('UMBEL_TURN_NOT_FOUND');
    await fleet.kill({ name: 'r5' });
    let caught: unknown;
    await fleet.send({ name: 'r5', prompt: 'ECHO x' }).catch((e) => (caught = e));
    expect(errorExitCode(caught)).toBe(errorExitCode(new UmbelError({ code: 'UMBEL_WORKER_DEAD', message: '' })));
  });
});

describe('one fleet', () => {
  it('list shows this machine and every host, with the host of each worker', async () => {
    await fleet.spawn({ name: 'l1', provider: 'mock', cwd: work });
    await fleet.spawn({ name: 'g1', provider: 'mock', cwd: work, host: 'gpu' });
    const workers = await fleet.list();
    expect(workers.map((w) => [w.name, w.host])).toEqual([
      ['l1', undefined],
      ['g1', 'gpu'],
    ]);
    const listing = await fleet.listFleet?.();
    expect(listing?.hosts).toEqual([
      { host: 'gpu', reachable: true, workers: 1 },
      { host: 'quiet', reachable: false, reason: expect.stringContaining('Connection refused'), workers: 0 },
    ]);
  });

  it('a host that does not answer: its recorded workers are unreachable with the reason, never dead, never pruned', async () => {
    await fleet.spawn({ name: 'g2', provider: 'mock', cwd: work, host: 'gpu' });
    gpu.drop('ssh: connect to host gpu.example port 22: No route to host');
    const workers = await fleet.list();
    const g2 = workers.find((w) => w.name === 'g2') as WorkerStatus;
    expect(g2).toMatchObject({
      state: 'unreachable',
      alive: false,
      host: 'gpu',
      provider: 'mock',
      cwd: work,
      unreachable: { reason: expect.stringContaining('No route') },
    });
    expect(await fleet.status({ name: 'g2' })).toMatchObject({ state: 'unreachable', host: 'gpu' });
    let caught: unknown;
    await fleet.send({ name: 'g2', prompt: 'ECHO x' }).catch((e) => (caught = e));
    expect(caught).toMatchObject({ code: 'UMBEL_HOST_UNREACHABLE' });
    expect(errorExitCode(caught)).toBe(120);
    const pruned = await fleet.prune();
    expect(pruned.removed).toEqual([]);
    expect(pruned.unreachable?.map((u) => u.host)).toEqual(['gpu', 'quiet']);
    gpu.up();
    expect(await fleet.status({ name: 'g2' })).toMatchObject({ state: 'ready', host: 'gpu' });
  });

  it('prune removes dead workers on the hosts and their records', async () => {
    await fleet.spawn({ name: 'g3', provider: 'mock', cwd: work, host: 'gpu' });
    await fleet.kill({ name: 'g3' });
    const pruned = await fleet.prune();
    expect(pruned.removed).toEqual(['g3']);
    expect(await readdir(join(localHome, 'remote'))).toEqual([]);
  });

  it('a record whose host left the config is listed as unreachable and says why when used', async () => {
    await fleet.spawn({ name: 'g4', provider: 'mock', cwd: work, host: 'gpu' });
    const without = createFleet({ local, hosts: {}, env: {}, transport: transportTo({}) });
    expect((await without.list()).find((w) => w.name === 'g4')).toMatchObject({
      state: 'unreachable',
      unreachable: { reason: "host 'gpu' is not in the config file" },
    });
    expect(await codeOf(without.send({ name: 'g4', prompt: 'x' }))).toBe('UMBEL_HOST_UNKNOWN');
  });

  it('an unknown --host is a usage error; the plain engine refuses a host too', async () => {
    let caught: unknown;
    await fleet.spawn({ name: 'x', provider: 'mock', host: 'nowhere' }).catch((e) => (caught = e));
    expect(caught).toMatchObject({ code: 'UMBEL_HOST_UNKNOWN', message: expect.stringContaining('configured: gpu, quiet') });
    expect(errorExitCode(caught)).toBe(2);
    expect(await codeOf(local.spawn({ name: 'x', provider: 'mock', host: 'gpu' }))).toBe('UMBEL_HOST_UNKNOWN');
    expect(await localSubstrate.list()).toEqual([]);
  });
});

describe('waiting on a host', () => {
  it('a host that drops mid-wait ends the wait host-unreachable (120); waiting again once it is back gives the answer', async () => {
    await fleet.spawn({ name: 'w', provider: 'mock', cwd: work, host: 'gpu' });
    const { turn } = await fleet.send({ name: 'w', prompt: 'DELAY 1500 ECHO after the drop' });
    const waiting = fleet.wait({ name: 'w', timeout: '30s' });
    // Drop the host once the wait is in flight there.
    while (!gpu.requests.some((r) => r.op === 'wait') || gpu.links.size === 0) await new Promise((r) => setTimeout(r, 5));
    gpu.drop('Connection reset by peer');
    const dropped = await waiting;
    expect(dropped).toMatchObject({ reason: 'host-unreachable', exitCode: 120, worker: 'w', turn, provider: 'mock' });
    expect(OUTCOME_EXIT_CODES['host-unreachable']).toBe(120);
    expect(dropped.message).toMatch(/Connection reset by peer.*wait again/);
    gpu.up();
    expect(await fleet.wait({ name: 'w', turn, timeout: '30s' })).toMatchObject({ reason: 'completed', result: 'after the drop' });
  });

  it('a cancelled remote wait is aborted here, and cancels the wait on the host', async () => {
    await fleet.spawn({ name: 'c', provider: 'mock', cwd: work, host: 'gpu' });
    await fleet.send({ name: 'c', prompt: 'DELAY 5000 ECHO slow' });
    const controller = new AbortController();
    const waiting = fleet.wait({ name: 'c', timeout: '30s' }, { signal: controller.signal });
    while (gpu.links.size === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    expect(await waiting).toMatchObject({ reason: 'aborted', exitCode: 130, worker: 'c' });
    expect(gpu.links.size).toBe(0);
  });
});

describe('events across the fleet', () => {
  const brief = (e: { worker: string; kind: string; turn?: number; host?: string }) => [e.worker, e.host ?? 'here', e.kind, ...(e.turn ? [e.turn] : [])];

  it("merges this machine's events and a host's into one order, each remote one naming its host", async () => {
    await fleet.spawn({ name: 'r1', provider: 'mock', cwd: work, host: 'gpu' });
    await fleet.spawn({ name: 'l1', provider: 'mock', cwd: work });
    await fleet.send({ name: 'r1', prompt: 'ECHO there' });
    await fleet.wait({ name: 'r1' });
    await fleet.send({ name: 'l1', prompt: 'ECHO here' });
    await fleet.wait({ name: 'l1' });
    const events = [];
    for await (const e of fleet.events()) events.push(e);
    expect(events.map(brief)).toEqual([
      ['r1', 'gpu', 'spawned'],
      ['r1', 'gpu', 'ready'],
      ['l1', 'here', 'spawned'],
      ['l1', 'here', 'ready'],
      ['r1', 'gpu', 'sent', 1],
      ['r1', 'gpu', 'ended', 1],
      ['l1', 'here', 'sent', 1],
      ['l1', 'here', 'ended', 1],
    ]);
    const only = [];
    for await (const e of fleet.events({ names: ['r1'], since: events[4]?.cursor })) only.push(e);
    expect(only.map(brief)).toEqual([['r1', 'gpu', 'ended', 1]]);
  });

  it('follow: a host’s new events as they are written; a host that goes away and comes back says so', async () => {
    await fleet.spawn({ name: 'r1', provider: 'mock', cwd: work, host: 'gpu' });
    const stop = new AbortController();
    const seen: string[][] = [];
    const following = (async () => {
      for await (const e of fleet.events({ follow: true }, { signal: stop.signal })) {
        seen.push(brief(e).map(String));
        if (e.kind === 'ready') gpu.drop('ssh: connection reset');
        if (e.kind === 'host-unreachable') {
          gpu.up();
          await fleet.send({ name: 'r1', prompt: 'ECHO again' });
        }
        if (e.kind === 'sent') break; // ends the host's long poll too
      }
    })();
    await following;
    expect(seen).toEqual([
      ['r1', 'gpu', 'spawned'],
      ['r1', 'gpu', 'ready'],
      ['r1', 'gpu', 'host-unreachable'],
      ['r1', 'gpu', 'host-back'],
      ['r1', 'gpu', 'sent', '1'],
    ]);
  });
});
