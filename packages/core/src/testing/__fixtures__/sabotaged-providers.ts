/**
 * Run by conformance-sabotage.test.ts in a child vitest (vitest.sabotage.config.ts): the conformance
 * suite on the mock provider as it is (the control) and on four sabotaged copies, all replaying one
 * recording of the mock CLI; then on the mock provider with no recording and with an incomplete
 * one. The parent asserts which of these suites fail.
 */
import type { ProviderV1 } from '@umbel/provider';
import { type TestProviderInput, testProvider } from '../conformance.js';
import { createMockProvider } from '../mock-provider.js';
import type { ProviderRecording, RecordedStep } from '../recording.js';

const hook = (kind: string, payload: Record<string, unknown>): RecordedStep => ({ hook: { kind, payload: { transcript_path: '{{transcript}}', ...payload } } });
const line = (value: Record<string, unknown>) => `${JSON.stringify(value)}\n`;
const startup: RecordedStep[] = [{ screen: 'mock-cli v1\n──────\nmock> ' }, hook('session', { session_id: 'mock-session' })];

/** The mock CLI (testing/memory-substrate.ts) as a recording: its transcript lines, hook payloads and screens. */
const recording: ProviderRecording = {
  cli: 'mock-cli@1',
  answer: {
    startup,
    prompt: 'ECHO recorded answer',
    turn: [
      hook('prompt', { key: 'k1', session_id: 'mock-session', prompt: 'ECHO recorded answer' }),
      { transcript: line({ type: 'user', key: 'k1', text: 'ECHO recorded answer' }) + line({ type: 'assistant', key: 'k1', text: 'recorded answer' }) + line({ type: 'end', key: 'k1' }) },
      hook('stop', { key: 'k1', last: 'recorded answer' }),
    ],
    outcome: { reason: 'completed', answer: 'recorded answer' },
  },
  permission: {
    startup,
    prompt: 'ASK Bash',
    turn: [
      hook('prompt', { key: 'k1', session_id: 'mock-session', prompt: 'ASK Bash' }),
      { transcript: line({ type: 'user', key: 'k1', text: 'ASK Bash' }) + line({ type: 'tool', key: 'k1', name: 'Bash' }) },
      { screen: 'mock-cli v1\n> ASK Bash\nAllow Bash? 1. Yes 2. No\nmock> ' },
      hook('permission', { key: 'k1', tool: 'Bash', message: 'Bash wants to run' }),
    ],
    outcome: { reason: 'needs-input', tool: 'Bash' },
  },
  apiError: {
    startup,
    prompt: 'FAIL boom',
    turn: [
      hook('prompt', { key: 'k1', session_id: 'mock-session', prompt: 'FAIL boom' }),
      { transcript: line({ type: 'user', key: 'k1', text: 'FAIL boom' }) + line({ type: 'error', key: 'k1', message: 'boom' }) },
      hook('stop-failure', { key: 'k1', error: 'boom' }),
    ],
    outcome: { reason: 'provider-error', message: 'boom' },
  },
  signIn: { screen: 'Welcome to mock-cli\nPlease sign in\n> 1. Browser' },
};

const mock = (id: string) => createMockProvider({ providerId: id });
const sabotaged: Record<string, ProviderV1> = {
  control: mock('control'),
  'never-ready': { ...mock('never-ready'), doDetectStartup: () => ({ state: 'starting' }) },
  'never-parses': { ...mock('never-parses'), doParseEvent: () => ({}) },
  'never-reads': { ...mock('never-reads'), doReadTurn: () => ({ status: 'missing' }) },
  'secret-on-argv': {
    ...mock('secret-on-argv'),
    async doBuildLaunch(options) {
      const launch = await mock('secret-on-argv').doBuildLaunch(options);
      return { ...launch, argv: [...launch.argv, '--key', ...Object.values(options.env)] };
    },
  },
};

for (const provider of Object.values(sabotaged)) {
  testProvider({ provider, recording, behaviour: { startupTimeout: '3s', waitTimeout: '5s' } });
}

// A provider that works, given nothing to replay: the suite must fail it (a skip would pass it).
testProvider({ provider: mock('no-recording') } as unknown as TestProviderInput);

// A recording read from a JSON file that lacks a scenario and the sign-in screen.
const { permission: _dropped, ...partial } = recording;
testProvider({ provider: mock('incomplete-recording'), recording: { ...partial, signIn: {} } as unknown as ProviderRecording });

// A CLI without a sign-in screen says so; a provider that still sees one on its screens fails.
const withoutSignIn: ProviderRecording = { ...recording, signIn: { screen: '', none: 'mock-cli needs no account' } };
const readyScreen = 'mock-cli v1';
const noSignIn: Record<string, ProviderV1> = {
  'control-no-sign-in': mock('control-no-sign-in'),
  'false-sign-in': { ...mock('false-sign-in'), doDetectSignIn: (screen) => (screen.includes(readyScreen) ? readyScreen : undefined) },
};
for (const provider of Object.values(noSignIn)) {
  testProvider({ provider, recording: withoutSignIn, behaviour: { startupTimeout: '3s', waitTimeout: '5s' } });
}
