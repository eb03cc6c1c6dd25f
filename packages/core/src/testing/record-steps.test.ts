/** The recorder's ordering: hook files, transcript lines and startup screens put in the order they happened. */
import { describe, expect, it } from 'vitest';
import { hookSteps, orderSteps, screenSteps, transcriptSteps, withPlaceholders } from './record-steps.js';

const line = (at: string, text: string) => `${JSON.stringify({ at, text })}\n`;

describe('recordConformance steps', () => {
  it('hook files: only the kinds asked for, in file-name order, timed by their nanosecond prefix', () => {
    const steps = hookSteps(
      [
        { name: '200-7-stop.json', text: '{"b":2}' },
        { name: '100-7-prompt.json', text: '{"a":1}' },
        { name: '150-7-sent.json', text: '{}' },
        { name: 'notes.txt', text: '' },
      ],
      new Set(['prompt', 'stop']),
    );
    expect(steps).toEqual([
      { at: 100n, rank: 1, step: { hook: { kind: 'prompt', payload: { a: 1 } } } },
      { at: 200n, rank: 1, step: { hook: { kind: 'stop', payload: { b: 2 } } } },
    ]);
  });

  it('transcript lines take their `at`, a line without one the time before it', () => {
    const text = line('1970-01-01T00:00:01.000Z', 'x') + '{"no":"time"}\n';
    expect(transcriptSteps(text).map((s) => s.at)).toEqual([1_000_000_000n, 1_000_000_000n]);
  });

  it('screens: each change once, a dialog followed by the keys that answered it', () => {
    const steps = screenSteps([
      { at: '10', screen: 'trust?', state: { state: 'dialog', keys: ['Enter'] } },
      { at: '20', screen: 'trust?', state: { state: 'dialog', keys: ['Enter'] } },
      { at: '30', screen: '> ', state: { state: 'ready' } },
    ]);
    expect(steps.map((s) => s.step)).toEqual([{ screen: 'trust?' }, { keys: ['Enter'] }, { screen: '> ' }]);
    expect(steps[1]?.at).toBe(21n);
  });

  it('orders by time, a transcript line before a hook of the same instant, adjacent lines joined', () => {
    const hook = { hook: { kind: 'stop', payload: {} } };
    const ordered = orderSteps([
      { at: 5n, rank: 1, step: hook },
      { at: 5n, rank: 0, step: { transcript: 'b\n' } },
      { at: 1n, rank: 0, step: { transcript: 'a\n' } },
      { at: 9n, rank: 2, step: { screen: 's' } },
    ]);
    expect(ordered).toEqual([{ transcript: 'a\nb\n' }, hook, { screen: 's' }]);
  });

  it('the scratch folder and the transcript path become placeholders everywhere', () => {
    const value = { a: '/tmp/r/w-1/x', b: ['/tmp/r/t.jsonl'] };
    expect(withPlaceholders(value, { cwd: '/tmp/r/w-1', transcript: '/tmp/r/t.jsonl' })).toEqual({ a: '{{cwd}}/x', b: ['{{transcript}}'] });
  });
});
