/**
 * umbel's provider conformance suite (`testProvider` from `@umbel/core/testing`), fed with
 * fixtures recorded from the real echo-agent (scripts/record-fixtures.mjs).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testProvider } from '@umbel/core/testing';
import echo from './index.js';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, '__fixtures__', name), 'utf8');
const transcript = fixture('transcript.jsonl');
const path = '/home/u/.echo-agent/sessions/00000000-0000-4000-8000-0000000ec400.jsonl';
const turn = (turnKey: string | undefined, ordinal: number, content = transcript) => ({
  content,
  transcriptPath: path,
  ordinal,
  stopSeen: true,
  ...(turnKey ? { turnKey } : {}),
});
// The transcript cut right after the first prompt: the turn is still running.
const cut = `${transcript.split('\n').slice(0, 2).join('\n')}\n`;

testProvider({
  provider: echo,
  fixtures: {
    turns: [
      {
        name: 'a pasted two-line prompt, answered',
        options: turn('turn-1', 1),
        expected: { status: 'completed', answer: 'echo: hello\nworld', usage: { input_tokens: 11, output_tokens: 17 } },
      },
      { name: 'the same turn found by its ordinal (no turn id)', options: turn(undefined, 1), expected: { status: 'completed', answer: 'echo: hello\nworld' } },
      { name: 'an API error', options: turn('turn-2', 2), expected: { status: 'failed', message: 'simulated API error: boom' } },
      { name: 'a permission approved with y', options: turn('turn-3', 3), expected: { status: 'completed', answer: 'approved: wrote notes.txt' } },
      { name: 'a turn interrupted with Esc', options: turn('turn-4', 4), expected: { status: 'interrupted' } },
      { name: 'a turn not in the transcript yet', options: turn('turn-9', 9), expected: { status: 'missing' } },
      { name: 'a turn still running', options: turn('turn-1', 1, cut), expected: { status: 'running' } },
    ],
    screens: [
      { name: 'the trust dialog', screen: fixture('screen-trust.txt'), expected: 'dialog' },
      { name: 'the empty prompt', screen: fixture('screen-ready.txt'), expected: 'ready' },
      { name: 'a draft in the prompt', screen: fixture('screen-typed.txt'), expected: 'ready' },
      { name: 'signed out', screen: fixture('screen-signed-out.txt'), expected: 'sign-in' },
    ],
    prompts: ['hello', '/not-a-command', 'two\nlines', '  leading spaces'],
  },
});
