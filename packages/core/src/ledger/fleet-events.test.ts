import type { Provider } from '@umbel/provider';
import { describe, expect, it } from 'vitest';
import { mergeEvents, parseSince, workerEvents } from './fleet-events.js';
import type { WorkerView } from './ledger-types.js';
import { deathOf, ledgerEvents, lifeOf } from './ledger.js';
import { assignTurns } from './turns.js';

const T0 = 1_780_000_000_000_000_000n;
const CREATED = new Date(Number(T0 / 1_000_000n)).toISOString();
const ev = (at: number, kind: string, payload: unknown = {}) => ({ at: T0 + BigInt(at), kind, payload, file: `${T0 + BigInt(at)}-1-${kind}.json` });

/** Reads hook payloads as they are: `{ needsInput }`, `{ error, account }` pass through. */
const provider = { providerId: 'fake', doParseEvent: ({ payload }: { payload: unknown }) => payload ?? {} } as unknown as Provider;

function view(name: string, raws: ReturnType<typeof ev>[]): WorkerView {
  const events = ledgerEvents(provider, `/${name}/events`, raws, []);
  const ready = events.find((e) => e.own?.kind === 'ready');
  return {
    name,
    shown: { provider: 'fake', cwd: '/', createdAt: CREATED, anonymous: false },
    events,
    turns: assignTurns(events),
    death: deathOf(events),
    ...(ready ? { readyAt: ready.at } : {}),
  } as unknown as WorkerView;
}

const brief = (events: ReturnType<typeof mergeEvents>) => events.map(({ event: e }) => [e.worker, e.kind, e.turn ?? e.reason ?? e.input ?? '']);

describe('fleet events from the ledger', () => {
  it("derive each worker's lifecycle: spawned, ready, sent, needs-input (once per request), ended with its reason, killed", () => {
    const a = view('a', [
      ev(10, 'ready', {}),
      ev(20, 'sent', { turn: 1, prompt: 'x' }),
      ev(21, 'prompt'),
      ev(22, 'permission', { needsInput: { kind: 'permission', tool: 'Bash' } }),
      ev(23, 'keys', { keys: ['1'] }),
      ev(24, 'notify', { needsInput: { kind: 'permission', message: 'Claude needs your permission' } }),
      ev(30, 'stop'),
      ev(40, 'sent', { turn: 2, prompt: 'y' }),
      ev(41, 'prompt'),
      ev(45, 'stop-failure', { error: 'limit', account: { kind: 'rate-limited' } }),
      ev(50, 'sent', { turn: 3, prompt: 'z' }),
      ev(51, 'send-failed', { turn: 3, reason: 'not-submitted', message: 'not confirmed' }),
      ev(60, 'dead', { by: 'kill' }),
      ev(61, 'exit', { signal: 'SIGTERM' }),
    ]);
    const events = mergeEvents([workerEvents(a)], undefined);
    expect(brief(events)).toEqual([
      ['a', 'spawned', ''],
      ['a', 'ready', ''],
      ['a', 'sent', 1],
      ['a', 'needs-input', 1],
      ['a', 'ended', 1],
      ['a', 'sent', 2],
      ['a', 'ended', 2],
      ['a', 'sent', 3],
      ['a', 'send-failed', 3],
      ['a', 'killed', ''],
    ]);
    const [, , , needs, first, , second] = events.map((e) => e.event);
    expect(needs).toMatchObject({ input: 'permission', tool: 'Bash' });
    expect(first).toMatchObject({ reason: 'completed', exitCode: 0 });
    expect(second).toMatchObject({ reason: 'rate-limited', exitCode: 118, message: 'limit' });
  });

  it('a turn the CLI started by itself (a selfStarted prompt) is its own event, self-started, between the turns umbel sent', () => {
    const a = view('a', [
      ev(10, 'ready', {}),
      ev(20, 'sent', { turn: 1, prompt: 'x' }),
      ev(21, 'prompt', { turnKey: 'p1' }),
      ev(30, 'stop', { turnKey: 'p1' }),
      ev(40, 'prompt', { turnKey: 'n1', selfStarted: true }),
      ev(45, 'stop', { turnKey: 'n1' }),
      ev(50, 'sent', { turn: 2, prompt: 'y' }),
    ]);
    expect(brief(mergeEvents([workerEvents(a)], undefined))).toEqual([
      ['a', 'spawned', ''],
      ['a', 'ready', ''],
      ['a', 'sent', 1],
      ['a', 'ended', 1],
      ['a', 'self-started', ''],
      ['a', 'sent', 2],
    ]);
  });

  it('a process that ended by itself is dead with its status; an interrupt ends a turn idle', () => {
    const b = view('b', [ev(1, 'sent', { turn: 1, prompt: 'x' }), ev(2, 'prompt'), ev(3, 'interrupt'), ev(4, 'exit', { status: 3 })]);
    expect(brief(mergeEvents([workerEvents(b)], undefined)).slice(1)).toEqual([
      ['b', 'sent', 1],
      ['b', 'ended', 1],
      ['b', 'dead', ''],
    ]);
    expect(workerEvents(b).find((e) => e.event.kind === 'ended')?.event).toMatchObject({ reason: 'idle', exitCode: 123 });
    expect(workerEvents(b).at(-1)?.event).toMatchObject({ kind: 'dead', status: 3 });
  });

  it('merge the fleet in time order (worker, then kind, on a tie) and continue after a cursor', () => {
    const a = view('a', [ev(5, 'sent', { turn: 1, prompt: 'x' }), ev(9, 'stop')]);
    const b = view('b', [ev(5, 'sent', { turn: 1, prompt: 'x' }), ev(7, 'stop')]);
    const all = mergeEvents([workerEvents(b), workerEvents(a)], undefined);
    expect(brief(all)).toEqual([
      ['a', 'spawned', ''],
      ['b', 'spawned', ''],
      ['a', 'sent', 1],
      ['b', 'sent', 1],
      ['b', 'ended', 1],
      ['a', 'ended', 1],
    ]);
    const cursor = all[3]?.event.cursor as string;
    const rest = mergeEvents([workerEvents(a), workerEvents(b)], parseSince(cursor, 0));
    expect(brief(rest)).toEqual([
      ['b', 'ended', 1],
      ['a', 'ended', 1],
    ]);
  });

  it('since: an ISO time (inclusive) or a duration back from now; anything else is not a start point', () => {
    const a = view('a', [ev(5_000_000, 'sent', { turn: 1, prompt: 'x' }), ev(9_000_000, 'stop')]);
    const at = new Date(Number((T0 + 5_000_000n) / 1_000_000n)).toISOString();
    expect(brief(mergeEvents([workerEvents(a)], parseSince(at, 0)))).toEqual([
      ['a', 'sent', 1],
      ['a', 'ended', 1],
    ]);
    const nowMs = Number(T0 / 1_000_000n) + 10;
    expect(brief(mergeEvents([workerEvents(a)], parseSince('2ms', nowMs)))).toEqual([['a', 'ended', 1]]);
    expect(parseSince('yesterday', nowMs)).toBeUndefined();
  });
});

describe('workerEvents across a revive', () => {
  it('keeps the first life (its ready and death), then revived, the new ready and the dead turn as ended dead', () => {
    const ev = (at: number, kind: string, payload: unknown = {}) => ({ at: BigInt(at), kind, payload, file: `${at}-1-${kind}.json` });
    const events = ledgerEvents(
      undefined,
      '/revive-events',
      [
        ev(2_000, 'ready', {}),
        ev(3_000, 'sent', { turn: 1, prompt: 'a' }),
        ev(4_000, 'exit', { signal: 'SIGKILL' }),
        ev(5_000, 'ended', { turn: 1, reason: 'dead', message: 'died' }),
        ev(6_000, 'revived', { sessionId: 's' }),
        ev(7_000, 'ready', {}),
      ],
      [],
    );
    const view = {
      name: 'w',
      shown: { provider: 'mock', createdAt: new Date(0).toISOString() },
      events,
      turns: assignTurns(events),
      death: deathOf(events),
      ...lifeOf(events),
    } as unknown as Parameters<typeof workerEvents>[0];
    expect(workerEvents(view).map((s) => [s.event.kind, s.ns])).toEqual([
      ['ready', 2_000n],
      ['sent', 3_000n],
      ['dead', 4_000n],
      ['ended', 5_000n],
      ['revived', 6_000n],
      ['ready', 7_000n],
    ]);
  });
});
