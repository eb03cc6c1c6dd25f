// What the worker ledger guarantees (issue: the engine rebuilt around one typed worker ledger):
// a prompt that never got in never shifts later turns; bad state files are skipped and reported,
// never fatal for the fleet; a corrupt or foreign meta.json is never acted on; `starting` is real;
// a throwing provider becomes a typed error; `completed` always carries an answer.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUmbel } from '../engine/engine.js';
import { UmbelError } from '../contract/errors.js';
import type { ProviderV1 } from '@umbel/provider';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';
import type { Umbel } from '../contract/umbel.js';
import { closeFifoValves, plantFifo } from '../testing/__fixtures__/fifo.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
let umbel: Umbel;
const env = { PATH: process.env.PATH, HOME: '/nonexistent-home' };

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-ledger-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-ledger-work-'));
  substrate = createMemorySubstrate();
  umbel = createUmbel({ substrate, providers: [createMockProvider()], home, env, stopSettleMs: 300 });
});
afterEach(async () => {
  closeFifoValves();
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

async function failure(promise: Promise<unknown>): Promise<UmbelError> {
  try {
    await promise;
  } catch (error) {
    if (UmbelError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a typed error, got success');
}

const spawn = (name: string, extra: Record<string, unknown> = {}) => umbel.spawn({ name, provider: 'mock', cwd: work, ...extra });
const inputBox = async (name: string) => (await substrate.capture(`umbel-${name}`)).split('\n').at(-1);
const eventFiles = async (name: string) => (await import('node:fs/promises')).readdir(join(home, 'workers', name, 'events'));

describe('a prompt that never got in', () => {
  it('is refused before anything is typed when it is empty or only whitespace', async () => {
    await spawn('w1');
    for (const prompt of ['', '   ', ' \n\t ']) {
      expect((await failure(umbel.send({ name: 'w1', prompt }))).code).toBe('UMBEL_USAGE');
    }
    expect(await inputBox('w1')).toBe('mock> ');
    expect((await eventFiles('w1')).filter((f) => f.endsWith('-sent.json'))).toEqual([]);
  });

  it('closes its turn as not submitted: the next send gets its own turn and answer, and the input box is empty', async () => {
    // every Enter of the first send is swallowed (1 press + 2 retries, as many again while the box holds the prompt), the next ones work
    await spawn('w1', { env: { MOCK_CLI_DROP_ENTERS: '6' } });
    const refused = await failure(umbel.send({ name: 'w1', prompt: 'ECHO never' }));
    expect(refused.code).toBe('UMBEL_SEND_NOT_SUBMITTED');
    expect(await inputBox('w1')).toBe('mock> ');
    expect(await umbel.send({ name: 'w1', prompt: 'ECHO two' })).toMatchObject({ turn: 2 });
    expect(await umbel.wait({ name: 'w1', timeout: '10s' })).toMatchObject({ reason: 'completed', turn: 2, result: 'two' });
    expect(await umbel.send({ name: 'w1', prompt: 'ECHO three' })).toMatchObject({ turn: 3 });
    expect(await umbel.wait({ name: 'w1', turn: 3, timeout: '10s' })).toMatchObject({ reason: 'completed', result: 'three' });
    expect((await umbel.read({ name: 'w1', turn: 2 })).result).toBe('two');
    expect((await failure(umbel.read({ name: 'w1', turn: 1 }))).message).toContain('not submitted');
    expect((await failure(umbel.wait({ name: 'w1', turn: 1 }))).message).toContain('not submitted');
    expect(await umbel.status({ name: 'w1' })).toMatchObject({ state: 'ready', turn: 3, completedTurn: 3 });
  });
});

describe('bad state files', () => {
  it('a malformed event file is skipped and reported; the fleet and the rest of the history stay readable', async () => {
    await spawn('w1');
    await spawn('w2');
    await umbel.send({ name: 'w1', prompt: 'ECHO kept' });
    await umbel.wait({ name: 'w1' });
    const events = join(home, 'workers', 'w1', 'events');
    await writeFile(join(events, '99999999999999999999999999-1-stop.json'), '{}');
    await writeFile(join(events, '1764000000000000000-1-sent.json'), '{"turn":"x"}');
    const listing = await umbel.list();
    expect(listing.map((w) => w.name)).toEqual(['w1', 'w2']);
    const w1 = await umbel.status({ name: 'w1' });
    expect(w1).toMatchObject({ state: 'ready', turn: 1, completedTurn: 1 });
    expect(w1.problems?.map((p) => p.file)).toEqual(
      expect.arrayContaining([join(events, '99999999999999999999999999-1-stop.json'), join(events, '1764000000000000000-1-sent.json')]),
    );
    expect((await umbel.logs({ name: 'w1' })).length).toBeGreaterThan(0);
    expect((await umbel.read({ name: 'w1' })).result).toBe('kept');
    expect((await umbel.status({ name: 'w2' })).problems).toBeUndefined();
  });

  it.each([
    ['empty', ''],
    ['half-written', '{"version":1,"name":"w1",'],
    ['garbage', '\u0000\u0001garbage'],
    ['wrong schema', '{"version":1,"name":"w1"}'],
  ])('a %s meta.json lists the worker as corrupt; kill ends its session and prune removes it', async (_what, text) => {
    await spawn('w1');
    const metaPath = join(home, 'workers', 'w1', 'meta.json');
    await writeFile(metaPath, text);
    const listing = await umbel.list();
    expect(listing).toHaveLength(1);
    expect(listing[0]).toMatchObject({ name: 'w1', state: 'corrupt', corrupt: { path: metaPath } });
    expect(listing[0]?.corrupt?.reason.length).toBeGreaterThan(0);
    expect(await umbel.status({ name: 'w1' })).toMatchObject({ state: 'corrupt', alive: true });
    expect((await failure(umbel.send({ name: 'w1', prompt: 'ECHO x' }))).code).toBe('UMBEL_WORKER_CORRUPT');
    expect(await umbel.kill({ name: 'w1' })).toMatchObject({ killed: true });
    expect(await substrate.list()).toEqual([]);
    expect(await umbel.prune()).toMatchObject({ removed: ['w1'] });
  });

  it('a named pipe in events/ (the agent can mkfifo there) is a problem naming it, never a hang', async () => {
    await spawn('w1');
    await umbel.send({ name: 'w1', prompt: 'ECHO kept' });
    await umbel.wait({ name: 'w1' });
    const pipe = join(home, 'workers', 'w1', 'events', '1764000000000000000-1-stop.json');
    plantFifo(pipe);
    const w1 = await umbel.status({ name: 'w1' });
    expect(w1).toMatchObject({ state: 'ready', turn: 1, completedTurn: 1 });
    expect(w1.problems).toEqual(expect.arrayContaining([{ file: pipe, message: expect.stringContaining('named pipe') }]));
    expect((await umbel.read({ name: 'w1' })).result).toBe('kept');
    await umbel.send({ name: 'w1', prompt: 'ECHO next' });
    expect(await umbel.wait({ name: 'w1', timeout: '10s' })).toMatchObject({ reason: 'completed', turn: 2, result: 'next' });
  });

  it('a named pipe in place of meta.json makes the worker corrupt, naming it; kill and prune still work', async () => {
    await spawn('w1');
    const metaPath = join(home, 'workers', 'w1', 'meta.json');
    await rm(metaPath);
    plantFifo(metaPath);
    const listing = await umbel.list();
    expect(listing[0]).toMatchObject({ name: 'w1', state: 'corrupt', corrupt: { path: metaPath } });
    expect(listing[0]?.corrupt?.reason).toContain('named pipe');
    expect((await failure(umbel.send({ name: 'w1', prompt: 'ECHO x' }))).code).toBe('UMBEL_WORKER_CORRUPT');
    expect(await umbel.kill({ name: 'w1' })).toMatchObject({ killed: true });
    expect(await umbel.prune()).toMatchObject({ removed: ['w1'] });
  });

  it('a meta.json that names another worker or session is never acted on', async () => {
    await spawn('w1');
    await spawn('w2');
    await cp(join(home, 'workers', 'w2', 'meta.json'), join(home, 'workers', 'w1', 'meta.json'));
    expect(await umbel.status({ name: 'w1' })).toMatchObject({ state: 'corrupt' });
    expect((await failure(umbel.send({ name: 'w1', prompt: 'ECHO into the wrong pane' }))).code).toBe('UMBEL_WORKER_CORRUPT');
    expect(await inputBox('w2')).toBe('mock> ');
    await umbel.kill({ name: 'w1', purge: true });
    expect(await substrate.list()).toEqual(['umbel-w2']);
    expect(await umbel.status({ name: 'w2' })).toMatchObject({ state: 'ready', alive: true });
  });
});

describe('states', () => {
  it('starting is what another engine sees from the claim until the ready prompt', async () => {
    const other = createUmbel({ substrate, providers: [createMockProvider()], home, env });
    const pending = spawn('slow', { env: { MOCK_CLI_START_MS: '1500' } });
    let seen: string | undefined;
    for (let i = 0; i < 100 && seen === undefined; i++) {
      await new Promise((r) => setTimeout(r, 20));
      seen = (await other.list()).find((w) => w.name === 'slow')?.state;
    }
    expect(seen).toBe('starting');
    expect((await other.status({ name: 'slow' })).state).toBe('starting');
    expect((await pending).state).toBe('ready');
    expect((await other.status({ name: 'slow' })).state).toBe('ready');
  });
});

describe('answers', () => {
  it('a turn that stopped with no answer anywhere is unknown, never an empty completed', async () => {
    await spawn('w1');
    await umbel.send({ name: 'w1', prompt: 'MUTE' });
    const outcome = await umbel.wait({ name: 'w1', timeout: '10s' });
    expect(outcome).toMatchObject({ reason: 'unknown', exitCode: 121 });
    expect(outcome.result).toBeUndefined();
    expect(outcome.message).toContain('no final message');
  });

  it('a stop whose answer never reaches the transcript completes with the stop payload, and says so', async () => {
    await spawn('w1', { env: { MOCK_CLI_LATE_MS: '60000' } });
    await umbel.send({ name: 'w1', prompt: 'ECHO from the hook' });
    const outcome = await umbel.wait({ name: 'w1', timeout: '10s' });
    expect(outcome).toMatchObject({ reason: 'completed', result: 'from the hook' });
    expect(outcome.message).toContain('stop hook');
  });
});

describe('providers that throw', () => {
  function throwing(method: keyof ProviderV1): ProviderV1 {
    const base = createMockProvider();
    return {
      ...base,
      [method]: () => {
        throw new Error('boom in the provider');
      },
    } as ProviderV1;
  }

  it('a throwing transcript reader is a typed error naming the provider and the method', async () => {
    const engine = createUmbel({ substrate, providers: [throwing('doReadTurn')], home, env });
    await engine.spawn({ name: 'w1', provider: 'mock', cwd: work });
    await engine.send({ name: 'w1', prompt: 'ECHO hi' });
    const error = await failure(engine.wait({ name: 'w1', timeout: '10s' }));
    expect(error.code).toBe('UMBEL_PROVIDER_FAILED');
    expect(error.message).toContain("provider 'mock'");
    expect(error.message).toContain('doReadTurn');
    expect(error.message).toContain('boom in the provider');
  });

  it('a throwing event parser is reported as a problem, never a crash of status or list', async () => {
    await spawn('w1');
    await umbel.send({ name: 'w1', prompt: 'ECHO hi' });
    await umbel.wait({ name: 'w1' });
    const engine = createUmbel({ substrate, providers: [throwing('doParseEvent')], home, env });
    expect(await engine.list()).toHaveLength(1);
    const status = await engine.status({ name: 'w1' });
    expect(status.problems?.[0]?.message).toContain('doParseEvent');
  });

  it('a throwing launch builder fails the spawn with a typed error and leaves nothing behind', async () => {
    const engine = createUmbel({ substrate, providers: [throwing('doBuildLaunch')], home, env });
    const error = await failure(engine.spawn({ name: 'w1', provider: 'mock', cwd: work }));
    expect(error.code).toBe('UMBEL_PROVIDER_FAILED');
    expect(error.message).toContain('doBuildLaunch');
    expect(await engine.list()).toEqual([]);
  });
});

describe('waits and sends', () => {
  it('a wait whose worker state vanished says so (not a usage error)', async () => {
    await spawn('w1');
    await umbel.send({ name: 'w1', prompt: 'HANG' });
    const pending = failure(umbel.wait({ name: 'w1', timeout: '20s' }));
    await new Promise((r) => setTimeout(r, 200));
    await rm(join(home, 'workers', 'w1'), { recursive: true, force: true });
    const error = await pending;
    expect(error.code).toBe('UMBEL_WORKER_VANISHED');
    expect(error.message).toContain('removed');
  });

  it('concurrent sends to one worker get turns in the order they take its send lock, each with its own answer', async () => {
    await spawn('w1');
    const sends = await Promise.all(['ECHO one', 'ECHO two', 'ECHO three'].map((prompt) => umbel.send({ name: 'w1', prompt })));
    expect(sends.map((s) => s.turn).sort()).toEqual([1, 2, 3]);
    const logs = await umbel.logs({ name: 'w1' });
    const sentOrder = logs.filter((e) => e.kind === 'sent').map((e) => /"ECHO (\w+)"/.exec(e.summary)?.[1]);
    for (const [i, turn] of [1, 2, 3].entries()) {
      const outcome = await umbel.wait({ name: 'w1', turn, timeout: '10s' });
      expect(outcome).toMatchObject({ reason: 'completed', result: sentOrder[i] });
    }
  });

  it('a timeout longer than a timer can hold still waits (no 2^31 ms overflow)', async () => {
    await spawn('w1');
    await umbel.send({ name: 'w1', prompt: 'HANG' });
    const controller = new AbortController();
    const pending = umbel.wait({ name: 'w1', timeout: '600h' }, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 300));
    controller.abort();
    expect(await pending).toMatchObject({ reason: 'aborted' });
  });

  it('names are validated by every verb, so a path never reaches the state root', async () => {
    for (const run of [() => umbel.status({ name: '../../evil' }), () => umbel.logs({ name: '../evil' }), () => umbel.attachCommand({ name: 'a/b' })]) {
      expect((await failure(run())).code).toBe('UMBEL_USAGE');
    }
  });

  it('keys accepts key names only, and lists them when one is unknown', async () => {
    await spawn('w1');
    const error = await failure(umbel.keys({ name: 'w1', keys: ['NotAKey-Zz'] }));
    expect(error.code).toBe('UMBEL_USAGE');
    expect(error.message).toContain('Enter');
    expect(await inputBox('w1')).toBe('mock> ');
    expect(await umbel.keys({ name: 'w1', keys: ['Escape', 'C-c', 'y', '1', 'Up', 'S-Tab', 'F5'] })).toMatchObject({ worker: 'w1' });
  });

  it("state is private: dirs 0700, umbel's own files 0600, whatever the umask", async () => {
    const old = process.umask(0o022);
    try {
      await spawn('w1');
      await umbel.send({ name: 'w1', prompt: 'ECHO private' });
      await umbel.wait({ name: 'w1' });
    } finally {
      process.umask(old);
    }
    const { stat, readdir } = await import('node:fs/promises');
    const check = async (path: string): Promise<void> => {
      const info = await stat(path);
      if (info.isDirectory()) {
        expect((info.mode & 0o777).toString(8), path).toBe('700');
        for (const entry of await readdir(path)) await check(join(path, entry));
      } else if (!path.includes('/provider/')) {
        // (the CLI writes what it writes under provider/ with its own umask: the 0700 dirs above it keep it private)
        expect((info.mode & 0o777).toString(8), path).toBe('600');
      }
    };
    await check(join(home, 'workers'));
    expect(((await stat(home)).mode & 0o777).toString(8)).toBe('700');
    expect(JSON.parse(await readFile(join(home, 'workers', 'w1', 'meta.json'), 'utf8')).name).toBe('w1');
  });
});
