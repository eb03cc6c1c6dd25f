import type { WorkerStatus } from '@umbel/core';
import { describe, expect, it } from 'vitest';
import { handleKey, type KeyInfo } from './keys.js';
import { applyEvent, applyStatuses, initialState, type TopState } from './model.js';

const status = (name: string, provider = 'claude'): WorkerStatus => ({
  name,
  provider,
  state: 'ready',
  alive: true,
  cwd: '/w',
  createdAt: '2026-01-01T00:00:00.000Z',
  turn: 0,
  completedTurn: 0,
  anonymous: false,
  billing: 'api',
});

const fleet = (): TopState => applyStatuses(initialState, [status('w1'), status('w2', 'codex'), status('w3')]);

/** Press keys in order: a string is typed as is, an object is a named key. */
function press(state: TopState, ...keys: (string | KeyInfo)[]) {
  let s = state;
  let action: ReturnType<typeof handleKey>['action'];
  for (const k of keys) {
    const r = typeof k === 'string' ? handleKey(s, k, {}) : handleKey(s, '', k);
    s = r.state;
    action = r.action ?? action;
  }
  return { state: s, action };
}

describe('keys', () => {
  it('j/k and the arrows select; q and Ctrl-C quit', () => {
    expect(press(fleet(), 'j', 'j').state.selected).toBe('w3');
    expect(press(fleet(), { downArrow: true }, { downArrow: true }, { upArrow: true }).state.selected).toBe('w2');
    expect(press(fleet(), 'j', 'k').state.selected).toBe('w1');
    expect(press(fleet(), 'q').action).toEqual({ kind: 'quit' });
    expect(handleKey(fleet(), 'c', { ctrl: true }).action).toEqual({ kind: 'quit' });
  });

  it('Enter attaches to the selected worker', () => {
    expect(press(fleet(), 'j', { return: true }).action).toEqual({ kind: 'attach', name: 'w2' });
  });

  it('s opens the prompt line; Enter sends what was typed to the worker selected when it opened', () => {
    const r = press(fleet(), 'j', 's', 'ECHO hi', { backspace: true }, 'I', { return: true });
    expect(r.action).toEqual({ kind: 'send', name: 'w2', prompt: 'ECHO hI' });
    expect(r.state.mode).toEqual({ kind: 'list' });
    // typed keys are text there: q, j, y do not act
    expect(press(fleet(), 's', 'qjy').state.mode).toEqual({ kind: 'prompt', name: 'w1', text: 'qjy' });
    // an empty prompt sends nothing; Escape cancels
    expect(press(fleet(), 's', '  ', { return: true })).toMatchObject({ action: undefined, state: { notice: 'nothing sent: the prompt is empty' } });
    expect(press(fleet(), 's', 'x', { escape: true })).toMatchObject({ action: undefined, state: { mode: { kind: 'list' } } });
  });

  it('text and Enter that arrive as one chunk (a paste, a fast typist) send the text', () => {
    expect(press(fleet(), 's', 'ECHO one\r').action).toEqual({ kind: 'send', name: 'w1', prompt: 'ECHO one' });
    expect(press(fleet(), '/', 'w3\r').state).toMatchObject({ filter: 'w3', mode: { kind: 'list' }, selected: 'w3' });
  });

  it('y/n answer a permission prompt with the provider’s keys, only while the worker asks', () => {
    expect(press(fleet(), 'y')).toMatchObject({ action: undefined, state: { notice: 'w1 is not asking for anything' } });
    const asking = applyEvent(
      applyEvent(fleet(), {
        cursor: '1',
        at: '2026-01-01T00:00:01.000Z',
        kind: 'needs-input',
        worker: 'w1',
        provider: 'claude',
        input: 'permission',
        tool: 'Bash',
      }),
      {
        cursor: '2',
        at: '2026-01-01T00:00:02.000Z',
        kind: 'needs-input',
        worker: 'w2',
        provider: 'codex',
        input: 'permission',
      },
    );
    expect(press(asking, 'y').action).toEqual({ kind: 'keys', name: 'w1', keys: ['Enter'] });
    expect(press(asking, 'n').action).toEqual({ kind: 'keys', name: 'w1', keys: ['Escape'] });
    expect(press(asking, 'j', 'y').action).toEqual({ kind: 'keys', name: 'w2', keys: ['y'] });
  });

  it('x asks to confirm: y kills, anything else cancels', () => {
    const asked = press(fleet(), 'j', 'x');
    expect(asked.state.mode).toEqual({ kind: 'confirm-kill', name: 'w2' });
    expect(asked.action).toBeUndefined();
    expect(press(asked.state, 'y').action).toEqual({ kind: 'kill', name: 'w2' });
    expect(press(asked.state, 'n')).toMatchObject({ action: undefined, state: { mode: { kind: 'list' }, notice: 'kill cancelled' } });
    expect(press(asked.state, { return: true }).action).toBeUndefined();
  });

  it('/ filters as it is typed; Enter keeps the filter, Escape drops what was typed', () => {
    const typing = press(fleet(), '/', 'w2');
    expect(typing.state.selected).toBe('w2');
    expect(press(typing.state, { return: true }).state).toMatchObject({ filter: 'w2', mode: { kind: 'list' } });
    expect(press(typing.state, { escape: true }).state).toMatchObject({ filter: '', mode: { kind: 'list' } });
  });

  it('with no worker, only quitting and filtering do anything', () => {
    expect(press(initialState, { return: true }, 's', 'x', 'y').action).toBeUndefined();
    expect(press(initialState, 's').state.mode).toEqual({ kind: 'list' });
  });
});
