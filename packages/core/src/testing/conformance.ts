/**
 * The provider conformance suite: `testProvider({ provider, fixtures })` registers vitest tests
 * that every provider — ours and third parties' — must pass. Call it at the top level of a
 * `*.test.ts` file.
 */
import { describe, expect, it } from 'vitest';
import { FORBIDDEN_INHERITED_ENV } from '../provider-kit/env-rules.js';
import type { HookEvent, ProviderV1, ProviderV1ReadTurnOptions, ProviderV1StartupState, ProviderV1TurnRead } from '../provider.js';

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

/** Register the conformance tests for `provider`. */
export function testProvider(input: {
  provider: ProviderV1;
  fixtures?: ConformanceFixtures;
  launchEnv?: Record<string, string>;
  callerEnv?: Record<string, string | undefined>;
}): void {
  const { provider, fixtures = {} } = input;
  describe(`provider conformance: ${provider.providerId}`, () => {
    it('declares spec v1 and a kebab-case id', () => {
      expect(provider.specificationVersion).toBe('umbel-provider-v1');
      expect(provider.providerId).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(provider.displayName.length).toBeGreaterThan(0);
    });
    it('inherits configuration variables one by one, never a prefix or a host marker', () => {
      for (const name of provider.inheritEnv) {
        expect(name, `inheritEnv entry ${name}`).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
        expect(FORBIDDEN_INHERITED_ENV).not.toContain(name);
      }
    });
    it('builds a launch without env values on argv, with hooks wired to the sink', async () => {
      const canary = 'canary-value-7f3a9e';
      const launch = await provider.doBuildLaunch({
        worker: 'conformance',
        cwd: '/tmp',
        unattended: false,
        env: { ...(input.launchEnv ?? {}), SECRET_CANARY: canary },
        callerEnv: { PATH: process.env.PATH, HOME: '/tmp/conformance-home', ...(input.callerEnv ?? {}) },
        workerDir: '/tmp/conformance-worker',
        sharedDir: '/tmp/conformance-shared',
        sessionId: '00000000-0000-4000-8000-000000000000',
        hookSinkPath: '/tmp/umbel-hook',
        hookCommand: (kind) => `/tmp/umbel-hook ${kind}`,
      });
      expect(launch.argv.length).toBeGreaterThan(0);
      expect(launch.argv.join(' ')).not.toContain(canary);
      for (const file of launch.files ?? []) expect(file.content).not.toContain(canary);
      const wiring = [...launch.argv, ...(launch.files ?? []).map((f) => f.content), ...Object.values(launch.env ?? {})].join('\n');
      expect(wiring).toContain('/tmp/umbel-hook stop');
      expect(wiring).toContain('/tmp/umbel-hook prompt');
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
  });
}
