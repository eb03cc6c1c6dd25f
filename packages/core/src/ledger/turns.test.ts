import { describe, expect, it } from 'vitest';
import type { LedgerEvent } from './ledger-types.js';
import { ledgerEvents } from './ledger.js';
import { assignTurns } from './turns.js';

const ev = (at: number, kind: string, payload: unknown = {}) => ({ at: BigInt(at), kind, payload, file: `${at}-1-${kind}.json` });
const turnsOf = (raws: ReturnType<typeof ev>[]) => assignTurns(ledgerEvents(undefined, '/events', raws, []));

describe('turn assignment', () => {
  it("is FIFO: a queued prompt does not steal the running turn's stop", () => {
    const turns = turnsOf([
      ev(1, 'session'),
      ev(2, 'sent', { turn: 1, prompt: 'a' }),
      ev(3, 'prompt'),
      ev(4, 'sent', { turn: 2, prompt: 'b' }),
      ev(5, 'prompt'),
      ev(6, 'stop'),
      ev(7, 'stop'),
    ]);
    expect(turns.map((t) => [t.turn, t.accepted?.at, t.end?.at])).toEqual([
      [1, 3n, 6n],
      [2, 5n, 7n],
    ]);
  });

  it('ignores stops of turns umbel did not send, and keeps input events with the running turn', () => {
    const turns = turnsOf([ev(1, 'stop'), ev(2, 'sent', { turn: 1, prompt: 'a' }), ev(3, 'permission'), ev(4, 'exit', { status: 0 })]);
    expect(turns[0]?.end).toBeUndefined();
    expect(turns[0]?.inputs).toHaveLength(1);
    expect(turns[0]?.pendingInput?.at).toBe(3n);
  });

  it("an 'ended' event closes its turn even when written after the next turn's stop", () => {
    const turns = turnsOf([
      ev(1, 'sent', { turn: 1, prompt: 'a' }),
      ev(2, 'prompt'),
      ev(3, 'sent', { turn: 2, prompt: 'b' }),
      ev(4, 'prompt'),
      ev(5, 'stop'),
      ev(6, 'ended', { turn: 1, reason: 'interrupted' }),
    ]);
    expect(turns.map((t) => [t.turn, t.end?.kind])).toEqual([
      [1, 'ended'],
      [2, 'stop'],
    ]);
  });

  it('a turn closed as not submitted takes no event: the next turn gets its own prompt and stop', () => {
    const turns = turnsOf([
      ev(1, 'sent', { turn: 1, prompt: 'never' }),
      ev(2, 'send-failed', { turn: 1, reason: 'not-submitted' }),
      ev(3, 'sent', { turn: 2, prompt: 'b' }),
      ev(4, 'prompt'),
      ev(5, 'stop'),
    ]);
    expect(turns.map((t) => [t.turn, t.notSubmitted?.reason, t.accepted?.at, t.end?.at])).toEqual([
      [1, 'not-submitted', undefined, undefined],
      [2, undefined, 4n, 5n],
    ]);
  });

  it('a pending input counts as answered once keys were pressed, a tool ran or a prompt was accepted after it', () => {
    for (const answer of ['keys', 'tool', 'prompt']) {
      const payload = answer === 'keys' ? { keys: ['1'] } : {};
      const turns = turnsOf([ev(1, 'sent', { turn: 1, prompt: 'a' }), ev(2, 'prompt'), ev(3, 'permission'), ev(4, answer, payload)]);
      expect(turns[0]?.pendingInput, answer).toBeUndefined();
    }
  });

  describe('a permission notification after its request was answered re-announces it (Claude Code fires it ~6 s after the dialog, even when the answer raced it)', () => {
    type Need = { kind: 'permission' | 'question' };
    const hook = (at: number, kind: string, needsInput?: Need) =>
      ({ ...ledgerEvents(undefined, '/events', [ev(at, kind)], [])[0], info: needsInput ? { needsInput } : {} }) as LedgerEvent;
    const own = (at: number, kind: string, payload: unknown) => ledgerEvents(undefined, '/events', [ev(at, kind, payload)], [])[0] as LedgerEvent;
    const asked = [own(1, 'sent', { turn: 1, prompt: 'a' }), hook(2, 'prompt'), hook(3, 'permission', { kind: 'permission' })];

    it('is not pending when it lands after the keys that answered the request', () => {
      const turns = assignTurns([...asked, own(4, 'keys', { keys: ['Enter'] }), hook(5, 'notify', { kind: 'permission' })]);
      expect(turns[0]?.inputs).toHaveLength(2);
      expect(turns[0]?.pendingInput).toBeUndefined();
    });

    it('is pending while the request is unanswered, and a new request after the answer is pending again', () => {
      expect(assignTurns([...asked, hook(4, 'notify', { kind: 'permission' })])[0]?.pendingInput?.at).toBe(4n);
      const again = [...asked, own(4, 'keys', { keys: ['Enter'] }), hook(5, 'tool'), hook(6, 'permission', { kind: 'permission' })];
      expect(assignTurns([...again, hook(7, 'notify', { kind: 'permission' })])[0]?.pendingInput?.at).toBe(7n);
    });

    it('another kind of notification after the answer is its own input', () => {
      const turns = assignTurns([...asked, own(4, 'keys', { keys: ['Enter'] }), hook(5, 'notify', { kind: 'question' })]);
      expect(turns[0]?.pendingInput?.at).toBe(5n);
    });

    it('a permission notification with no request before it (a CLI whose only signal it is) is pending', () => {
      const turns = assignTurns([own(1, 'sent', { turn: 1, prompt: 'a' }), hook(2, 'prompt'), hook(3, 'notify', { kind: 'permission' })]);
      expect(turns[0]?.pendingInput?.at).toBe(3n);
    });
  });
});

describe('a turn the CLI continues by itself (Claude Code at a plan limit reset)', () => {
  // hook events as a provider reads them: a key (prompt_id), the auto-continue mark on the notification
  type Info = { turnKey?: string; autoContinue?: true; account?: { kind: 'rate-limited' } };
  const hook = (at: number, kind: string, info: Info) => ({ ...ledgerEvents(undefined, '/events', [ev(at, kind)], [])[0], info }) as LedgerEvent;
  const own = (at: number, kind: string, payload: unknown) => ledgerEvents(undefined, '/events', [ev(at, kind, payload)], [])[0] as LedgerEvent;
  const limited = [
    own(1, 'sent', { turn: 1, prompt: 'a' }),
    hook(2, 'prompt', { turnKey: 'p1' }),
    hook(3, 'stop-failure', { turnKey: 'p1', account: { kind: 'rate-limited' } }),
  ];

  it('reopens the limited turn under the continuation key; its stop ends it; the next sent turn keeps its own', () => {
    const resumed = assignTurns([...limited, hook(4, 'notify', { turnKey: 'p1', autoContinue: true }), hook(5, 'prompt', { turnKey: 'c1' })]);
    expect(resumed.map((t) => [t.turn, t.end?.kind, t.turnKey, t.limitEnd?.kind])).toEqual([[1, undefined, 'c1', 'stop-failure']]);
    const turns = assignTurns([
      ...limited,
      hook(4, 'notify', { turnKey: 'p1', autoContinue: true }),
      hook(5, 'prompt', { turnKey: 'c1' }),
      own(6, 'sent', { turn: 2, prompt: 'b' }),
      hook(7, 'stop', { turnKey: 'c1' }),
      hook(8, 'prompt', { turnKey: 'p2' }),
      hook(9, 'stop', { turnKey: 'p2' }),
    ]);
    expect(turns.map((t) => [t.turn, t.end?.at, t.turnKey])).toEqual([
      [1, 7n, 'c1'],
      [2, 9n, 'p2'],
    ]);
  });

  it('a stop keyed to the other turn goes to it, not to the oldest open one', () => {
    const turns = assignTurns([
      ...limited,
      hook(4, 'notify', { autoContinue: true }),
      hook(5, 'prompt', { turnKey: 'c1' }),
      own(6, 'sent', { turn: 2, prompt: 'b' }),
      hook(7, 'prompt', { turnKey: 'p2' }),
      hook(8, 'stop', { turnKey: 'p2' }),
      hook(9, 'stop', { turnKey: 'c1' }),
    ]);
    expect(turns.map((t) => [t.turn, t.end?.at])).toEqual([
      [1, 9n],
      [2, 8n],
    ]);
  });

  // Two hook processes race under load: the auto-resume notification's may stamp its event after the
  // continuation's own prompt (seen in a fresh-clone run: wait kept reporting the limit after Claude's answer).
  it("the auto-resume notification's event landing after the continuation's prompt (or its stop) still reopens the limited turn", () => {
    const late = assignTurns([...limited, hook(5, 'prompt', { turnKey: 'c1' }), hook(6, 'notify', { autoContinue: true }), hook(7, 'stop', { turnKey: 'c1' })]);
    expect(late.map((t) => [t.turn, t.end?.at, t.turnKey, t.limitEnd?.kind])).toEqual([[1, 7n, 'c1', 'stop-failure']]);
    const later = assignTurns([
      ...limited,
      hook(5, 'prompt', { turnKey: 'c1' }),
      hook(6, 'stop', { turnKey: 'c1' }),
      hook(7, 'notify', { autoContinue: true }),
    ]);
    expect(later.map((t) => [t.turn, t.end?.at, t.turnKey])).toEqual([[1, 6n, 'c1']]);
  });

  it('a notification after a turn umbel sent and Claude answered is no continuation of it', () => {
    const turns = assignTurns([
      ...limited,
      own(4, 'sent', { turn: 2, prompt: 'b' }),
      hook(5, 'prompt', { turnKey: 'p2' }),
      hook(6, 'stop', { turnKey: 'p2' }),
      hook(7, 'notify', { autoContinue: true }),
    ]);
    expect(turns.map((t) => [t.turn, t.end?.at, t.turnKey])).toEqual([
      [1, 3n, 'p1'],
      [2, 6n, 'p2'],
    ]);
  });

  it('a continuation of no turn of umbel (the open turn was not limited) credits nothing', () => {
    const turns = assignTurns([
      own(1, 'sent', { turn: 1, prompt: 'a' }),
      hook(4, 'notify', { autoContinue: true }),
      hook(5, 'prompt', { turnKey: 'c1' }),
      hook(6, 'stop', { turnKey: 'c1' }),
    ]);
    expect(turns.map((t) => [t.turn, t.accepted, t.end])).toEqual([[1, undefined, undefined]]);
  });
});

describe("a turn a wait closed from the transcript alone, whose Stop hook lands after the next turn's send", () => {
  // Under load the CLI's Stop hook process may stamp its event after umbel sent the next prompt: the
  // wait had seen the answer in the transcript (umbel's `ended`), the caller sent again at once.
  const hook = (at: number, kind: string, turnKey?: string) =>
    ({ ...ledgerEvents(undefined, '/events', [ev(at, kind)], [])[0], info: turnKey ? { turnKey } : {} }) as LedgerEvent;
  const own = (at: number, kind: string, payload: unknown) => ledgerEvents(undefined, '/events', [ev(at, kind, payload)], [])[0] as LedgerEvent;
  const first = (key?: string) => [
    own(1, 'sent', { turn: 1, prompt: 'a' }),
    hook(2, 'prompt', key),
    own(4, 'ended', { turn: 1, reason: 'completed' }),
    own(5, 'sent', { turn: 2, prompt: 'b' }),
  ];

  it('keyed (prompt_id): the late Stop is its own turn’s, never the next one’s; the next turn takes its own prompt and stop', () => {
    const late = assignTurns([...first('p1'), hook(6, 'stop', 'p1')]);
    expect(late.map((t) => [t.turn, t.turnKey, t.end?.kind])).toEqual([
      [1, 'p1', 'ended'],
      [2, undefined, undefined],
    ]);
    const next = assignTurns([...first('p1'), hook(6, 'stop', 'p1'), hook(7, 'prompt', 'p2'), hook(8, 'stop', 'p2')]);
    expect(next.map((t) => [t.turn, t.accepted?.at, t.end?.at])).toEqual([
      [1, 2n, 4n],
      [2, 7n, 8n],
    ]);
  });

  it('unkeyed: a terminal event before the next turn was accepted is the ended turn’s late Stop', () => {
    const turns = assignTurns([...first(), hook(6, 'stop'), hook(7, 'prompt')]);
    expect(turns.map((t) => [t.turn, t.accepted?.at, t.end?.kind])).toEqual([
      [1, 2n, 'ended'],
      [2, 7n, undefined],
    ]);
    // its Stop came before the next send (nothing ran): the next turn's own Stop is the next turn's,
    // also from a CLI that never fires a prompt event
    const onTime = assignTurns([
      own(1, 'sent', { turn: 1, prompt: 'a' }),
      own(4, 'ended', { turn: 1, reason: 'completed' }),
      hook(5, 'stop'),
      own(6, 'sent', { turn: 2, prompt: 'b' }),
      hook(7, 'stop'),
    ]);
    expect(onTime.map((t) => [t.turn, t.end?.kind])).toEqual([
      [1, 'ended'],
      [2, 'stop'],
    ]);
    // one late Stop only: a second terminal before the prompt is the next turn's (a CLI that died at once, say)
    const twice = assignTurns([...first(), hook(6, 'stop'), hook(7, 'stop-failure')]);
    expect(twice.map((t) => [t.turn, t.end?.kind])).toEqual([
      [1, 'ended'],
      [2, 'stop-failure'],
    ]);
  });
});

describe('a turn the CLI starts by itself when background work ends (Claude Code’s <task-notification>)', () => {
  // hook events as a provider reads them: the self-started prompt is marked (`selfStarted`), every event keyed
  type Info = { turnKey?: string; selfStarted?: true };
  const hook = (at: number, kind: string, info: Info) => ({ ...ledgerEvents(undefined, '/events', [ev(at, kind)], [])[0], info }) as LedgerEvent;
  const own = (at: number, kind: string, payload: unknown) => ledgerEvents(undefined, '/events', [ev(at, kind, payload)], [])[0] as LedgerEvent;
  const first = [own(1, 'sent', { turn: 1, prompt: 'a' }), hook(2, 'prompt', { turnKey: 'p1' }), hook(3, 'stop', { turnKey: 'p1' })];

  it('sent while it runs, the next turn takes neither its prompt nor its stop', () => {
    const turns = assignTurns([
      ...first,
      hook(4, 'prompt', { turnKey: 'n1', selfStarted: true }),
      own(5, 'sent', { turn: 2, prompt: 'b' }),
      hook(6, 'stop', { turnKey: 'n1' }),
      hook(7, 'prompt', { turnKey: 'p2' }),
      hook(8, 'stop', { turnKey: 'p2' }),
    ]);
    expect(turns.map((t) => [t.turn, t.accepted?.at, t.end?.at, t.turnKey])).toEqual([
      [1, 2n, 3n, 'p1'],
      [2, 7n, 8n, 'p2'],
    ]);
  });

  it('sent just before it started (queued behind it), the next turn still waits for its own prompt and stop', () => {
    const turns = assignTurns([
      ...first,
      own(4, 'sent', { turn: 2, prompt: 'b' }),
      hook(5, 'prompt', { turnKey: 'n1', selfStarted: true }),
      hook(6, 'stop', { turnKey: 'n1' }),
      hook(7, 'prompt', { turnKey: 'p2' }),
    ]);
    expect(turns.map((t) => [t.turn, t.accepted?.at, t.end?.at])).toEqual([
      [1, 2n, 3n],
      [2, 7n, undefined],
    ]);
  });

  it("a queued prompt whose prompt event carries the self-started turn's key: that turn's stop still is not the queued turn's", () => {
    const turns = assignTurns([
      ...first,
      hook(4, 'prompt', { turnKey: 'n1', selfStarted: true }),
      own(5, 'sent', { turn: 2, prompt: 'b' }),
      hook(6, 'prompt', { turnKey: 'n1' }),
      hook(7, 'stop', { turnKey: 'n1' }),
      hook(8, 'stop', { turnKey: 'p2' }),
    ]);
    expect(turns.map((t) => [t.turn, t.accepted?.at, t.end?.at])).toEqual([
      [1, 2n, 3n],
      [2, 6n, 8n],
    ]);
  });
});

describe("a CLI that fires its prompt hook for every prompt it takes (`promptHook: 'every-prompt'`: Qwen Code)", () => {
  // Qwen Code's <task-notification> turn fires no prompt hook, only a bare Stop (BACKGROUND-FACTS.md §4);
  // a prompt typed meanwhile is queued and fires its prompt hook once that turn has ended
  const hook = (at: number, kind: string) => ledgerEvents(undefined, '/events', [ev(at, kind)], [])[0] as LedgerEvent;
  const own = (at: number, kind: string, payload: unknown) => ledgerEvents(undefined, '/events', [ev(at, kind, payload)], [])[0] as LedgerEvent;
  const first = [own(1, 'sent', { turn: 1, prompt: 'a' }), hook(2, 'prompt'), hook(3, 'stop')];
  const everyPrompt = { promptHook: 'every-prompt' } as const;

  it('a terminal event while the turn sent has no prompt event yet ends no turn: the turn takes its own prompt and stop', () => {
    for (const kind of ['stop', 'stop-failure']) {
      const events = [...first, own(4, 'sent', { turn: 2, prompt: 'b' }), hook(5, kind), hook(6, 'notify'), hook(7, 'prompt'), hook(8, 'stop')];
      expect(assignTurns(events, everyPrompt).map((t) => [t.turn, t.accepted?.at, t.end?.at])).toEqual([
        [1, 2n, 3n],
        [2, 7n, 8n],
      ]);
      // before its own prompt event came: still running, not ended by the CLI's own turn
      expect(assignTurns(events.slice(0, 6), everyPrompt).map((t) => [t.turn, t.accepted?.at, t.end?.at])).toEqual([
        [1, 2n, 3n],
        [2, undefined, undefined],
      ]);
    }
  });

  it('without the declaration a CLI may skip its prompt hook: the oldest open turn takes the terminal event', () => {
    const turns = assignTurns([...first, own(4, 'sent', { turn: 2, prompt: 'b' }), hook(5, 'stop')]);
    expect(turns.map((t) => [t.turn, t.end?.at])).toEqual([
      [1, 3n],
      [2, 5n],
    ]);
  });

  it('queued behind a running turn of its own: each turn still takes its own stop (FIFO)', () => {
    const turns = assignTurns(
      [
        own(1, 'sent', { turn: 1, prompt: 'a' }),
        hook(2, 'prompt'),
        own(3, 'sent', { turn: 2, prompt: 'b' }),
        hook(4, 'stop'),
        hook(5, 'prompt'),
        hook(6, 'stop'),
      ],
      everyPrompt,
    );
    expect(turns.map((t) => [t.turn, t.accepted?.at, t.end?.at])).toEqual([
      [1, 2n, 4n],
      [2, 5n, 6n],
    ]);
  });
});
