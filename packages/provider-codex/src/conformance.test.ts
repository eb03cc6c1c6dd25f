import { readFileSync } from 'node:fs';
import type { HookEvent } from '@umbel/core';
import { type ProviderRecording, testProvider } from '@umbel/core/testing';
import { codex } from './index.js';

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
// Recorded from the real 0.169.0 against the Responses mock (test-fixtures/real/record-conformance.mjs).
const recorded = JSON.parse(fixture('conformance.json')) as ProviderRecording;
// The answer scenario starts behind the folder-trust dialog (its recorded screen): Enter trusts.
const recording: ProviderRecording = {
  ...recorded,
  answer: { ...recorded.answer, startup: [{ screen: fixture('screen-trust.txt') }, { keys: ['Enter'] }, ...recorded.answer.startup] },
};
const rollout = fixture('real-0.169.0-session.jsonl');
const session: HookEvent = { kind: 'session', at: 1n, payload: {} };

testProvider({
  provider: codex,
  // doBuildLaunch only checks that the binary is an executable file; it never runs it.
  callerEnv: { UMBEL_CODEX_BIN: process.execPath },
  recording,
  fixtures: {
    turns: [
      {
        name: 'missing turn id',
        options: { content: rollout, transcriptPath: '/r.jsonl', turnKey: 'no-such-turn', ordinal: 1, stopSeen: true },
        expected: { status: 'missing' },
      },
    ],
    screens: [
      { name: 'ready', screen: fixture('screen-ready.txt'), events: [session], expected: 'ready' },
      { name: 'composer without the status line', screen: fixture('screen-composer-only.txt'), expected: 'starting' },
      { name: 'trust dialog', screen: fixture('screen-trust.txt'), expected: 'dialog' },
      { name: 'sign-in', screen: fixture('screen-sign-in.txt'), expected: 'sign-in' },
    ],
    prompts: ['hello', '/review this', '!ls', 'multi\nline'],
  },
});
