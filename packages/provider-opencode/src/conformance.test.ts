import { readFileSync } from 'node:fs';
import type { HookEvent } from '@umbel/core';
import { type ProviderRecording, testProvider } from '@umbel/core/testing';
import { expect, it } from 'vitest';
import { opencode } from './index.js';

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
// Recorded from the real opencode 1.18.33 against the chat-completions mock (test-fixtures/real/record-conformance.mjs).
const recording = JSON.parse(fixture('conformance.json')) as ProviderRecording;
const loaded: HookEvent = { kind: 'session', at: 1n, payload: { event: 'plugin.loaded' } };
const readyScreen = recording.answer.startup.find((s) => s.screen !== undefined)?.screen ?? '';
const permissionScreen = recording.permission.turn.find((s) => s.screen !== undefined)?.screen ?? '';

testProvider({
  provider: opencode,
  // doBuildLaunch only checks that the binary is an executable file (and runs `opencode models` only for --model).
  callerEnv: { UMBEL_OPENCODE_BIN: process.execPath },
  recording,
  fixtures: {
    screens: [
      { name: 'ready once the plugin is loaded', screen: readyScreen, events: [loaded], expected: 'ready' },
      { name: 'the input box before the plugin is loaded', screen: readyScreen, expected: 'starting' },
      { name: 'the permission dialog (no input box)', screen: permissionScreen, events: [loaded], expected: 'starting' },
    ],
    prompts: ['hello', 'a\tb', '!ls', '/not-a-command please', 'two\nlines', '  leading and trailing  '],
  },
  additional: ({ world, recording: recorded }) => {
    it("the outcome's usage is opencode's token counts in the neutral names, and the answer is the stored text", async () => {
      if (!recorded) throw new Error('no recording');
      const w = await world(recorded.answer);
      try {
        await w.umbel.spawn({ name: 'u', provider: 'opencode', cwd: w.work });
        await w.umbel.send({ name: 'u', prompt: recorded.answer.prompt });
        const outcome = await w.umbel.wait({ name: 'u', timeout: '20s' });
        expect(outcome).toMatchObject({ reason: 'completed', result: 'recorded answer', stopReason: 'stop' });
        expect(outcome.usage?.inputTokens).toBeGreaterThan(0);
        expect(outcome.usage).toMatchObject({ cacheReadTokens: 0, cacheCreationTokens: 0, reasoningTokens: 0, costUsd: 0 });
      } finally {
        await w.close();
      }
    });

    it('the permission outcome names the tool and the command, and its screen is the dialog', async () => {
      if (!recorded) throw new Error('no recording');
      const w = await world(recorded.permission);
      try {
        await w.umbel.spawn({ name: 'p', provider: 'opencode', cwd: w.work, permissionMode: 'ask' });
        await w.umbel.send({ name: 'p', prompt: recorded.permission.prompt });
        const outcome = await w.umbel.wait({ name: 'p', timeout: '20s' });
        expect(outcome).toMatchObject({ reason: 'needs-input', exitCode: 126, tool: 'bash', message: 'opencode asks to use bash: touch recorded.txt' });
        expect(outcome.paneTail).toContain('△ Permission required');
      } finally {
        await w.close();
      }
    });

    it('the API error outcome carries the status and the type opencode stored', async () => {
      if (!recorded) throw new Error('no recording');
      const w = await world(recorded.apiError);
      try {
        await w.umbel.spawn({ name: 'e', provider: 'opencode', cwd: w.work });
        await w.umbel.send({ name: 'e', prompt: recorded.apiError.prompt });
        expect(await w.umbel.wait({ name: 'e', timeout: '20s' })).toMatchObject({
          reason: 'provider-error',
          exitCode: 122,
          message: 'recorded bad request',
          apiErrorStatus: 400,
          apiErrorType: 'APIError',
        });
      } finally {
        await w.close();
      }
    });
  },
});
