import { readFileSync } from 'node:fs';
import type { HookEvent } from '@umbel/core';
import { type ProviderRecording, testProvider } from '@umbel/core/testing';
import { expect, it } from 'vitest';
import { qwen } from './index.js';

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
// Recorded from the real 0.15.10 against the chat-completions mock (test-fixtures/real/record-conformance.mjs).
const recording = JSON.parse(fixture('conformance.json')) as ProviderRecording;
const session: HookEvent = { kind: 'session', at: 1n, payload: {} };
const ready = fixture('real-0.15.10-screen-ready.txt');

testProvider({
  provider: qwen,
  // doBuildLaunch only checks that the binary is an executable file; it never runs it.
  callerEnv: { UMBEL_QWEN_BIN: process.execPath, QWEN_CODE_SYSTEM_SETTINGS_PATH: '/nonexistent/qwen-system-settings.json' },
  launchEnv: { OPENAI_API_KEY: 'qwen-conformance-key' },
  recording,
  fixtures: {
    screens: [
      { name: 'ready after SessionStart', screen: ready, events: [session], expected: 'ready' },
      { name: 'input box before SessionStart', screen: ready, expected: 'starting' },
      { name: 'sign-in', screen: recording.signIn.screen, expected: 'sign-in' },
    ],
    prompts: ['hello', 'a\tb', '!ls', 'see @README.md', 'two\nlines'],
  },
  additional: ({ world, recording: recorded }) => {
    it("the outcome's usage is the chat recording's token counts in the neutral names", async () => {
      if (!recorded) throw new Error('no recording');
      const w = await world(recorded.answer);
      try {
        await w.umbel.spawn({ name: 'u', provider: 'qwen', cwd: w.work, env: { OPENAI_API_KEY: 'k' } });
        await w.umbel.send({ name: 'u', prompt: recorded.answer.prompt });
        const outcome = await w.umbel.wait({ name: 'u', timeout: '20s' });
        expect(outcome).toMatchObject({ reason: 'completed', result: 'recorded answer' });
        expect(outcome.usage).toMatchObject({ inputTokens: expect.any(Number), outputTokens: expect.any(Number), cacheReadTokens: 0, reasoningTokens: 0 });
      } finally {
        await w.close();
      }
    });
  },
});
