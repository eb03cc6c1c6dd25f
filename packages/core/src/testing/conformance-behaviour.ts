/**
 * The behavioural half of the conformance suite: drive the provider through `createUmbel` and the
 * memory substrate replaying its own recorded fixtures — spawn → ready → send → prompt accepted →
 * stop → the answer read from the transcript; a permission → needs-input; an API error →
 * provider-error; a sign-in screen → 126. A provider that never becomes ready, never parses an
 * event, never reads an answer or puts an env value on argv fails here — and so does a provider
 * given no recording (or one lacking a scenario), with a message saying how to record one.
 */
import { describe, expect, it } from 'vitest';
import { UmbelError } from '../contract/errors.js';
import { errorExitCode } from '../contract/exit-codes.js';
import type { ProviderV1 } from '@umbel/provider';
import { type BehaviourSettings, type ConformanceWorld, createWorld, hookCommandIn, launchWiring } from './conformance-world.js';
import { recordingProblems } from './conformance-recording.js';
import type { ProviderRecording, RecordedScenario } from './recording.js';

/** The names an outcome's usage may have (umbel's neutral shape). */
export const NEUTRAL_USAGE_NAMES = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheCreationTokens', 'reasoningTokens', 'costUsd'];

/** A value that must never reach argv (passed as an explicit worker env value). */
const CANARY = 'conformance-secret-5e1f0c';

/** What the behavioural tests need. */
export interface BehaviourInput {
  readonly provider: ProviderV1;
  readonly recording?: ProviderRecording;
  readonly launchEnv?: Readonly<Record<string, string>>;
  readonly callerEnv?: Readonly<Record<string, string | undefined>>;
  readonly behaviour?: BehaviourSettings;
}

async function inWorld<T>(input: BehaviourInput, scenario: RecordedScenario, fn: (world: ConformanceWorld) => Promise<T>): Promise<T> {
  const world = await createWorld(input.provider, scenario, input.callerEnv ?? {}, input.behaviour);
  try {
    return await fn(world);
  } finally {
    await world.close();
  }
}

/** Spawn the worker `w` of a world: the launch env carries the canary as an explicit value. */
function spawnIn(world: ConformanceWorld, input: BehaviourInput) {
  const env = { ...(input.launchEnv ?? {}), CONFORMANCE_SECRET: CANARY };
  return world.umbel.spawn({ name: 'w', provider: input.provider.providerId, cwd: world.work, env, startupTimeout: input.behaviour?.startupTimeout ?? '20s' });
}

/** Spawn, send the scenario's prompt, wait for the outcome. */
async function turnIn(world: ConformanceWorld, input: BehaviourInput, scenario: RecordedScenario) {
  await spawnIn(world, input);
  const sent = await world.umbel.send({ name: 'w', prompt: scenario.prompt });
  expect(sent, 'the prompt was accepted (a prompt hook confirmed it), not queued').toEqual({ worker: 'w', turn: 1 });
  return world.umbel.wait({ name: 'w', timeout: input.behaviour?.waitTimeout ?? '20s' });
}

function kindsOf(recording: ProviderRecording): string[] {
  const steps = [recording.answer, recording.permission, recording.apiError].flatMap((s) => [...s.startup, ...s.turn]);
  return [...new Set(steps.flatMap((s) => (s.hook ? [s.hook.kind] : [])))];
}

/** Every screen the recording shows, in its scenarios' startups and turns. */
function recordedScreens(recording: ProviderRecording): string[] {
  const steps = [recording.answer, recording.permission, recording.apiError].flatMap((s) => [...s.startup, ...s.turn]);
  return steps.flatMap((s) => (s.screen !== undefined ? [s.screen] : []));
}

function startupTests(input: BehaviourInput, recording: ProviderRecording): void {
  it('spawn reaches ready on its recorded startup (answering its dialogs), with no env value on the launch argv', async () => {
    await inWorld(input, recording.answer, async (world) => {
      expect(await spawnIn(world, input)).toMatchObject({ name: 'w', state: 'ready', alive: true });
      const launch = world.substrate.launches.at(-1);
      expect(launch?.argv.join(' ')).not.toContain(CANARY);
      expect(launch?.env.CONFORMANCE_SECRET, 'the value travels in the env, never on argv').toBe(CANARY);
    });
  });

  it('its launch installs a hook for every kind its CLI fired when recorded', async () => {
    await inWorld(input, recording.answer, async (world) => {
      await spawnIn(world, input);
      const wiring = await launchWiring(world, input.provider, 'w');
      for (const kind of kindsOf(recording)) expect(wiring, `no installed hook delivers '${kind}'`).toContain(hookCommandIn(world, kind));
    });
  });

  const { signIn } = recording;
  if (signIn.none !== undefined) {
    it(`has no sign-in screen (${signIn.none}): none of its recorded screens is taken for one`, () => {
      const { provider } = input;
      for (const screen of recordedScreens(recording)) {
        expect(provider.doDetectStartup({ screen, events: [] }).state, screen).not.toBe('sign-in');
        expect(provider.doDetectSignIn?.(screen), screen).toBeUndefined();
      }
    });
    return;
  }
  it('a sign-in screen is refused at spawn: NotSignedInError, exit 126, nothing left running', async () => {
    const scenario: RecordedScenario = { startup: [{ screen: signIn.screen }], prompt: '', turn: [], outcome: { reason: 'sign-in' } };
    await inWorld(input, scenario, async (world) => {
      const error = await spawnIn(world, input).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(UmbelError.isInstance(error) && error.code).toBe('UMBEL_NOT_SIGNED_IN');
      expect(errorExitCode(error)).toBe(126);
      expect(await world.substrate.list()).toEqual([]);
    });
  });
}

function turnTests(input: BehaviourInput, recording: ProviderRecording): void {
  it('send → prompt accepted → stop → the answer, read from the transcript (not from the stop hook), with neutral usage', async () => {
    const { answer } = recording;
    await inWorld(input, answer, async (world) => {
      const outcome = await turnIn(world, input, answer);
      expect(outcome).toMatchObject({ reason: 'completed', exitCode: 0, turn: 1, result: answer.outcome.answer });
      expect(outcome.message, 'a completed answer that did not come from the transcript says so').toBeUndefined();
      for (const name of Object.keys(outcome.usage ?? {})) expect(NEUTRAL_USAGE_NAMES, `usage field '${name}'`).toContain(name);
      expect(await world.umbel.read({ name: 'w' })).toMatchObject({ turn: 1, result: answer.outcome.answer, complete: true });
    });
  });

  it('a permission request is needs-input (126)', async () => {
    const { permission } = recording;
    await inWorld(input, permission, async (world) => {
      const outcome = await turnIn(world, input, permission);
      expect(outcome).toMatchObject({
        reason: 'needs-input',
        exitCode: 126,
        inputKind: 'permission',
        ...(permission.outcome.tool ? { tool: permission.outcome.tool } : {}),
      });
    });
  });

  it('an API error is provider-error (122)', async () => {
    const { apiError } = recording;
    await inWorld(input, apiError, async (world) => {
      expect(await turnIn(world, input, apiError)).toMatchObject({ reason: 'provider-error', exitCode: 122 });
    });
  });
}

/** The title of the one test that stands for the behavioural suite when it cannot run. */
export const RECORDING_REQUIRED_TITLE =
  'behaviour: replays a recording of the real CLI (spawn → ready → send → answer; permission → needs-input; API error → provider-error; sign-in → 126)';

/** Why the behavioural suite cannot run, and how to give it what it needs. */
export function recordingRequiredMessage(providerId: string, problems?: readonly string[]): string {
  const what = problems
    ? `testProvider({ provider: ${providerId} }) was given a \`recording\` the replay cannot use:\n${problems.map((p) => `  - ${p}`).join('\n')}`
    : `testProvider({ provider: ${providerId} }) was given no \`recording\`: without one the behavioural tests cannot run, and a provider that never becomes ready, never parses an event or never reads an answer would pass.`;
  return [
    what,
    "Pass `recording`, a ProviderRecording (from @umbel/core/testing) of four scenarios recorded from the real CLI on tmux: an answer, a permission request, an API error, a sign-in screen. E.g. `recording: JSON.parse(readFileSync(new URL('./__fixtures__/conformance.json', import.meta.url), 'utf8'))`.",
    "Record it with a script like examples/umbel-provider-echo/scripts/record-conformance.mjs in the umbel repository (umbel's own providers use test-fixtures/real/record-conformance.mjs).",
    'See docs/providers/authoring.md, section 6 "The conformance suite".',
  ].join('\n');
}

/**
 * Register the behavioural tests. Without a usable recording they cannot run: one test stands for
 * them and fails, saying what to pass and how to record it (a skip would let a broken provider pass).
 */
export function behaviourTests(input: BehaviourInput): void {
  const { recording } = input;
  const problems = recording === undefined ? undefined : recordingProblems(recording);
  if (!recording || (problems && problems.length > 0)) {
    const message = recordingRequiredMessage(input.provider.providerId, problems);
    it(RECORDING_REQUIRED_TITLE, () => {
      throw new Error(message);
    });
    return;
  }
  describe(`behaviour, replaying ${recording.cli}`, () => {
    startupTests(input, recording);
    turnTests(input, recording);
  });
}
