import { readFileSync } from 'node:fs';
import type { HookEvent } from '@umbel/core';
import { type ProviderRecording, testProvider } from '@umbel/core/testing';
import { claude } from './index.js';

const transcript = (name: string): string => readFileSync(new URL(`./__fixtures__/transcripts/${name}.jsonl`, import.meta.url), 'utf8');
const screen = (name: string): string => readFileSync(new URL(`./__fixtures__/screens/${name}.txt`, import.meta.url), 'utf8');
const session: HookEvent = { kind: 'session', at: 1n, payload: { session_id: 's' } };
// Recorded from the real 2.1.328 against the Anthropic mock (test-fixtures/real/record-conformance.mjs).
const recorded = JSON.parse(readFileSync(new URL('./__fixtures__/conformance.json', import.meta.url), 'utf8')) as ProviderRecording;
// The answer scenario starts behind the workspace trust dialog (its recorded screens): Down, then Enter.
const recording: ProviderRecording = {
  ...recorded,
  answer: {
    ...recorded.answer,
    startup: [{ screen: screen('trust-no-exit') }, { keys: ['Down'] }, { screen: screen('trust-yes') }, { keys: ['Enter'] }, ...recorded.answer.startup],
  },
};
const turn = (name: string, turnKey: string) => ({ content: transcript(name), transcriptPath: `/cfg/${name}.jsonl`, turnKey, ordinal: 1, stopSeen: true });

testProvider({
  provider: claude,
  // doBuildLaunch only checks that the binary is an executable file; it never runs it.
  callerEnv: { UMBEL_CLAUDE_BIN: process.execPath },
  launchEnv: { ANTHROPIC_API_KEY: 'sk-ant-conformance' },
  recording,
  fixtures: {
    turns: [
      { name: 'text turn', options: turn('text-turn', 'p-text-1'), expected: { status: 'completed', answer: 'first answer' } },
      { name: 'tool turn', options: turn('tool-turn', 'p-tool-1'), expected: { status: 'completed', answer: 'TOOL-RESULT: total 0' } },
      { name: 'final message missing', options: turn('final-missing', 'p-multi-1'), expected: { status: 'running' } },
      {
        name: 'api error',
        options: turn('api-error', 'p-err-1'),
        expected: {
          status: 'failed',
          message:
            'API Error: 500 boom. This is a server-side issue, usually temporary — try again in a moment. If it persists, check your inference gateway (127.0.0.1:4000).',
        },
      },
      { name: 'interrupt', options: turn('interrupt', 'p-int-1'), expected: { status: 'interrupted' } },
    ],
    screens: [
      { name: 'ready', screen: screen('ready'), events: [session], expected: 'ready' },
      { name: 'trust dialog', screen: screen('trust-no-exit'), expected: 'dialog' },
      { name: 'sign-in', screen: screen('sign-in-login'), expected: 'sign-in' },
      { name: 'fatal root', screen: screen('fatal-root'), expected: 'fatal' },
    ],
    prompts: ['hello', '/notacommand arg', '!ls -la', 'multi\nline', '  leading spaces'],
  },
});
