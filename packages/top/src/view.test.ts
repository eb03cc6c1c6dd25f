import type { WorkerStatus } from '@umbel/core';
import { describe, expect, it } from 'vitest';
import { applyAnswer, applyStatuses, initialState, moveSelection } from './model.js';
import { clip, frame } from './view.js';

const status = (name: string, extra: Partial<WorkerStatus> = {}): WorkerStatus => ({
  name,
  provider: 'claude',
  state: 'ready',
  alive: true,
  cwd: '/w',
  createdAt: '2026-01-01T00:00:00.000Z',
  lastActivityAt: '2026-01-01T00:00:00.000Z',
  turn: 1,
  completedTurn: 1,
  anonymous: false,
  billing: 'subscription',
  ...extra,
});

const NOW = Date.parse('2026-01-01T00:00:42.000Z');
const hundred = () =>
  applyStatuses(
    initialState,
    Array.from({ length: 100 }, (_, i) => status(`w${String(i).padStart(3, '0')}`)),
  );

/** Every line of a frame, as the view lays them out. */
const lines = (f: ReturnType<typeof frame>) => [f.header, f.columns, ...f.rows, f.detailTitle, ...f.detail, f.footer];

describe('the frame', () => {
  it('100 workers in 80×24: the lines fit, and the selected row stays in view', () => {
    const state = moveSelection(hundred(), 60);
    const f = frame({
      state,
      nowMs: NOW,
      width: 80,
      height: 24,
      screen: { name: 'w060', text: Array.from({ length: 50 }, (_, i) => `screen line ${i}`).join('\n') },
    });
    expect(f.rows.length + f.detailHeight + 4).toBeLessThanOrEqual(23);
    for (const l of lines(f)) expect(l.length).toBeLessThanOrEqual(80);
    expect(f.rows[f.selected]).toMatch(/^w060 /);
    expect(f.header).toMatch(/^umbel top {2}100 workers {2}\d+-\d+$/);
    // the detail pane shows the last lines of the selected worker's screen
    expect(f.detail.at(-1)).toBe('screen line 49');
    expect(f.detailTitle).toMatch(/^── w060 ─+$/);
  });

  it('a row: name, state, provider, turn, age, billing and the first line of the answer; host and quota only when some worker has one', () => {
    let state = applyAnswer(applyStatuses(initialState, [status('w1')]), 'w1', 1, 'the answer\nmore');
    let f = frame({ state, nowMs: NOW, width: 100, height: 24 });
    expect(f.columns).toMatch(/^NAME +STATE +PROVIDER TURN AGE +BILL LAST$/);
    expect(f.rows[0]).toMatch(/^w1 +ready +claude +1 +42s +plan the answer$/);
    state = applyStatuses(state, [status('w1', { host: 'gpu1', quota: { fiveHour: { usedPercent: 12 }, at: 'x' } })]);
    f = frame({ state, nowMs: NOW, width: 100, height: 24 });
    expect(f.columns).toMatch(/HOST +TURN .* QUOTA +LAST$/);
    expect(f.rows[0]).toMatch(/gpu1 .* 5h 12% +the answer$/);
  });

  it('the footer is the input line while one is open; the screen of another worker is not shown as the selected one’s', () => {
    const state = { ...hundred(), mode: { kind: 'prompt' as const, name: 'w000', text: 'ECHO hi' } };
    const f = frame({ state, nowMs: NOW, width: 80, height: 24, screen: { name: 'w001', text: 'other' } });
    expect(f.footer).toBe('send to w000> ECHO hi▏  (Enter send, Esc cancel)');
    expect(f.detail).toEqual([]);
    expect(f.detailTitle).toMatch(/^── w000 \(…\) ─+$/);
    expect(frame({ state: { ...state, mode: { kind: 'confirm-kill', name: 'w000' } }, nowMs: NOW, width: 80, height: 24 }).footer).toBe('kill w000? y/N');
  });

  it('clip cuts with an ellipsis, pads, and never lets a control character through', () => {
    expect(clip('abcdef', 4)).toBe('abc…');
    expect(clip('ab', 4)).toBe('ab  ');
    expect(clip('a\u001b[2Jb', 8)).toBe('a [2Jb  ');
  });
});
