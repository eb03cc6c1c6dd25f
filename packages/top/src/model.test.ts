import type { FleetEvent, WorkerStatus } from '@umbel/core';
import { describe, expect, it } from 'vitest';
import {
  applyAnswer,
  applyEvent,
  applyStatus,
  applyStatuses,
  firstLine,
  formatAge,
  formatQuota,
  initialState,
  moveSelection,
  type TopState,
  visibleRows,
  windowOf,
} from './model.js';

const status = (name: string, extra: Partial<WorkerStatus> = {}): WorkerStatus => ({
  name,
  provider: 'claude',
  state: 'ready',
  alive: true,
  cwd: '/w',
  createdAt: '2026-01-01T00:00:00.000Z',
  turn: 0,
  completedTurn: 0,
  anonymous: false,
  billing: 'subscription',
  ...extra,
});

let n = 0;
const event = (worker: string, kind: FleetEvent['kind'], extra: Partial<FleetEvent> = {}): FleetEvent => ({
  cursor: `${++n}.${worker}.0`,
  at: `2026-01-01T00:00:${String(n % 60).padStart(2, '0')}.000Z`,
  kind,
  worker,
  provider: 'claude',
  ...extra,
});

describe('the rows', () => {
  it('come from the statuses, sorted by name, with the first worker selected', () => {
    const s = applyStatuses(initialState, [status('b'), status('a', { host: 'gpu1', quota: { fiveHour: { usedPercent: 41.6 }, at: 'x' } })]);
    expect(s.rows.map((r) => r.name)).toEqual(['a', 'b']);
    expect(s.rows[0]).toMatchObject({ host: 'gpu1', quota: '5h 42%', billing: 'subscription' });
    expect(s.selected).toBe('a');
  });

  it('follow the events: sent is busy with its turn, needs-input says what is asked, ended keeps the answer read', () => {
    let s = applyStatuses(initialState, [status('w')]);
    s = applyEvent(s, event('w', 'sent', { turn: 1 }));
    expect(s.rows[0]).toMatchObject({ state: 'busy', turn: 1, line: '' });
    s = applyEvent(s, event('w', 'needs-input', { turn: 1, input: 'permission', tool: 'Bash', message: 'run ls?\nmore' }));
    expect(s.rows[0]).toMatchObject({ state: 'needs-input', line: 'asks permission Bash: run ls?', asking: 'asks permission Bash: run ls?' });
    const named = applyEvent(s, event('w', 'needs-input', { turn: 1, input: 'permission', tool: 'Bash', message: 'Bash: touch x' }));
    expect(named.rows[0]?.line).toBe('asks permission Bash: touch x');
    s = applyEvent(s, event('w', 'ended', { turn: 1, reason: 'completed', exitCode: 0 }));
    expect(s.rows[0]).toMatchObject({ state: 'ready', line: '' });
    expect(s.rows[0]?.asking).toBeUndefined();
    s = applyAnswer(s, 'w', 1, '\n  the answer  \nsecond line');
    expect(s.rows[0]?.line).toBe('the answer');
    // an answer of an older turn never replaces the line of a newer one
    s = applyEvent(s, event('w', 'sent', { turn: 2 }));
    expect(applyAnswer(s, 'w', 1, 'old').rows[0]?.line).toBe('');
  });

  it('a failed turn shows its reason; an unknown worker gets a row from its first event', () => {
    let s = applyEvent(initialState, event('new', 'spawned', { host: 'h' }));
    expect(s.rows[0]).toMatchObject({ name: 'new', state: 'starting', host: 'h' });
    s = applyEvent(s, event('new', 'ended', { turn: 1, reason: 'rate-limited', message: 'limit\nreached' }));
    expect(s.rows[0]?.line).toBe('rate-limited: limit');
  });

  it('a status keeps the answer line (a status has none), and an ended worker stays ended', () => {
    let s = applyAnswer(applyStatuses(initialState, [status('w', { turn: 1 })]), 'w', 1, 'hi');
    s = applyStatus(s, status('w', { turn: 1, lastActivityAt: '2026-01-01T00:01:00.000Z' }));
    expect(s.rows[0]).toMatchObject({ line: 'hi', lastActivityAt: '2026-01-01T00:01:00.000Z' });
    s = applyEvent(s, event('w', 'killed'));
    // kill records the death before the pane is gone: a status asked then still reads ready
    s = applyStatus(s, status('w', { turn: 1 }));
    expect(s.rows[0]?.state).toBe('killed');
    // the name spawned again starts over
    expect(applyEvent(s, event('w', 'spawned')).rows[0]?.state).toBe('starting');
  });

  it('a needs-input status says what is asked; answered, the line clears', () => {
    let s = applyStatuses(initialState, [status('w', { state: 'needs-input', needsInput: { kind: 'question', message: 'which?' } })]);
    expect(s.rows[0]).toMatchObject({ line: 'asks question: which?', asking: 'asks question: which?' });
    s = applyStatus(s, status('w', { state: 'busy' }));
    expect(s.rows[0]).toMatchObject({ line: '' });
    expect(s.rows[0]?.asking).toBeUndefined();
  });
});

describe('selection and filter', () => {
  const fleet = (): TopState =>
    applyStatuses(
      initialState,
      ['a1', 'a2', 'b1', 'b2'].map((x) => status(x, x.startsWith('b') ? { provider: 'codex' } : {})),
    );

  it('moves within the visible rows and stops at the ends', () => {
    let s = moveSelection(fleet(), 1);
    expect(s.selected).toBe('a2');
    s = moveSelection(s, 10);
    expect(s.selected).toBe('b2');
    expect(moveSelection(s, -99).selected).toBe('a1');
  });

  it('filters on name, provider, state or host; the selection moves into the filtered rows', () => {
    const s = { ...fleet(), filter: 'CODEX' };
    expect(visibleRows(s).map((r) => r.name)).toEqual(['b1', 'b2']);
    expect(moveSelection(s, 0).selected).toBe('b1');
    // while typing, the filter being typed applies
    expect(visibleRows({ ...fleet(), mode: { kind: 'filter', text: 'a2' } }).map((r) => r.name)).toEqual(['a2']);
  });

  it('keeps its worker when rows come and go', () => {
    let s = moveSelection(fleet(), 2);
    s = applyEvent(s, event('a0', 'spawned'));
    expect(s.selected).toBe('b1');
  });
});

describe('formatting', () => {
  it('ages, quotas and first lines', () => {
    const now = Date.parse('2026-01-01T01:00:00.000Z');
    expect(formatAge('2026-01-01T00:59:55.000Z', now)).toBe('5s');
    expect(formatAge('2026-01-01T00:30:00.000Z', now)).toBe('30m');
    expect(formatAge('2025-12-31T20:00:00.000Z', now)).toBe('5h');
    expect(formatAge('2025-12-29T00:00:00.000Z', now)).toBe('3d');
    expect(formatAge(undefined, now)).toBe('-');
    expect(formatQuota({ fiveHour: { usedPercent: 10 }, sevenDay: { usedPercent: 3.4 }, at: 'x' })).toBe('5h 10% 7d 3%');
    expect(formatQuota({ at: 'x' })).toBeUndefined();
    expect(firstLine('\n\n  x y \nz')).toBe('x y');
  });

  it('a window of rows keeps the selected one in view', () => {
    expect(windowOf(100, 0, 10)).toEqual({ start: 0, end: 10 });
    expect(windowOf(100, 50, 10)).toEqual({ start: 45, end: 55 });
    expect(windowOf(100, 99, 10)).toEqual({ start: 90, end: 100 });
    expect(windowOf(5, 4, 10)).toEqual({ start: 0, end: 5 });
  });
});
