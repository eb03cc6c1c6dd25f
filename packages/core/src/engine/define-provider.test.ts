import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUmbel } from './engine.js';
import { UmbelError, UsageError } from '../contract/errors.js';
import type { HookKind, ProviderV1LaunchOptions } from '@umbel/provider';
import { createMemorySubstrate, type MemorySubstrate, readMockTurn } from '../testing/index.js';
import { defineProvider, modeFlags, type ProviderFacts } from '@umbel/provider';

let dir: string;
let bin: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'umbel-kit-define-'));
  bin = join(dir, 'mock-cli');
  await writeFile(bin, '#!/bin/sh\nexit 0\n');
  await chmod(bin, 0o755);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

/** The facts of the memory substrate's mock CLI (testing/memory-substrate.ts), written on the kit. */
function mockFacts(over: Partial<ProviderFacts> = {}): ProviderFacts {
  return {
    id: 'mock',
    displayName: 'Mock CLI',
    verifiedVersions: ['1.0.0'],
    binary: { name: 'mock-cli', install: 'it ships with @umbel/core/testing' },
    env: { inherit: ['MOCK_API_KEY'], hostMarkers: ['MOCK_PARENT'], unset: ['CI'], set: { MOCK_NO_UPDATE: '1' } },
    flags: { model: '--model', permissionModes: modeFlags('--mode', ['default', 'bypass'], ['default']), unattended: 'bypass' },
    hooks: {
      events: { Start: 'session', Submit: 'prompt', Done: 'stop', Failed: 'stop-failure', Ask: 'permission' },
      install: ({ launch, hooks }) => {
        const transcriptPath = join(launch.workerDir, 'transcript.jsonl');
        const byKind = Object.fromEntries(hooks.map((h) => [h.kind, h.command]));
        return { args: ['--transcript', transcriptPath], env: { MOCK_CLI_HOOKS: JSON.stringify(byKind) }, transcriptPath };
      },
    },
    screens: {
      fatal: [{ match: /FATAL: (.*)/, message: (line) => `mock-cli refused: ${line}` }],
      signIn: [/Please sign in/],
      dialogs: [{ id: 'trust', match: /Trust this folder\? \[y\/N\]/, keys: ['y'] }],
      ready: { hook: 'session', inputBox: true },
      inputPrompt: /Allow \S+\? 1\. Yes/,
      inputBox: { start: /^mock> (.*)$/, clearKeys: ['C-u'] },
    },
    input: { confirmTimeoutMs: 400, maxSubmitRetries: 2 },
    prompt: { escapeLeading: ['/'] },
    payload: {
      sessionId: 'session_id',
      transcriptPath: 'transcript_path',
      turnKey: 'key',
      lastMessage: { stop: 'last' },
      error: { fields: ['error'], fallback: 'mock-cli failed' },
      needsInput: (_event, p) => ({ kind: 'permission', ...(typeof p.tool === 'string' ? { tool: p.tool } : {}) }),
    },
    transcript: {
      read: (options) => {
        const read = readMockTurn(options);
        return read.status === 'completed' ? { ...read, tokenUsage: { inputTokens: 3, outputTokens: 1 } } : read;
      },
    },
    ...over,
  };
}

function launchOptions(over: Partial<ProviderV1LaunchOptions> = {}): ProviderV1LaunchOptions {
  return {
    worker: 'w',
    cwd: dir,
    unattended: false,
    env: {},
    callerEnv: { PATH: '/nonexistent', UMBEL_MOCK_BIN: bin },
    workerDir: join(dir, 'worker'),
    sharedDir: join(dir, 'shared'),
    sessionId: 'sid',
    hookCommand: (kind: HookKind) => `sink ${kind}`,
    hookSinkPath: 'sink',
    ...over,
  };
}

describe('defineProvider: the compiled ProviderV1', () => {
  const provider = () => defineProvider(mockFacts());

  it('derives capabilities from the flag mapping, inherits names one by one, keeps the verified versions', () => {
    const p = provider();
    expect(p.specificationVersion).toBe('umbel-provider-v1');
    expect(p.capabilities).toEqual({ unattended: true, allowedTools: false, appendSystemPrompt: false, permissionModes: ['default', 'bypass'], model: true });
    expect(p.inheritEnv).toEqual(['MOCK_API_KEY']);
    expect(p.verifiedVersions).toEqual(['1.0.0']);
    expect(p.input).toEqual({ confirmTimeoutMs: 400, maxSubmitRetries: 2, clearKeys: ['C-u'] });
  });

  it('builds the launch: the executable by the one rule, hook args first, then flags; env set, markers removed', async () => {
    const p = provider();
    const launch = await p.doBuildLaunch(launchOptions({ model: 'm1', unattended: true }));
    expect(launch.argv).toEqual([bin, '--transcript', join(dir, 'worker', 'transcript.jsonl'), '--model', 'm1', '--mode', 'bypass']);
    expect(launch.env).toEqual({ MOCK_NO_UPDATE: '1', MOCK_CLI_HOOKS: expect.stringContaining('"stop":"sink stop"') });
    expect(launch.unsetEnv).toEqual(['MOCK_PARENT', 'CI']);
    expect(launch.transcriptPath).toBe(join(dir, 'worker', 'transcript.jsonl'));
    const explicit = await p.doBuildLaunch(launchOptions({ unattended: true, permissionMode: 'default' }));
    expect(explicit.argv).toEqual([bin, '--transcript', join(dir, 'worker', 'transcript.jsonl')]);
    expect(await p.doFindBinary?.({ UMBEL_MOCK_BIN: bin })).toBe(bin);
    await expect(p.doBuildLaunch(launchOptions({ callerEnv: { PATH: '/nonexistent' } }))).rejects.toMatchObject({ code: 'UMBEL_SPAWN_FAILED' });
  });

  it('classifies screens in the order fatal, sign-in, dialog, ready, starting', () => {
    const p = provider();
    const session = [{ kind: 'session', at: 1n, payload: {} }];
    expect(p.doDetectStartup({ screen: 'Please sign in\nFATAL: no config', events: session })).toEqual({
      state: 'fatal',
      message: 'mock-cli refused: FATAL: no config',
    });
    expect(p.doDetectStartup({ screen: '│ Please sign in │\nTrust this folder? [y/N]', events: session })).toEqual({
      state: 'sign-in',
      line: 'Please sign in',
    });
    expect(p.doDetectStartup({ screen: 'Trust this folder? [y/N]\nmock> ', events: session })).toEqual({ state: 'dialog', id: 'trust', keys: ['y'] });
    expect(p.doDetectStartup({ screen: 'mock-cli v1\nmock> ', events: session })).toEqual({ state: 'ready' });
    expect(p.doDetectStartup({ screen: 'mock-cli v1\nmock> ', events: [] })).toEqual({ state: 'starting' });
    expect(p.doDetectStartup({ screen: 'mock-cli starting…', events: session })).toEqual({ state: 'starting' });
    expect(p.doDetectSignIn?.('x\n Please sign in ')).toBe('Please sign in');
    expect(p.doDetectInputPrompt?.('Allow Bash? 1. Yes 2. No')).toBe(true);
    expect(p.doDetectInputPrompt?.('mock> ')).toBe(false);
  });

  it('reads the input box nearest the bottom: text, empty, or no box', () => {
    const p = defineProvider(
      mockFacts({
        screens: {
          ...mockFacts().screens,
          inputBox: { start: /^› ?(.*)$/, above: /^$/, end: /^ {2}status/, empty: ['Ask anything', /^Try "/], clearKeys: ['C-c'] },
        },
      }),
    );
    expect(p.doReadInputBox?.('› old prompt\n\n› draft one\n  line two\n  status · /w')).toBe('draft one\nline two');
    expect(p.doReadInputBox?.('\n› Ask anything\n  status · /w')).toBe('');
    expect(p.doReadInputBox?.('\n› padded   \n  two   \n  status · /w')).toBe('padded\ntwo');
    expect(p.doReadInputBox?.('\n› an old box\n  status · /w\n\n› Ask anything\n  status · /w')).toBe('');
    expect(p.doReadInputBox?.('\n› Try "this"\n  status · /w')).toBe('');
    expect(p.doReadInputBox?.('\n› Ask anything more\n  status · /w')).toBe('Ask anything more');
    expect(p.doReadInputBox?.('\n› 1. Yes, proceed\n  2. No')).toBeUndefined();
    expect(p.doReadInputBox?.('text\n› not below a blank line\n  status')).toBeUndefined();
  });

  it('parses payloads by the field map', () => {
    const p = provider();
    expect(p.doParseEvent({ kind: 'prompt', at: 1n, payload: { session_id: 's', transcript_path: '/t', key: 'k1' } })).toEqual({
      sessionId: 's',
      transcriptPath: '/t',
      turnKey: 'k1',
    });
    expect(p.doParseEvent({ kind: 'stop', at: 1n, payload: { last: '' } })).toEqual({ lastMessage: '' });
    expect(p.doParseEvent({ kind: 'stop-failure', at: 1n, payload: {} })).toEqual({ error: 'mock-cli failed' });
    expect(p.doParseEvent({ kind: 'stop-failure', at: 1n, payload: { error: 'HTTP 500' } })).toEqual({ error: 'HTTP 500' });
    expect(p.doParseEvent({ kind: 'permission', at: 1n, payload: { tool: 'Bash' } })).toEqual({ needsInput: { kind: 'permission', tool: 'Bash' } });
    expect(p.doParseEvent({ kind: 'stop', at: 1n, payload: 'not json' })).toEqual({});
  });

  it('prepares prompts, and adds the legacy usage record to a typed one', () => {
    const p = provider();
    expect(p.doPreparePrompt?.('/cmd')).toBe(' /cmd');
    expect(p.doPreparePrompt?.('plain')).toBe('plain');
    const content = '{"type":"user","key":"k1","text":"hi"}\n{"type":"assistant","key":"k1","text":"yo"}\n{"type":"end","key":"k1"}\n';
    expect(p.doReadTurn({ content, transcriptPath: '/t', ordinal: 1, stopSeen: true })).toMatchObject({
      status: 'completed',
      answer: 'yo',
      tokenUsage: { inputTokens: 3, outputTokens: 1 },
      usage: { input_tokens: 3, output_tokens: 1 },
    });
  });

  it('applies prompt refusals, newline normalisation and trailing fixes in order', () => {
    const p = defineProvider(
      mockFacts({
        prompt: {
          normalizeNewlines: true,
          refuse: [{ match: /^\/[a-z]+(?=\s|$)/, message: (m) => `'${m}' would run as a command`, hint: () => 'put a word before it' }],
          escapeLeading: ['!'],
          trailing: [{ endsWith: '\\', append: '\n' }],
        },
      }),
    );
    expect(p.doPreparePrompt?.('a\r\nb\rc')).toBe('a\nb\nc');
    expect(p.doPreparePrompt?.('!ls')).toBe(' !ls');
    expect(p.doPreparePrompt?.('ends \\')).toBe('ends \\\n');
    expect(() => p.doPreparePrompt?.('  /about now')).toThrow(UsageError);
    expect(() => p.doPreparePrompt?.('/about')).toThrow("'/about' would run as a command");
    expect(p.doPreparePrompt?.('/tmp/x is a path')).toBe('/tmp/x is a path');
  });

  it('bills the API when one of its apiEnv names was passed and nothing better is known; unknown otherwise', () => {
    const plain = defineProvider(mockFacts({ billing: { apiEnv: ['PAID_KEY', 'PAID_TOKEN'] } }));
    expect(plain.doDetectBilling?.({ screen: '', envNames: ['HOME', 'PAID_TOKEN', 'PAID_KEY'] })).toEqual({
      billing: 'api',
      evidence: 'PAID_KEY, PAID_TOKEN passed',
    });
    expect(plain.doDetectBilling?.({ screen: '', envNames: ['HOME'] })).toEqual({ billing: 'unknown' });
    // a detect of its own decides first; its `unknown` (kept when no key was passed) falls back the same way
    const unsure = { billing: 'unknown', evidence: 'cannot tell' } as const;
    const detecting = defineProvider(
      mockFacts({
        billing: { apiEnv: ['PAID_KEY'], detect: ({ screen }) => (screen.includes('Plan') ? { billing: 'subscription', evidence: 'Plan' } : unsure) },
      }),
    );
    expect(detecting.doDetectBilling?.({ screen: 'Plan', envNames: ['PAID_KEY'] })).toEqual({ billing: 'subscription', evidence: 'Plan' });
    expect(detecting.doDetectBilling?.({ screen: '', envNames: ['PAID_KEY'] })).toEqual({ billing: 'api', evidence: 'PAID_KEY passed' });
    expect(detecting.doDetectBilling?.({ screen: '', envNames: [] })).toEqual(unsure);
    // what the launch found (a config that selects an API key) stands when nothing else is known
    expect(plain.doDetectBilling?.({ screen: '', envNames: [], launch: { billing: 'api', evidence: 'settings select the key' } })).toEqual({
      billing: 'api',
      evidence: 'settings select the key',
    });
  });

  it('refuses facts that cannot work, naming every problem', () => {
    const bad = mockFacts({
      id: 'Bad_Id',
      verifiedVersions: [],
      env: {
        inherit: ['OK_NAME', 'PREFIX_*', 'CLAUDECODE', 'MOCK_PARENT', 'PAID_KEY', 'OWNED_DIR'],
        hostMarkers: ['MOCK_PARENT'],
        owned: { 'OWN*': { what: 'x', hint: 'y' }, OWNED_DIR: { what: 'x', hint: 'y' } },
      },
      billing: { apiEnv: ['PAID_KEY', 'bad name'] },
      flags: { permissionModes: { default: [] }, unattended: 'yolo' },
      hooks: { events: { Start: 'session', Weird: 'nope' as HookKind }, install: () => ({}) },
      screens: { ready: {} },
    });
    let error: unknown;
    try {
      defineProvider(bad);
    } catch (e) {
      error = e;
    }
    expect(UmbelError.isInstance(error)).toBe(true);
    expect((error as UmbelError).code).toBe('UMBEL_PROVIDER_INVALID');
    const message = (error as Error).message;
    for (const part of [
      "id 'Bad_Id' is not kebab-case",
      'verifiedVersions is empty',
      "env.inherit 'PREFIX_*' is not one variable name",
      "env.inherit 'CLAUDECODE' is a host marker",
      "env.inherit 'MOCK_PARENT' is a host marker",
      "env.inherit 'PAID_KEY' switches the CLI to API billing",
      "env.owned 'OWN*' is not one variable name",
      "env.inherit 'OWNED_DIR' is owned by umbel",
      "billing variable 'bad name' is not one variable name",
      "hook kind 'nope'",
      "no hook event is delivered as 'prompt'",
      "no hook event is delivered as 'stop'",
      "flags.unattended 'yolo'",
      'screens.ready names nothing',
    ]) {
      expect(message).toContain(part);
    }
  });
});

describe('a kit-made provider through the engine (createUmbel + the memory substrate)', () => {
  let substrate: MemorySubstrate;
  beforeEach(() => {
    substrate = createMemorySubstrate();
  });
  afterEach(async () => {
    for (const name of await substrate.list()) await substrate.kill(name);
  });

  it('spawns past a dialog, sends, waits for the answer with its usage, and reports needs-input', async () => {
    const umbel = createUmbel({
      substrate,
      providers: [defineProvider(mockFacts())],
      home: join(dir, 'state'),
      env: { PATH: process.env.PATH, UMBEL_MOCK_BIN: bin },
    });
    expect(await umbel.spawn({ name: 'k1', provider: 'mock', cwd: dir, env: { MOCK_CLI_TRUST: '1' } })).toMatchObject({ state: 'ready' });
    await umbel.send({ name: 'k1', prompt: 'ECHO from the kit' });
    expect(await umbel.wait({ name: 'k1', timeout: '20s' })).toMatchObject({
      reason: 'completed',
      result: 'from the kit',
      usage: { inputTokens: 3, outputTokens: 1 },
    });
    await umbel.send({ name: 'k1', prompt: 'ASK Bash' });
    expect(await umbel.wait({ name: 'k1', timeout: '20s' })).toMatchObject({ reason: 'needs-input', inputKind: 'permission', tool: 'Bash' });
    await expect(umbel.spawn({ name: 'k2', provider: 'mock', cwd: dir, env: { MOCK_CLI_SIGN_IN: '1' } })).rejects.toMatchObject({
      code: 'UMBEL_NOT_SIGNED_IN',
    });
  });
});

describe('billing through the engine (issue 17)', () => {
  let substrate: MemorySubstrate;
  beforeEach(() => {
    substrate = createMemorySubstrate();
  });
  afterEach(async () => {
    for (const name of await substrate.list()) await substrate.kill(name);
  });

  /** The mock CLI billing through MOCK_API_KEY (never inherited), or MOCK_PAID (seen only once ready). */
  const billed = () =>
    defineProvider(
      mockFacts({
        env: { inherit: ['MOCK_BASE_URL'], set: { MOCK_NO_UPDATE: '1' } },
        billing: {
          apiEnv: ['MOCK_API_KEY'],
          endpointEnv: ['MOCK_BASE_URL'],
          detect: ({ envNames }) =>
            envNames.includes('MOCK_API_KEY') || envNames.includes('MOCK_PAID')
              ? { billing: 'api', evidence: 'the mock bills its key' }
              : { billing: 'subscription', evidence: 'the mock login' },
        },
      }),
    );
  const engine = () =>
    createUmbel({
      substrate,
      providers: [billed()],
      home: join(dir, 'state'),
      env: { PATH: process.env.PATH, UMBEL_MOCK_BIN: bin, MOCK_API_KEY: 'sk-inherited-never', MOCK_BASE_URL: 'http://user:pw@127.0.0.1:9/v1?key=k' },
    });

  it('an API key in the caller env is not inherited: the worker bills the subscription; status shows the endpoint without credentials', async () => {
    const umbel = engine();
    const status = await umbel.spawn({ name: 'b1', provider: 'mock', cwd: dir, env: { MOCK_CLI_TRUST: '1' } });
    expect(status).toMatchObject({ state: 'ready', billing: 'subscription', billingEvidence: 'the mock login', endpoint: 'http://127.0.0.1:9/v1' });
    expect(JSON.stringify(await umbel.status({ name: 'b1' }))).not.toContain('sk-inherited-never');
    await umbel.send({ name: 'b1', prompt: 'ECHO hi' });
    expect(await umbel.wait({ name: 'b1', timeout: '20s' })).toMatchObject({ reason: 'completed', billing: 'subscription', billingEvidence: 'the mock login' });
  });

  it('passed by name the key reaches the worker, reported as api billing', async () => {
    const umbel = engine();
    const status = await umbel.spawn({ name: 'b2', provider: 'mock', cwd: dir, env: { MOCK_CLI_TRUST: '1', MOCK_API_KEY: { fromEnv: 'MOCK_API_KEY' } } });
    expect(status).toMatchObject({ billing: 'api', billingEvidence: 'the mock bills its key' });
    expect((await umbel.list()).map((w) => w.billing)).toEqual(['api']);
  });

  it('billing subscription refuses a passed key before launching, and a worker found billing the API once ready; nothing is left', async () => {
    const umbel = engine();
    const key = { MOCK_CLI_TRUST: '1', MOCK_API_KEY: { fromEnv: 'MOCK_API_KEY' } };
    await expect(umbel.spawn({ name: 'b3', provider: 'mock', cwd: dir, env: key, billing: 'subscription' })).rejects.toMatchObject({
      code: 'UMBEL_BILLING_REFUSED',
      message: expect.stringContaining('MOCK_API_KEY passed to the worker'),
    });
    await expect(
      umbel.spawn({ name: 'b4', provider: 'mock', cwd: dir, env: { MOCK_CLI_TRUST: '1', MOCK_PAID: '1' }, billing: 'subscription' }),
    ).rejects.toMatchObject({
      code: 'UMBEL_BILLING_REFUSED',
      message: expect.stringContaining('the mock bills its key'),
    });
    expect(await umbel.list()).toEqual([]);
    expect(await substrate.list()).toEqual([]);
    expect(await umbel.spawn({ name: 'b5', provider: 'mock', cwd: dir, env: { MOCK_CLI_TRUST: '1' }, billing: 'subscription' })).toMatchObject({
      billing: 'subscription',
    });
  });

  it("a provider's own sign-in hint (screens.signInHint) replaces umbel's generic one", async () => {
    const hint = 'run `mock-cli login` once in a terminal';
    const own = defineProvider(mockFacts({ screens: { ...mockFacts().screens, signInHint: hint } }));
    expect(own.signInHint).toBe(hint);
    const umbel = createUmbel({ substrate, providers: [own], home: join(dir, 'state'), env: { PATH: process.env.PATH, UMBEL_MOCK_BIN: bin } });
    const error = await umbel.spawn({ name: 'h1', provider: 'mock', cwd: dir, env: { MOCK_CLI_SIGN_IN: '1' } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UMBEL_NOT_SIGNED_IN', hint: expect.stringContaining(hint) });
    expect((error as Error & { hint: string }).hint).not.toMatch(/API key|--env/);
  });

  it('a sign-in screen names the variables that bill the API on purpose', async () => {
    await expect(engine().spawn({ name: 'b6', provider: 'mock', cwd: dir, env: { MOCK_CLI_SIGN_IN: '1' } })).rejects.toMatchObject({
      code: 'UMBEL_NOT_SIGNED_IN',
      hint: expect.stringContaining('--env MOCK_API_KEY to bill the API on purpose'),
    });
  });

  it('a dialog fact with ifEnv/unlessEnv applies only with/without the variable in the worker env', () => {
    const p = defineProvider(
      mockFacts({
        screens: {
          dialogs: [
            { id: 'key', match: /Use key\?/, keys: ['y'], ifEnv: ['MOCK_API_KEY'] },
            { id: 'key', match: /Use key\?/, keys: ['n'], unlessEnv: ['MOCK_API_KEY'] },
          ],
          ready: { screen: /mock>/ },
        },
      }),
    );
    expect(p.doDetectStartup({ screen: 'Use key?', events: [], envNames: ['MOCK_API_KEY'] })).toMatchObject({ keys: ['y'] });
    expect(p.doDetectStartup({ screen: 'Use key?', events: [], envNames: ['HOME'] })).toMatchObject({ keys: ['n'] });
    expect(p.doDetectStartup({ screen: 'Use key?', events: [] })).toMatchObject({ keys: ['n'] });
  });
});
