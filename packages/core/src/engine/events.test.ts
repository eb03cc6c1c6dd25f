/** The event stream and the multi-wait, on the engine over the memory substrate and the mock CLI. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FleetEvent } from '../contract/schemas.js';
import type { Umbel } from '../contract/umbel.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';
import { waitMany, waitManyExitCode } from '../wait/wait-many.js';
import { createUmbel } from './engine.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
let umbel: Umbel;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-events-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-work-'));
  substrate = createMemorySubstrate();
  umbel = createUmbel({ substrate, providers: [createMockProvider()], home, env: { PATH: process.env.PATH } });
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

const spawn = (name: string) => umbel.spawn({ name, provider: 'mock', cwd: work });
const brief = (e: FleetEvent) => [e.worker, e.kind, ...(e.turn ? [e.turn] : []), ...(e.reason ? [e.reason] : [])];

async function collect(iterable: AsyncIterable<FleetEvent>): Promise<FleetEvent[]> {
  const out: FleetEvent[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

describe('events', () => {
  it("the fleet's lifecycle in one order, with exact turns; a cursor continues after its event", async () => {
    await spawn('a');
    await spawn('b');
    await umbel.send({ name: 'a', prompt: 'ECHO one' });
    await umbel.wait({ name: 'a' });
    await umbel.send({ name: 'b', prompt: 'ASK Bash' });
    await umbel.wait({ name: 'b' });
    await umbel.kill({ name: 'b' });
    const events = await collect(umbel.events());
    expect(events.map(brief)).toEqual([
      ['a', 'spawned'],
      ['a', 'ready'],
      ['b', 'spawned'],
      ['b', 'ready'],
      ['a', 'sent', 1],
      ['a', 'ended', 1, 'completed'],
      ['b', 'sent', 1],
      ['b', 'needs-input', 1],
      ['b', 'killed'],
    ]);
    expect(events[7]).toMatchObject({ input: 'permission', provider: 'mock' });
    expect((await collect(umbel.events({ names: ['a'], since: events[4]?.cursor }))).map(brief)).toEqual([['a', 'ended', 1, 'completed']]);
    expect((await collect(umbel.events({ limit: 2 }))).map(brief)).toEqual([
      ['a', 'spawned'],
      ['a', 'ready'],
    ]);
  });

  it('refuses a since that is no start point and an unknown worker (without follow)', async () => {
    await expect(collect(umbel.events({ since: 'yesterday' }))).rejects.toMatchObject({ code: 'UMBEL_USAGE' });
    await expect(collect(umbel.events({ names: ['ghost'] }))).rejects.toMatchObject({ code: 'UMBEL_WORKER_NOT_FOUND' });
  });

  it('follow: new events as they are written, also of a worker spawned later; cancelling ends the stream', async () => {
    const controller = new AbortController();
    const seen: FleetEvent[] = [];
    const done = (async () => {
      for await (const e of umbel.events({ follow: true }, { signal: controller.signal })) {
        seen.push(e);
        if (e.kind === 'ended') controller.abort();
      }
    })();
    await spawn('late');
    await umbel.send({ name: 'late', prompt: 'ECHO hi' });
    await done;
    expect(seen.map(brief)).toEqual([
      ['late', 'spawned'],
      ['late', 'ready'],
      ['late', 'sent', 1],
      ['late', 'ended', 1, 'completed'],
    ]);
  });

  it('follow: a worker purged and spawned again under its name is followed again', async () => {
    const controller = new AbortController();
    const seen: FleetEvent[] = [];
    let sent = 0;
    const done = (async () => {
      for await (const e of umbel.events({ follow: true }, { signal: controller.signal })) {
        seen.push(e);
        if (e.kind === 'sent' && ++sent === 2) controller.abort();
      }
    })();
    await spawn('again');
    await umbel.send({ name: 'again', prompt: 'ECHO one' });
    await umbel.wait({ name: 'again' });
    await umbel.kill({ name: 'again', purge: true });
    await spawn('again');
    await umbel.send({ name: 'again', prompt: 'ECHO two' });
    await done;
    expect(seen.filter((e) => e.kind === 'sent').map((e) => e.turn)).toEqual([1, 1]);
  });
});

describe('wait on several workers', () => {
  const wait = (options: Parameters<Umbel['wait']>[0], context: Parameters<Umbel['wait']>[1]) => umbel.wait(options, context);

  it('all: one outcome per worker, in the order they ended; a dead one gives the exit code', async () => {
    for (const name of ['a', 'b', 'c']) await spawn(name);
    // the order is made by gates the test opens, not by delays a loaded machine can reorder
    await umbel.send({ name: 'a', prompt: `GATE ${join(work, 'go-a')} ECHO slow` });
    await umbel.send({ name: 'b', prompt: 'ECHO fast' });
    await umbel.send({ name: 'c', prompt: `GATE ${join(work, 'go-c')} DIE 3` });
    const all = waitMany(wait, { names: ['a', 'b', 'c'], timeout: '20s' });
    expect(await umbel.wait({ name: 'b' })).toMatchObject({ reason: 'completed' });
    await writeFile(join(work, 'go-c'), '');
    expect(await umbel.wait({ name: 'c' })).toMatchObject({ reason: 'dead' });
    await writeFile(join(work, 'go-a'), '');
    const outcomes = await all;
    expect(outcomes.map((o) => [o.worker, o.reason])).toEqual([
      ['b', 'completed'],
      ['c', 'dead'],
      ['a', 'completed'],
    ]);
    expect(waitManyExitCode(outcomes)).toBe(125);
  });

  it('any: the first finisher only; the others keep running and answer later', async () => {
    for (const name of ['a', 'b']) await spawn(name);
    await umbel.send({ name: 'a', prompt: `GATE ${join(work, 'go-a')} ECHO later` });
    await umbel.send({ name: 'b', prompt: 'ECHO first' });
    const outcomes = await waitMany(wait, { names: ['a', 'b'], mode: 'any' });
    expect(outcomes.map((o) => [o.worker, o.result])).toEqual([['b', 'first']]);
    expect(waitManyExitCode(outcomes)).toBe(0);
    await writeFile(join(work, 'go-a'), '');
    expect(await umbel.wait({ name: 'a' })).toMatchObject({ reason: 'completed', result: 'later' });
  });

  it('refuses a name given twice, and an unknown worker fails the call', async () => {
    await spawn('a');
    await umbel.send({ name: 'a', prompt: 'DELAY 2000 ECHO slow' });
    await expect(waitMany(wait, { names: ['a', 'a'] })).rejects.toMatchObject({ code: 'UMBEL_USAGE' });
    await expect(waitMany(wait, { names: ['a', 'ghost'], timeout: '5s' })).rejects.toMatchObject({ code: 'UMBEL_WORKER_NOT_FOUND' });
  });
});
