import { readFileSync } from 'node:fs';
import type { HookEvent } from '@umbel/core';
import { type ProviderRecording, testProvider } from '@umbel/core/testing';
import { expect, it } from 'vitest';
import { gemini } from './index.js';

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
// Recorded from the real 0.61.0 against the Gemini API mock (test-fixtures/real/record-conformance.mjs).
const recording = JSON.parse(fixture('conformance.json')) as ProviderRecording;
const session: HookEvent = { kind: 'session', at: 1n, payload: {} };

testProvider({
  provider: gemini,
  // doBuildLaunch only checks that the binary is an executable file; it never runs it.
  callerEnv: { UMBEL_GEMINI_BIN: process.execPath },
  launchEnv: { GEMINI_API_KEY: 'gemini-conformance-key' },
  recording,
  fixtures: {
    screens: [
      { name: 'ready after SessionStart', screen: fixture('real-0.61.0-screen-box-empty.txt'), events: [session], expected: 'ready' },
      { name: 'input box before SessionStart', screen: fixture('real-0.61.0-screen-box-empty.txt'), expected: 'starting' },
      { name: 'sign-in', screen: recording.signIn.screen, expected: 'sign-in' },
    ],
    prompts: ['hello', 'a\tb', '! ls', '? what', 'see @README.md'],
  },
  additional: ({ world, recording: recorded }) => {
    it("the outcome's usage is the chat's token counts in the neutral names (never input_tokens 0 beside input 5)", async () => {
      if (!recorded) throw new Error('no recording');
      const w = await world(recorded.answer);
      try {
        await w.umbel.spawn({ name: 'u', provider: 'gemini', cwd: w.work, env: { GEMINI_API_KEY: 'k' } });
        await w.umbel.send({ name: 'u', prompt: recorded.answer.prompt });
        const outcome = await w.umbel.wait({ name: 'u', timeout: '20s' });
        expect(outcome.usage).toEqual({ inputTokens: 5, outputTokens: 4, cacheReadTokens: 0, reasoningTokens: 0 });
      } finally {
        await w.close();
      }
    });
  },
});
