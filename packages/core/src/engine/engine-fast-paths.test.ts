// The engine's fast paths: a wait reacts to the turn's events without waiting on the terminal
// host's liveness probe, list() asks the host once for every worker, and an event file is read once.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUmbel } from './engine.js';
import { deathFacts } from '../ledger/death.js';
import { createEventStore } from '../ledger/event-store.js';
import { deathOf, ledgerEvents } from '../ledger/ledger.js';
import type { PaneState, Substrate } from '../contract/substrate.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
const env = { PATH: process.env.PATH };

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-fast-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-fast-work-'));
  substrate = createMemorySubstrate();
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

/** The substrate with `inspect` (and, optionally, `inspectAll`) counted, and `inspect` blockable. */
function instrumented(base: Substrate, { withInspectAll = true } = {}) {
  const counts = { inspect: 0, inspectAll: 0 };
  let blocked: Promise<void> | undefined;
  let release: () => void = () => undefined;
  const all = withInspectAll ? base.inspectAll?.bind(base) : undefined;
  const wrapped: Substrate = {
    ...base,
    async inspect(session) {
      counts.inspect++;
      if (blocked) await blocked;
      return base.inspect(session);
    },
    inspectAll: all
      ? async (): Promise<ReadonlyMap<string, PaneState>> => {
          counts.inspectAll++;
          return all();
        }
      : undefined,
  };
  return {
    substrate: wrapped,
    counts,
    block() {
      blocked = new Promise<void>((resolve) => {
        release = resolve;
      });
    },
    release: () => release(),
  };
}

describe('wait', () => {
  it('returns the completed turn while a liveness probe of the host is still unanswered', async () => {
    const probe = instrumented(substrate);
    const umbel = createUmbel({ substrate: probe.substrate, providers: [createMockProvider()], home, env });
    await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
    const { turn } = await umbel.send({ name: 'w1', prompt: 'DELAY 300 ECHO answered' });
    probe.block();
    try {
      const outcome = await umbel.wait({ name: 'w1', turn, timeout: '20s' });
      expect(outcome).toMatchObject({ reason: 'completed', result: 'answered' });
    } finally {
      probe.release();
    }
  });

  it('reports a worker whose exit was recorded as dead without asking the host for liveness first', async () => {
    const probe = instrumented(substrate);
    const umbel = createUmbel({ substrate: probe.substrate, providers: [createMockProvider()], home, env });
    await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
    const { turn } = await umbel.send({ name: 'w1', prompt: 'DELAY 300 DIE 3' });
    probe.block();
    try {
      const outcome = await umbel.wait({ name: 'w1', turn, timeout: '20s' });
      expect(outcome).toMatchObject({ reason: 'dead', exit: { status: 3 } });
    } finally {
      probe.release();
    }
  });
});

describe('read', () => {
  it('returns a section, the head or the tail of the answer, saying how much was left out', async () => {
    const umbel = createUmbel({ substrate, providers: [createMockProvider()], home, env });
    await umbel.spawn({ name: 'r1', provider: 'mock', cwd: work });
    const answer = ['# Report', 'intro', '## Findings', 'found it', '## Next', ...Array.from({ length: 40 }, (_, i) => `step ${i} ${'z'.repeat(30)}`)].join(
      '\n',
    );
    const { turn } = await umbel.send({ name: 'r1', prompt: `ECHO ${answer}` });
    expect(await umbel.wait({ name: 'r1', turn })).toMatchObject({ reason: 'completed', result: answer });
    expect(await umbel.read({ name: 'r1' })).toMatchObject({ result: answer, complete: true });
    expect((await umbel.read({ name: 'r1' })).elidedTokens).toBeUndefined();
    const findings = await umbel.read({ name: 'r1', section: '## Findings' });
    expect(findings.result).toBe('## Findings\nfound it');
    expect(findings.elidedTokens).toBeGreaterThan(0);
    expect((await umbel.read({ name: 'r1', section: 'Nope' })).result).toBe('');
    expect((await umbel.read({ name: 'r1', head: 4 })).result).toBe('# Report\nintro');
    expect((await umbel.read({ name: 'r1', tail: 10 })).result).toBe(`step 39 ${'z'.repeat(30)}`);
    const both = await umbel.read({ name: 'r1', head: 4, tail: 10 });
    expect(both.result).toMatch(/^# Report\nintro\n\.\.\. \[~\d+ tokens elided\] \.\.\.\nstep 39 z+$/);
    await expect(umbel.read({ name: 'r1', head: -1 })).rejects.toMatchObject({ code: 'UMBEL_USAGE' });
    await expect(umbel.read({ name: 'r1', section: '' })).rejects.toMatchObject({ code: 'UMBEL_USAGE' });
  });
});

describe('list', () => {
  it('asks the host once for every worker when it can, and agrees with status()', async () => {
    const probe = instrumented(substrate);
    const umbel = createUmbel({ substrate: probe.substrate, providers: [createMockProvider()], home, env });
    for (const name of ['a1', 'a2', 'a3']) await umbel.spawn({ name, provider: 'mock', cwd: work });
    await substrate.crash('umbel-a2', { status: 4 });
    probe.counts.inspect = 0;
    const listed = await umbel.list();
    expect(probe.counts).toEqual({ inspect: 0, inspectAll: 1 });
    expect(listed.map((w) => [w.name, w.alive])).toEqual([
      ['a1', true],
      ['a2', false],
      ['a3', true],
    ]);
    for (const w of listed) expect(w).toEqual(await umbel.status({ name: w.name }));
  });

  it('still works on a host without inspectAll', async () => {
    const probe = instrumented(substrate, { withInspectAll: false });
    const umbel = createUmbel({ substrate: probe.substrate, providers: [createMockProvider()], home, env });
    for (const name of ['b1', 'b2']) await umbel.spawn({ name, provider: 'mock', cwd: work });
    await substrate.crash('umbel-b1', { signal: 'SIGKILL' });
    const listed = await umbel.list();
    expect(listed.map((w) => [w.name, w.alive, w.exit?.signal])).toEqual([
      ['b1', false, 'SIGKILL'],
      ['b2', true, undefined],
    ]);
  });
});

describe('events', () => {
  it('reads an event file once (event files never change once written) and drops removed ones', async () => {
    const dir = join(home, 'events');
    await rm(dir, { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(dir, { recursive: true }));
    await writeFile(join(dir, '1764000000000000100-1-prompt.json'), '{"n":1}\n');
    await writeFile(join(dir, '1764000000000000200-1-stop.json'), '{"n":2}\n');
    const store = createEventStore();
    expect(store.read(dir).events.map((e) => e.payload)).toEqual([{ n: 1 }, { n: 2 }]);
    // A rewrite cannot happen in practice (files arrive by rename); it shows the first read is kept.
    await writeFile(join(dir, '1764000000000000100-1-prompt.json'), '{"n":"changed"}\n');
    await rm(join(dir, '1764000000000000200-1-stop.json'));
    await writeFile(join(dir, '1764000000000000300-1-stop.json'), '{"n":3}\n');
    expect(store.read(dir).events.map((e) => e.payload)).toEqual([{ n: 1 }, { n: 3 }]);
    expect(await readdir(dir)).toHaveLength(2);
  });

  it('types an event once: the provider reads a hook file once, and a later load hands out the same objects', async () => {
    const dir = join(home, 'typed');
    await rm(dir, { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(dir, { recursive: true }));
    await writeFile(join(dir, '1764000000000000100-1-sent.json'), '{"turn":1,"prompt":"hi"}\n');
    await writeFile(join(dir, '1764000000000000200-1-stop.json'), '{"n":2}\n');
    const base = createMockProvider();
    let reads = 0;
    const provider = {
      ...base,
      doParseEvent: (e: Parameters<typeof base.doParseEvent>[0]) => {
        reads += 1;
        return base.doParseEvent(e);
      },
    };
    const [store, typed] = [createEventStore(), new WeakMap()];
    const first = ledgerEvents(provider, dir, store.read(dir).events, [], typed);
    await writeFile(join(dir, '1764000000000000300-1-stop.json'), '{"n":3}\n');
    const second = ledgerEvents(provider, dir, store.read(dir).events, [], typed);
    expect(reads).toBe(2);
    expect(second).toHaveLength(3);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).toBe(first[1]);
  });

  it('tells how a worker died: its exit record first, then the host, and a kill by umbel', () => {
    const ev = (kind: string, payload: unknown, at = 1n) => ({ file: `${at}-1-${kind}.json`, at, kind, payload });
    const interpretEvents = (raws: ReturnType<typeof ev>[]) => ({ death: deathOf(ledgerEvents(undefined, '/x', raws, [])) });
    const gone = { exists: false, dead: true };
    const held = { exists: true, dead: true, exitStatus: 1 };
    expect(deathFacts(interpretEvents([ev('exit', { signal: 'SIGKILL' })]), held)).toEqual({ signal: 'SIGKILL', byKill: false, cause: 'killed by SIGKILL' });
    expect(deathFacts(interpretEvents([ev('exit', { status: 3 })]), { exists: true, dead: true, signal: 'SIGHUP' })).toEqual({
      status: 3,
      byKill: false,
      cause: 'process exited 3',
    });
    expect(deathFacts(interpretEvents([]), held)).toEqual({ status: 1, byKill: false, cause: 'process exited 1' });
    expect(deathFacts(interpretEvents([]), { exists: true, dead: true })).toMatchObject({ cause: 'process exited, no status recorded' });
    expect(deathFacts(interpretEvents([]), gone)).toMatchObject({ cause: 'its session is gone' });
    expect(deathFacts(interpretEvents([ev('exit', { status: 143 }), ev('dead', { by: 'kill' }, 2n)]), gone)).toMatchObject({
      status: 143,
      byKill: true,
      cause: 'killed by umbel kill',
    });
  });
});
