/**
 * The provider conformance suite: `testProvider({ provider, fixtures, recording })` registers
 * vitest tests that every provider — ours and third parties' — must pass. Call it at the top level
 * of a `*.test.ts` file. The shape tests check the object on blank inputs; the behavioural tests
 * (./conformance-behaviour.ts) drive it through the engine on its own recording — required: without
 * one the suite fails (never skips), saying how to record it.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BehaviourInput, behaviourTests } from './conformance-behaviour.js';
import { type BehaviourSettings, type ConformanceWorld, createWorld, textsUnder } from './conformance-world.js';
import type { ProviderRecording, RecordedScenario } from './recording.js';
import { FORBIDDEN_INHERITED_ENV, PROVIDER_SPEC_V1 } from '@umbel/provider';
import type { HookEvent, ProviderV1, ProviderV1ReadTurnOptions, ProviderV1StartupState, ProviderV1TurnRead } from '@umbel/provider';

/** Recorded material a provider brings to the suite. */
export interface ConformanceFixtures {
  /** Transcript turns with the read each must produce. */
  readonly turns?: readonly { readonly name: string; readonly options: ProviderV1ReadTurnOptions; readonly expected: ProviderV1TurnRead }[];
  /** Startup screens with the state each must produce. */
  readonly screens?: readonly {
    readonly name: string;
    readonly screen: string;
    readonly events?: readonly HookEvent[];
    readonly expected: ProviderV1StartupState['state'];
  }[];
  /** Prompts that must be delivered unchanged (apart from a documented prefix). */
  readonly prompts?: readonly string[];
}

export { FORBIDDEN_INHERITED_ENV };

/** What a provider's additional tests get (the `additional` hook of {@link testProvider}). */
export interface ConformanceContext {
  readonly provider: ProviderV1;
  /** The recording given to {@link testProvider} (absent only when the suite already fails for want of one). */
  readonly recording?: ProviderRecording;
  /** A fresh world (mkdtemp state root, worker dir and home; the memory substrate replaying `scenario`); close it when done. */
  world(scenario: RecordedScenario): Promise<ConformanceWorld>;
}

/** Input of {@link testProvider}. */
export interface TestProviderInput {
  provider: ProviderV1;
  /** Recorded transcript turns, screens and prompts for the shape tests. */
  fixtures?: ConformanceFixtures;
  /** Worker env for the launches (e.g. the CLI's API key variable). */
  launchEnv?: Record<string, string>;
  /** umbel's own environment (e.g. `UMBEL_<ID>_BIN` pointing at any executable file). */
  callerEnv?: Record<string, string | undefined>;
  /**
   * The provider's recorded scenarios (a {@link ProviderRecording}), which the behavioural tests replay.
   * Required: without it (or with one that lacks a scenario) the suite fails, saying how to record one.
   */
  recording: ProviderRecording;
  behaviour?: BehaviourSettings;
  /** Register more tests inside the suite's describe block. */
  additional?: (context: ConformanceContext) => void;
}

/** The shape tests: the object on blank inputs, and a launch into mkdtemp dirs. */
function shapeTests(input: TestProviderInput): void {
  const { provider } = input;
  it('declares spec v1 and a kebab-case id', () => {
    expect(provider.specificationVersion).toBe(PROVIDER_SPEC_V1);
    expect(provider.providerId).toMatch(/^[a-z][a-z0-9-]*$/);
    expect(provider.displayName.length).toBeGreaterThan(0);
  });
  it('inherits configuration variables one by one, never a prefix or a host marker', () => {
    for (const name of provider.inheritEnv) {
      expect(name, `inheritEnv entry ${name}`).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
      expect(FORBIDDEN_INHERITED_ENV).not.toContain(name);
    }
  });
  it('builds a launch without env values on argv or in its files, with hooks wired to the sink', async () => {
    const canary = 'canary-value-7f3a9e';
    const root = await realpath(await mkdtemp(join(tmpdir(), 'umbel-conformance-launch-')));
    try {
      const dirs = { workerDir: join(root, 'worker'), sharedDir: join(root, 'shared'), home: join(root, 'home') };
      const launch = await provider.doBuildLaunch({
        worker: 'conformance',
        cwd: root,
        unattended: false,
        env: { ...(input.launchEnv ?? {}), SECRET_CANARY: canary },
        callerEnv: { PATH: process.env.PATH, HOME: dirs.home, ...(input.callerEnv ?? {}) },
        workerDir: dirs.workerDir,
        sharedDir: dirs.sharedDir,
        sessionId: '00000000-0000-4000-8000-000000000000',
        hookSinkPath: join(root, 'umbel-hook'),
        hookCommand: (kind) => `${join(root, 'umbel-hook')} ${kind}`,
      });
      expect(launch.argv.length).toBeGreaterThan(0);
      expect(launch.argv.join(' ')).not.toContain(canary);
      const written = await textsUnder([dirs.workerDir, dirs.sharedDir]);
      for (const text of [...(launch.files ?? []).map((f) => f.content), ...written]) expect(text).not.toContain(canary);
      const wiring = [...launch.argv, ...(launch.files ?? []).map((f) => f.content), ...Object.values(launch.env ?? {}), ...written].join('\n');
      expect(wiring).toContain(`${join(root, 'umbel-hook')} stop`);
      expect(wiring).toContain(`${join(root, 'umbel-hook')} prompt`);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
  it('parses an empty payload without throwing', () => {
    for (const kind of ['session', 'prompt', 'stop', 'stop-failure', 'permission', 'notify']) {
      expect(() => provider.doParseEvent({ kind, at: 1n, payload: undefined })).not.toThrow();
      expect(() => provider.doParseEvent({ kind, at: 1n, payload: { unexpected: true } })).not.toThrow();
    }
  });
  it('reads an empty transcript as missing, never as an answer', () => {
    const read = provider.doReadTurn({ content: '', transcriptPath: '/tmp/x', ordinal: 1, stopSeen: false });
    expect(read.status).toBe('missing');
  });
  it('classifies a blank screen as starting', () => {
    expect(provider.doDetectStartup({ screen: '', events: [] }).state).toBe('starting');
  });
}

/** The provider's recorded turns, screens and prompts, one test each. */
function fixtureTests(provider: ProviderV1, fixtures: ConformanceFixtures): void {
  for (const turn of fixtures.turns ?? []) {
    it(`reads turn fixture: ${turn.name}`, () => {
      expect(provider.doReadTurn(turn.options)).toMatchObject(turn.expected);
    });
  }
  for (const screen of fixtures.screens ?? []) {
    it(`classifies screen fixture: ${screen.name}`, () => {
      expect(provider.doDetectStartup({ screen: screen.screen, events: screen.events ?? [] }).state).toBe(screen.expected);
    });
  }
  for (const prompt of fixtures.prompts ?? []) {
    it(`keeps the prompt text: ${JSON.stringify(prompt.slice(0, 30))}`, () => {
      const prepared = provider.doPreparePrompt ? provider.doPreparePrompt(prompt) : prompt;
      expect(prepared.endsWith(prompt.trimStart()) || prepared === prompt).toBe(true);
    });
  }
}

/** Register the conformance tests for `provider`. */
export function testProvider(input: TestProviderInput): void {
  const { provider, fixtures = {} } = input;
  describe(`provider conformance: ${provider.providerId}`, () => {
    shapeTests(input);
    fixtureTests(provider, fixtures);
    behaviourTests(input as BehaviourInput);
    input.additional?.({
      provider,
      ...(input.recording ? { recording: input.recording } : {}),
      world: (scenario) => createWorld(provider, scenario, input.callerEnv ?? {}, input.behaviour),
    });
  });
}
