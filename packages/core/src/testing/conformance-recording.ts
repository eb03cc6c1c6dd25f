/**
 * The check of a recording handed to the conformance suite: it usually comes from a JSON file
 * (cast to {@link ProviderRecording}), so the suite says what is missing instead of crashing in
 * the middle of a replay.
 */
import type { ProviderRecording } from './recording.js';

const SCENARIOS = ['answer', 'permission', 'apiError'] as const satisfies readonly (keyof ProviderRecording)[];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stepProblems(steps: unknown, at: string): string[] {
  if (!Array.isArray(steps)) return [`${at}: not a list of steps`];
  return steps.flatMap((step: unknown, i) => {
    if (!isObject(step)) return [`${at}[${i}]: not a step object`];
    const problems: string[] = [];
    if (step.screen !== undefined && typeof step.screen !== 'string') problems.push(`${at}[${i}].screen: not a string`);
    if (step.transcript !== undefined && typeof step.transcript !== 'string') problems.push(`${at}[${i}].transcript: not a string`);
    if (step.hook !== undefined && !(isObject(step.hook) && typeof step.hook.kind === 'string')) problems.push(`${at}[${i}].hook: not { kind, payload }`);
    if (step.keys !== undefined && !(Array.isArray(step.keys) && step.keys.every((k) => typeof k === 'string')))
      problems.push(`${at}[${i}].keys: not a list of keys`);
    return problems;
  });
}

function scenarioProblems(scenario: unknown, at: string): string[] {
  if (scenario === undefined) return [`${at}: missing`];
  if (!isObject(scenario)) return [`${at}: not a scenario object`];
  return [
    ...stepProblems(scenario.startup, `${at}.startup`),
    ...(typeof scenario.prompt === 'string' && scenario.prompt.trim() !== '' ? [] : [`${at}.prompt: not a non-empty string`]),
    ...stepProblems(scenario.turn, `${at}.turn`),
    ...(isObject(scenario.outcome) && typeof scenario.outcome.reason === 'string' ? [] : [`${at}.outcome.reason: not a string`]),
  ];
}

/**
 * What is wrong with a value given as a {@link ProviderRecording} (it usually comes from a JSON
 * file, cast): one line per problem, `[]` when it has everything the replay needs.
 */
export function recordingProblems(recording: unknown): string[] {
  if (!isObject(recording)) return ['recording: not an object'];
  return [
    ...(typeof recording.cli === 'string' && recording.cli !== '' ? [] : ['recording.cli: not a non-empty string (the CLI and version recorded)']),
    ...SCENARIOS.flatMap((name) => scenarioProblems(recording[name], `recording.${name}`)),
    ...(isObject(recording.signIn) && typeof recording.signIn.screen === 'string' ? [] : ['recording.signIn.screen: not a string']),
  ];
}
