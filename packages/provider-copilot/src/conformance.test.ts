import { readFileSync } from 'node:fs';
import { type ProviderRecording, testProvider } from '@umbel/core/testing';
import { expect, it } from 'vitest';
import { copilot } from './index.js';

// Recorded from the real GitHub Copilot CLI 1.0.102 offline against the chat mock (test-fixtures/real/record-conformance.mjs).
const recording = JSON.parse(readFileSync(new URL('./__fixtures__/conformance.json', import.meta.url), 'utf8')) as ProviderRecording;
const readyScreen = recording.answer.startup.find((s) => s.screen !== undefined)?.screen ?? '';
const permissionScreen = recording.permission.turn.find((s) => s.screen !== undefined)?.screen ?? '';

testProvider({
  provider: copilot,
  // doBuildLaunch only checks that the binary is an executable file
  callerEnv: { UMBEL_COPILOT_BIN: process.execPath },
  recording,
  fixtures: {
    screens: [
      { name: 'the input box', screen: readyScreen, expected: 'ready' },
      { name: 'the permission dialog (no input box)', screen: permissionScreen, expected: 'starting' },
    ],
    prompts: ['hello', 'two\nlines', 'say !ls', '/not-a-command please', '  leading'],
  },
  additional: ({ world, recording: recorded }) => {
    it('the permission outcome names the tool and the command, and its screen is the dialog', async () => {
      if (!recorded) throw new Error('no recording');
      const w = await world(recorded.permission);
      try {
        await w.umbel.spawn({ name: 'p', provider: 'copilot', cwd: w.work });
        await w.umbel.send({ name: 'p', prompt: recorded.permission.prompt });
        const outcome = await w.umbel.wait({ name: 'p', timeout: '20s' });
        expect(outcome).toMatchObject({ reason: 'needs-input', exitCode: 126, tool: 'bash', message: 'Copilot asks to use bash: touch recorded.txt' });
        expect(outcome.paneTail).toContain('Do you want to run this command?');
      } finally {
        await w.close();
      }
    });

    it('the API error outcome carries the status and the type Copilot recorded', async () => {
      if (!recorded) throw new Error('no recording');
      const w = await world(recorded.apiError);
      try {
        await w.umbel.spawn({ name: 'e', provider: 'copilot', cwd: w.work });
        await w.umbel.send({ name: 'e', prompt: recorded.apiError.prompt });
        expect(await w.umbel.wait({ name: 'e', timeout: '20s' })).toMatchObject({ reason: 'provider-error', exitCode: 122, apiErrorStatus: 400 });
      } finally {
        await w.close();
      }
    });
  },
});
