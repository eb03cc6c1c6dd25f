// The ledger across a revive (issue 33): a `revived` own event is the boundary between the dead
// process and the new one. The death, the ready time and the session announcement are the current
// life's; turns keep their numbers and ends; the turn that was running when the CLI died stays dead
// (closed by an `ended` record revive writes), so the new process's stop never ends it.
import { describe, expect, it } from 'vitest';
import { deathOf, ledgerEvents, lifeOf } from './ledger.js';
import { assignTurns, nextTurnNumber } from './turns.js';

const ev = (at: number, kind: string, payload: unknown = {}) => ({ at: BigInt(at), kind, payload, file: `${at}-1-${kind}.json` });
const typed = (raws: ReturnType<typeof ev>[]) => ledgerEvents(undefined, '/events', raws, []);

const firstLife = [
  ev(1, 'session'),
  ev(2, 'ready', {}),
  ev(3, 'sent', { turn: 1, prompt: 'a' }),
  ev(4, 'prompt'),
  ev(5, 'stop'),
  ev(6, 'sent', { turn: 2, prompt: 'b' }),
  ev(7, 'prompt'),
  ev(8, 'exit', { signal: 'SIGKILL' }),
  ev(9, 'dead', { by: 'wait', signal: 'SIGKILL' }),
];
const revive = [ev(10, 'ended', { turn: 2, reason: 'dead', message: 'died' }), ev(11, 'revived', { sessionId: 's1' })];

describe('the ledger across a revive', () => {
  it('before the revive: dead, with its ready and session of the first life', () => {
    const events = typed(firstLife);
    expect(deathOf(events).exit?.signal).toBe('SIGKILL');
    expect(lifeOf(events)).toMatchObject({ readyAt: 2n, sessionSeen: true });
    expect(lifeOf(events).revivedAt).toBeUndefined();
  });

  it('after the revive: no death, not ready and no session until the new process announces them', () => {
    const events = typed([...firstLife, ...revive]);
    expect(deathOf(events)).toEqual({});
    expect(lifeOf(events)).toEqual({ revivedAt: 11n, sessionSeen: false });
    const later = typed([...firstLife, ...revive, ev(12, 'session'), ev(13, 'ready', {})]);
    expect(lifeOf(later)).toEqual({ revivedAt: 11n, readyAt: 13n, sessionSeen: true });
  });

  it('a death of the new process counts again', () => {
    const events = typed([...firstLife, ...revive, ev(12, 'session'), ev(13, 'ready', {}), ev(14, 'exit', { status: 1 })]);
    expect(deathOf(events).exit).toEqual({ status: 1, at: 14n });
  });

  it("turn numbers continue, the dead turn stays dead, and the new process's stop ends the new turn", () => {
    const events = typed([
      ...firstLife,
      ...revive,
      ev(12, 'session'),
      ev(13, 'ready', {}),
      ev(14, 'sent', { turn: 3, prompt: 'c' }),
      ev(15, 'prompt'),
      ev(16, 'stop'),
    ]);
    const turns = assignTurns(events);
    expect(nextTurnNumber(turns)).toBe(4);
    expect(turns.map((t) => [t.turn, t.end?.kind, t.end?.at])).toEqual([
      [1, 'stop', 5n],
      [2, 'ended', 10n],
      [3, 'stop', 16n],
    ]);
    expect(turns[1]?.end?.own).toEqual({ kind: 'ended', data: { turn: 2, reason: 'dead', message: 'died' } });
  });
});
