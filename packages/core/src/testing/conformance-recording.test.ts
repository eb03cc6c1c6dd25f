import { describe, expect, it } from 'vitest';
import { recordingProblems } from './conformance-recording.js';
import type { ProviderRecording, RecordedScenario } from './recording.js';

const scenario = (prompt: string): RecordedScenario => ({
  startup: [{ screen: 'ready> ' }, { hook: { kind: 'session', payload: {} } }, { keys: ['y'] }],
  prompt,
  turn: [{ hook: { kind: 'prompt', payload: { prompt } } }, { transcript: '{}\n' }],
  outcome: { reason: 'completed' },
});
const good: ProviderRecording = {
  cli: 'acme@1.0.0',
  answer: scenario('hi'),
  permission: scenario('ASK x'),
  apiError: scenario('FAIL'),
  signIn: { screen: 'Sign in' },
};

describe('recordingProblems: what a recording read from a file lacks', () => {
  it('finds nothing wrong with a complete recording', () => {
    expect(recordingProblems(good)).toEqual([]);
  });

  it('names each missing or malformed part by its path', () => {
    const broken = {
      cli: '',
      answer: { ...good.answer, prompt: ' ', outcome: {} },
      apiError: { ...good.apiError, startup: 'screen', turn: [null, { screen: 3 }, { hook: { payload: {} } }, { keys: 'Enter' }, { transcript: {} }] },
      signIn: { screen: undefined },
    };
    expect(recordingProblems(broken)).toEqual([
      'recording.cli: not a non-empty string (the CLI and version recorded)',
      'recording.answer.prompt: not a non-empty string',
      'recording.answer.outcome.reason: not a string',
      'recording.permission: missing',
      'recording.apiError.startup: not a list of steps',
      'recording.apiError.turn[0]: not a step object',
      'recording.apiError.turn[1].screen: not a string',
      'recording.apiError.turn[2].hook: not { kind, payload }',
      'recording.apiError.turn[3].keys: not a list of keys',
      'recording.apiError.turn[4].transcript: not a string',
      'recording.signIn.screen: not a string',
    ]);
  });

  it('refuses what is not an object at all', () => {
    expect(recordingProblems(undefined)).toEqual(['recording: not an object']);
    expect(recordingProblems([good])).toEqual(['recording: not an object']);
    expect(recordingProblems({ ...good, permission: 'later' })).toEqual(['recording.permission: not a scenario object']);
  });
});
