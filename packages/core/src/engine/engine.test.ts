import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUmbel } from './engine.js';
import { UmbelError } from '../contract/errors.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';
import type { Umbel } from '../contract/umbel.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
let umbel: Umbel;
const callerEnv = { PATH: process.env.PATH, HOME: '/nonexistent-home', MOCK_API_KEY: 'inherited-key', UNRELATED_SECRET: 'must-not-pass' };

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-engine-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-work-'));
  substrate = createMemorySubstrate();
  umbel = createUmbel({ substrate, providers: [createMockProvider()], home, env: callerEnv });
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (UmbelError.isInstance(error)) return error.code;
    throw error;
  }
  return 'no error';
}

const spawnMock = (extra: Record<string, unknown> = {}) => umbel.spawn({ name: 'w1', provider: 'mock', cwd: work, ...extra });

describe('spawn → send → wait → read', () => {
  it('returns the exact answer from the transcript, turn by turn', async () => {
    const status = await spawnMock();
    expect(status).toMatchObject({ name: 'w1', provider: 'mock', state: 'ready', alive: true });
    expect(await umbel.send({ name: 'w1', prompt: 'ECHO first\nline two' })).toEqual({ worker: 'w1', turn: 1 });
    const one = await umbel.wait({ name: 'w1', timeout: '10s' });
    expect(one).toMatchObject({ reason: 'completed', exitCode: 0, result: 'first\nline two', turn: 1 });
    await umbel.send({ name: 'w1', prompt: 'ECHO second' });
    expect((await umbel.wait({ name: 'w1' })).result).toBe('second');
    expect((await umbel.read({ name: 'w1', turn: 1 })).result).toBe('first\nline two');
    expect((await umbel.read({ name: 'w1' })).result).toBe('second');
    expect(await umbel.status({ name: 'w1' })).toMatchObject({ state: 'ready', turn: 2, completedTurn: 2 });
  });

  it('waits for the transcript when the stop hook fires before the answer lands', async () => {
    await spawnMock({ env: { MOCK_CLI_LATE_MS: '400' } });
    await umbel.send({ name: 'w1', prompt: 'ECHO late answer' });
    const outcome = await umbel.wait({ name: 'w1', timeout: '10s' });
    expect(outcome).toMatchObject({ reason: 'completed', result: 'late answer' });
    expect(outcome.message).toBeUndefined();
  });

  it('re-presses a swallowed Enter, and refuses with a typed error when the prompt is never confirmed', async () => {
    await spawnMock({ env: { MOCK_CLI_DROP_ENTERS: '1' } });
    await umbel.send({ name: 'w1', prompt: 'ECHO after a dropped enter' });
    expect((await umbel.wait({ name: 'w1' })).result).toBe('after a dropped enter');
    await umbel.spawn({ name: 'w2', provider: 'mock', cwd: work, env: { MOCK_CLI_DROP_ENTERS: '50' } });
    expect(await code(umbel.send({ name: 'w2', prompt: 'ECHO never' }))).toBe('UMBEL_SEND_NOT_SUBMITTED');
    expect((await umbel.status({ name: 'w2' })).alive).toBe(true);
  });
});

describe('outcomes', () => {
  it('needs-input on a permission prompt; keys answer it and the turn completes', async () => {
    await spawnMock();
    await umbel.send({ name: 'w1', prompt: 'ASK Bash' });
    const blocked = await umbel.wait({ name: 'w1', timeout: '10s' });
    expect(blocked).toMatchObject({ reason: 'needs-input', exitCode: 126, inputKind: 'permission', tool: 'Bash' });
    expect((await umbel.status({ name: 'w1' })).state).toBe('needs-input');
    await umbel.keys({ name: 'w1', keys: ['1'] });
    expect(await umbel.wait({ name: 'w1', timeout: '10s' })).toMatchObject({ reason: 'completed', result: 'approved Bash' });
    // Keys pressed on a pending prompt count as its answer for status too.
    await umbel.spawn({ name: 'w2', provider: 'mock', cwd: work });
    await umbel.send({ name: 'w2', prompt: 'ASK Edit' });
    expect((await umbel.wait({ name: 'w2' })).reason).toBe('needs-input');
    await umbel.keys({ name: 'w2', keys: ['Escape'] });
    expect((await umbel.status({ name: 'w2' })).state).toBe('busy');
  });

  it('needs-input waits until the prompt is on screen, so keys pressed at once reach it', async () => {
    // Like codex: the permission hook fires, and the approval prompt is drawn (and takes keys) later.
    await spawnMock({ env: { MOCK_CLI_PROMPT_LATE_MS: '300' } });
    await umbel.send({ name: 'w1', prompt: 'ASK Bash' });
    const blocked = await umbel.wait({ name: 'w1', timeout: '10s' });
    expect(blocked).toMatchObject({ reason: 'needs-input', inputKind: 'permission' });
    expect(blocked.paneTail).toContain('Allow Bash? 1. Yes');
    await umbel.keys({ name: 'w1', keys: ['1'] });
    expect(await umbel.wait({ name: 'w1', timeout: '5s' })).toMatchObject({ reason: 'completed', result: 'approved Bash' });
  });

  it('needs-input is still reported when the prompt never shows on screen (bounded look)', async () => {
    await spawnMock({ env: { MOCK_CLI_PROMPT_LATE_MS: '60000' } });
    await umbel.send({ name: 'w1', prompt: 'ASK Bash' });
    const blocked = await umbel.wait({ name: 'w1', timeout: '20s' });
    expect(blocked).toMatchObject({ reason: 'needs-input', inputKind: 'permission', tool: 'Bash' });
    expect(blocked.paneTail).not.toContain('Allow Bash?');
    // the look never outlasts the caller's timeout: a short wait still says what the worker waits for
    expect(await umbel.wait({ name: 'w1', timeout: '500ms' })).toMatchObject({ reason: 'needs-input', inputKind: 'permission' });
  });

  it('provider-error from a stop-failure hook and from the transcript alone', async () => {
    await spawnMock();
    await umbel.send({ name: 'w1', prompt: 'FAIL API Error: 500 boom' });
    expect(await umbel.wait({ name: 'w1' })).toMatchObject({ reason: 'provider-error', exitCode: 122, message: 'API Error: 500 boom' });
    await umbel.send({ name: 'w1', prompt: 'SILENTFAIL stream disconnected' });
    expect(await umbel.wait({ name: 'w1' })).toMatchObject({ reason: 'provider-error', message: 'stream disconnected' });
    // That turn fired no hook: the next turn's stop must not be taken for it.
    await umbel.send({ name: 'w1', prompt: 'ECHO after the silent failure' });
    expect(await umbel.wait({ name: 'w1', timeout: '10s' })).toMatchObject({ reason: 'completed', result: 'after the silent failure', turn: 3 });
    expect(await umbel.status({ name: 'w1' })).toMatchObject({ state: 'ready', turn: 3, completedTurn: 3 });
  });

  it('dead with the exit status, or the signal, and evidence', async () => {
    await spawnMock();
    await umbel.send({ name: 'w1', prompt: 'DIE 3' });
    const dead = await umbel.wait({ name: 'w1', timeout: '10s' });
    expect(dead).toMatchObject({ reason: 'dead', exitCode: 125, exit: { status: 3 } });
    expect(dead.message).toContain('process exited 3');
    // Evidence is what the CLI showed, its last non-blank lines: never the host's blank rows or status line.
    expect(dead.paneTail?.split('\n').slice(-2)).toEqual(['> DIE 3', 'mock-cli: exiting with status 3']);
    expect(dead.paneTail).not.toMatch(/^\s*$/m);
    await umbel.kill({ name: 'w1' });
    const saved = await umbel.capture({ name: 'w1' });
    expect(saved).toMatchObject({ live: false });
    expect(saved.text.split('\n').at(-1)).toBe('mock-cli: exiting with status 3');
    expect(saved.text).not.toMatch(/^\s*$/m);
    await umbel.spawn({ name: 'w2', provider: 'mock', cwd: work });
    await umbel.send({ name: 'w2', prompt: 'HANG' });
    const pending = umbel.wait({ name: 'w2', timeout: '30s' });
    await substrate.crash('umbel-w2', { signal: 'SIGKILL' });
    expect(await pending).toMatchObject({ reason: 'dead', exit: { signal: 'SIGKILL' } });
    expect(await umbel.status({ name: 'w2' })).toMatchObject({ state: 'dead', alive: false, exit: { signal: 'SIGKILL' } });
  });

  it('timeout with the pane tail; aborted on cancel; idle when nothing moves', async () => {
    await spawnMock();
    await umbel.send({ name: 'w1', prompt: 'HANG' });
    const t = await umbel.wait({ name: 'w1', timeout: '300ms' });
    expect(t).toMatchObject({ reason: 'timeout', exitCode: 124 });
    expect(t.paneTail).toContain('> HANG');
    const controller = new AbortController();
    const pending = umbel.wait({ name: 'w1', timeout: '30s' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    expect(await pending).toMatchObject({ reason: 'aborted', exitCode: 130 });
    expect((await umbel.status({ name: 'w1' })).alive).toBe(true);
    expect(await umbel.wait({ name: 'w1', timeout: '30s', idleTimeout: '600ms' })).toMatchObject({ reason: 'idle', exitCode: 123 });
  });

  it("the idle net asks the provider for its activity dirs with the transcript and the CLI's session id (Gemini names its subagents' dir by it)", async () => {
    const asked: [string, string | undefined][] = [];
    const provider = {
      ...createMockProvider(),
      doFindActivityDirs: (transcriptPath: string, sessionId?: string) => {
        asked.push([transcriptPath, sessionId]);
        return [];
      },
    };
    umbel = createUmbel({ substrate, providers: [provider], home, env: callerEnv });
    await spawnMock();
    await umbel.send({ name: 'w1', prompt: 'HANG' });
    const idle = await umbel.wait({ name: 'w1', timeout: '30s', idleTimeout: '600ms' });
    expect(idle).toMatchObject({ reason: 'idle' });
    expect(idle.sessionId).toBeTypeOf('string');
    expect(asked).toContainEqual([idle.transcriptPath, idle.sessionId]);
  });

  it('a hung substrate cannot hold a wait past its deadline', async () => {
    await spawnMock();
    await umbel.send({ name: 'w1', prompt: 'HANG' });
    substrate.hang = true;
    const outcome = await umbel.wait({ name: 'w1', timeout: '200ms' });
    substrate.hang = false;
    expect(outcome.reason).toBe('timeout');
  });
});

describe('plan usage a turn recorded (quota)', () => {
  const iso = (s: number) => new Date(s * 1000).toISOString();
  const eventsDir = () => join(home, 'workers', 'w1', 'events');
  const quotaEvents = async () => (await readdir(eventsDir())).filter((f) => f.endsWith('-quota.json'));

  it('a completed turn: in the outcome and in status (from the ledger), recorded once however often it is waited for', async () => {
    await spawnMock();
    expect((await umbel.status({ name: 'w1' })).quota).toBeUndefined();
    await umbel.send({ name: 'w1', prompt: 'USAGE 5h=42@1800000000 7d=13@1800600000 ECHO with usage' });
    const outcome = await umbel.wait({ name: 'w1', timeout: '10s' });
    const expected = { fiveHour: { usedPercent: 42, resetsAt: iso(1800000000) }, sevenDay: { usedPercent: 13, resetsAt: iso(1800600000) } };
    expect(outcome).toMatchObject({ reason: 'completed', result: 'with usage', quota: expected });
    expect((await umbel.status({ name: 'w1' })).quota).toMatchObject(expected);
    expect((await umbel.list())[0]?.quota).toMatchObject(expected);
    expect(await umbel.wait({ name: 'w1', turn: 1 })).toMatchObject({ quota: expected });
    expect(await quotaEvents()).toHaveLength(1);
  });

  it('failed turns carry it too (hook and transcript-only failures); a turn that reports none keeps the last', async () => {
    await spawnMock();
    await umbel.send({ name: 'w1', prompt: 'USAGE 5h=100@1800000000 LIMIT reset=2027-01-01T00:00:00.000Z plan limit' });
    const limited = await umbel.wait({ name: 'w1', timeout: '10s' });
    expect(limited).toMatchObject({ reason: 'rate-limited', quota: { fiveHour: { usedPercent: 100, resetsAt: iso(1800000000) } } });
    expect(limited.quota?.sevenDay).toBeUndefined();
    await umbel.send({ name: 'w1', prompt: 'USAGE 7d=55 SILENTFAIL broken' });
    const failed = await umbel.wait({ name: 'w1', timeout: '10s' });
    expect(failed).toMatchObject({ reason: 'provider-error', quota: { sevenDay: { usedPercent: 55 } } });
    expect(failed.quota?.fiveHour).toBeUndefined();
    await umbel.send({ name: 'w1', prompt: 'ECHO no usage' });
    expect((await umbel.wait({ name: 'w1', timeout: '10s' })).quota).toMatchObject({ sevenDay: { usedPercent: 55 } });
    expect(await quotaEvents()).toHaveLength(2);
  });

  it('no quota in the transcript: absent everywhere, never an empty object', async () => {
    await spawnMock();
    await umbel.send({ name: 'w1', prompt: 'ECHO plain' });
    expect(await umbel.wait({ name: 'w1', timeout: '10s' })).not.toHaveProperty('quota');
    expect(await umbel.status({ name: 'w1' })).not.toHaveProperty('quota');
    expect(await quotaEvents()).toHaveLength(0);
  });

  it('newest wins: a later wait on an older turn does not replace a newer reading', async () => {
    await spawnMock();
    await umbel.send({ name: 'w1', prompt: 'USAGE 5h=10@1800000000 ECHO one' });
    await umbel.send({ name: 'w1', prompt: 'USAGE 5h=20@1800000000 ECHO two' });
    expect(await umbel.wait({ name: 'w1', turn: 2, timeout: '10s' })).toMatchObject({ quota: { fiveHour: { usedPercent: 20 } } });
    expect(await umbel.wait({ name: 'w1', turn: 1, timeout: '10s' })).toMatchObject({ result: 'one', quota: { fiveHour: { usedPercent: 20 } } });
    expect((await umbel.status({ name: 'w1' })).quota).toMatchObject({ fiveHour: { usedPercent: 20 } });
  });

  it("newest wins between a hook's quota and a turn's", async () => {
    await spawnMock();
    await umbel.send({ name: 'w1', prompt: 'USAGE 5h=30@1800000000 ECHO one' });
    await umbel.wait({ name: 'w1', timeout: '10s' });
    // a later hook event (as Claude's statusLine input) carrying plan usage
    const ns = BigInt(Date.now() + 1000) * 1_000_000n;
    await writeFile(join(eventsDir(), `${ns}-1-notify.json`), JSON.stringify({ quota: { fiveHour: { usedPercent: 31 } } }));
    expect((await umbel.status({ name: 'w1' })).quota).toMatchObject({ fiveHour: { usedPercent: 31 } });
  });
});

describe('after a usage limit', () => {
  const RESET = '2030-01-04T10:20:00.000Z';
  const until = async (what: () => Promise<boolean>) => {
    for (let i = 0; i < 500 && !(await what()); i++) await new Promise((r) => setTimeout(r, 10));
    return what();
  };

  it('a blocking limit dialog: wait rate-limited, status needs-input, send refused (nothing typed) until keys answer it', async () => {
    await spawnMock();
    await umbel.send({ name: 'w1', prompt: `LIMIT reset=${RESET} after=dialog You've hit your weekly limit` });
    expect(await umbel.wait({ name: 'w1', timeout: '10s' })).toMatchObject({ reason: 'rate-limited', exitCode: 118, resetsAt: RESET, turn: 1 });
    expect(await umbel.status({ name: 'w1' })).toMatchObject({
      state: 'needs-input',
      needsInput: { kind: 'rate-limited', message: 'Usage limit reached. What now?' },
    });
    expect((await umbel.list()).find((w) => w.name === 'w1')).toMatchObject({ state: 'needs-input' });
    let refused: unknown;
    await umbel.send({ name: 'w1', prompt: 'ECHO blocked' }).catch((error) => (refused = error));
    expect(UmbelError.isInstance(refused) && refused.code).toBe('UMBEL_ACCOUNT_DIALOG');
    expect(UmbelError.isInstance(refused) && refused.hint).toContain('umbel keys w1 ');
    expect((await umbel.capture({ name: 'w1' })).text).not.toContain('blocked');
    expect(await umbel.status({ name: 'w1' })).toMatchObject({ turn: 1 });
    await umbel.keys({ name: 'w1', keys: ['1'] });
    expect(await umbel.status({ name: 'w1' })).toMatchObject({ state: 'ready' });
    await umbel.send({ name: 'w1', prompt: 'ECHO after the dialog' });
    expect(await umbel.wait({ name: 'w1', timeout: '10s' })).toMatchObject({ reason: 'completed', result: 'after the dialog', turn: 2 });
  });

  it('continues by itself at the reset: busy, then idle; a wait with no new send gets its answer; the next send gets its own', async () => {
    await spawnMock();
    await umbel.send({ name: 'w1', prompt: `LIMIT reset=${RESET} after=200 You've hit your 5-hour limit` });
    expect(await umbel.wait({ name: 'w1', timeout: '10s' })).toMatchObject({ reason: 'rate-limited', turn: 1 });
    expect(await until(async () => (await umbel.status({ name: 'w1' })).state === 'busy')).toBe(true);
    const continued = await umbel.wait({ name: 'w1', timeout: '10s' });
    expect(continued).toMatchObject({ reason: 'completed', result: 'continued', turn: 1 });
    expect(await umbel.status({ name: 'w1' })).toMatchObject({ state: 'ready', turn: 1, completedTurn: 1 });
    expect((await umbel.read({ name: 'w1' })).result).toBe('continued');
    await umbel.send({ name: 'w1', prompt: 'ECHO next' });
    expect(await umbel.wait({ name: 'w1', timeout: '10s' })).toMatchObject({ reason: 'completed', result: 'next', turn: 2 });
    expect((await umbel.read({ name: 'w1', turn: 1 })).result).toBe('continued');
  });

  it('a prompt sent while the continuation runs gets its own answer (the turns are credited by key)', async () => {
    await spawnMock();
    await umbel.send({ name: 'w1', prompt: `LIMIT reset=${RESET} after=100 limit` });
    await umbel.wait({ name: 'w1', timeout: '10s' });
    expect(await until(async () => (await umbel.status({ name: 'w1' })).state === 'busy')).toBe(true);
    await umbel.send({ name: 'w1', prompt: 'ECHO queued' });
    expect(await umbel.wait({ name: 'w1', turn: 1, timeout: '10s' })).toMatchObject({ reason: 'completed', result: 'continued' });
    expect(await umbel.wait({ name: 'w1', turn: 2, timeout: '10s' })).toMatchObject({ reason: 'completed', result: 'queued' });
  });
});

describe('startup', () => {
  it('handles a dialog, refuses a sign-in screen (126) and leaves nothing behind', async () => {
    expect((await umbel.spawn({ name: 'trusting', provider: 'mock', cwd: work, env: { MOCK_CLI_TRUST: '1' } })).state).toBe('ready');
    const error = await umbel.spawn({ name: 'signin', provider: 'mock', cwd: work, env: { MOCK_CLI_SIGN_IN: '1' } }).catch((e) => e);
    expect(error).toMatchObject({ code: 'UMBEL_NOT_SIGNED_IN', screenLine: 'Please sign in' });
    expect(await readdir(join(home, 'workers'))).toEqual(['trusting']);
    expect(await substrate.list()).toEqual(['umbel-trusting']);
    expect(await code(umbel.spawn({ name: 'fatal', provider: 'mock', cwd: work, env: { MOCK_CLI_FATAL: 'broken config' } }))).toBe('UMBEL_SPAWN_FAILED');
    const early = await umbel.spawn({ name: 'early', provider: 'mock', cwd: work, env: { MOCK_CLI_EXIT_AT_START: '7' } }).catch((e) => e);
    expect(early.message).toContain('exited during startup (process exited 7)');
    // …and says what the CLI printed last, for every face (MCP and --json show the message, not the screen).
    expect(early.message).toContain('mock-cli: exiting with status 7');
    expect(early.paneTail).not.toMatch(/^\s*$/m);
    expect(await readdir(join(home, 'workers'))).toEqual(['trusting']);
  });
});

describe('bad input', () => {
  it('maps every bad input to its typed error and leaves nothing behind', async () => {
    expect(await code(umbel.spawn({ name: 'Bad_Name', provider: 'mock', cwd: work }))).toBe('UMBEL_USAGE');
    expect(await code(umbel.spawn({ name: 'x', provider: 'mock', cwd: join(work, 'missing') }))).toBe('UMBEL_CWD_MISSING');
    expect(await code(umbel.spawn({ name: 'x', provider: 'nope', cwd: work }))).toBe('UMBEL_PROVIDER_UNKNOWN');
    expect(await code(umbel.spawn({ name: 'x', provider: 'mock', cwd: work, env: { K: { fromEnv: 'NOT_SET_ANYWHERE' } } }))).toBe('UMBEL_ENV_UNRESOLVED');
    expect(await code(umbel.spawn({ name: 'x', provider: 'mock', cwd: work, allowedTools: 'Bash' }))).toBe('UMBEL_OPTION_UNSUPPORTED');
    expect(substrate.launches).toHaveLength(0);
    await spawnMock();
    // --model to a provider that declares no model support: refused like any unsupported option, never dropped.
    const noModel = createUmbel({ substrate, providers: [createMockProvider({ providerId: 'nomodel', model: false })], home, env: callerEnv });
    await expect(noModel.spawn({ name: 'm1', provider: 'nomodel', cwd: work, model: 'big' })).rejects.toMatchObject({
      code: 'UMBEL_OPTION_UNSUPPORTED',
      message: expect.stringMatching(/--model/),
    });
    expect(substrate.launches).toHaveLength(1);
    expect(await code(spawnMock())).toBe('UMBEL_WORKER_EXISTS');
    expect(await code(umbel.send({ name: 'ghost', prompt: 'hi' }))).toBe('UMBEL_WORKER_NOT_FOUND');
    expect(await code(umbel.wait({ name: 'ghost' }))).toBe('UMBEL_WORKER_NOT_FOUND');
    expect(await code(umbel.status({ name: 'ghost' }))).toBe('UMBEL_WORKER_NOT_FOUND');
    expect(await code(umbel.wait({ name: 'w1' }))).toBe('UMBEL_TURN_NOT_FOUND');
    expect(await code(umbel.wait({ name: 'w1', timeout: 'soon' }))).toBe('UMBEL_USAGE');
    await umbel.send({ name: 'w1', prompt: 'DIE 1' });
    await umbel.wait({ name: 'w1' });
    expect(await code(umbel.send({ name: 'w1', prompt: 'hi' }))).toBe('UMBEL_WORKER_DEAD');
    expect(await readdir(join(home, 'workers'))).toEqual(['w1']);
  });

  it("spawn's first host call is the launch; a session of that name already on the host (not a worker's) is refused and left running", async () => {
    const calls: string[] = [];
    for (const method of ['inspect', 'launch', 'capture'] as const) {
      const real = substrate[method].bind(substrate) as (arg: never) => Promise<unknown>;
      (substrate as unknown as Record<string, unknown>)[method] = (arg: never) => {
        calls.push(method);
        return real(arg);
      };
    }
    await spawnMock();
    // the launch itself refuses a duplicate (no inspect before it), and the host just answered for
    // the session: startup's first call looks at the screen (no inspect after it either)
    expect(calls.slice(0, 2)).toEqual(['launch', 'capture']);
    await substrate.launch({ session: 'umbel-w2', cwd: work, argv: ['mock-cli'], env: {}, exitRecordDir: work });
    expect(await code(umbel.spawn({ name: 'w2', provider: 'mock', cwd: work }))).toBe('UMBEL_WORKER_EXISTS');
    expect((await substrate.inspect('umbel-w2')).dead).toBe(false);
    expect(await readdir(join(home, 'workers'))).toEqual(['w1']);
  });

  it('two spawns of one name race and exactly one wins', async () => {
    const results = await Promise.allSettled([spawnMock(), spawnMock(), spawnMock()]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await substrate.list()).toEqual(['umbel-w1']);
  });
});

describe('env and state', () => {
  it('passes only the allowlist, the provider names and explicit entries; never writes values to disk', async () => {
    await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work, env: { EXPLICIT: 'explicit-value', BYNAME: { fromEnv: 'UNRELATED_SECRET' } } });
    const env = substrate.launches[0]?.env ?? {};
    expect(env.MOCK_API_KEY).toBe('inherited-key');
    expect(env.EXPLICIT).toBe('explicit-value');
    expect(env.BYNAME).toBe('must-not-pass');
    expect(env.UNRELATED_SECRET).toBeUndefined();
    expect(substrate.launches[0]?.argv.join(' ')).not.toMatch(/inherited-key|explicit-value|must-not-pass/);
    const files = await readdir(home, { recursive: true });
    for (const file of files) {
      const text = await readFile(join(home, file), 'utf8').catch(() => '');
      expect(text, file).not.toMatch(/inherited-key|explicit-value|must-not-pass/);
    }
    const meta = JSON.parse(await readFile(join(home, 'workers/w1/meta.json'), 'utf8'));
    expect(meta.envNames).toContain('EXPLICIT');
  });

  it('kill leaves a tombstone that status, read and capture still see; purge and prune remove it', async () => {
    await spawnMock();
    await umbel.send({ name: 'w1', prompt: 'ECHO kept' });
    await umbel.wait({ name: 'w1' });
    expect(await umbel.kill({ name: 'w1' })).toEqual({ worker: 'w1', killed: true, purged: false });
    expect(await umbel.status({ name: 'w1' })).toMatchObject({ state: 'killed', alive: false });
    expect((await umbel.read({ name: 'w1' })).result).toBe('kept');
    expect(await umbel.capture({ name: 'w1' })).toMatchObject({ live: false });
    await umbel.spawn({ name: 'w2', provider: 'mock', cwd: work });
    expect(await umbel.prune()).toEqual({ removed: ['w1'], kept: 1 });
    expect(await code(umbel.status({ name: 'w1' }))).toBe('UMBEL_WORKER_NOT_FOUND');
    await umbel.kill({ name: 'w2', purge: true });
    expect(await readdir(join(home, 'workers'))).toEqual([]);
  });

  it('status of many workers while they write never reads a torn file', async () => {
    await Promise.all(Array.from({ length: 10 }, (_, i) => umbel.spawn({ name: `p${i}`, provider: 'mock', cwd: work })));
    await Promise.all(Array.from({ length: 10 }, (_, i) => umbel.send({ name: `p${i}`, prompt: `ECHO answer ${i}` })));
    const [outcomes, listing] = await Promise.all([Promise.all(Array.from({ length: 10 }, (_, i) => umbel.wait({ name: `p${i}` }))), umbel.list()]);
    expect(outcomes.map((o) => o.result)).toEqual(Array.from({ length: 10 }, (_, i) => `answer ${i}`));
    expect(listing).toHaveLength(10);
  });
});

describe('guardrail', () => {
  it('feeds a failing check back and accepts the retry', async () => {
    await spawnMock({ env: { MOCK_CLI_FIX: 'good answer' } });
    await umbel.send({ name: 'w1', prompt: 'ECHO bad answer' });
    const outcome = await umbel.wait({
      name: 'w1',
      check: 'grep -q good && echo fine || { echo "not good: $(cat "$UMBEL_ANSWER_FILE")"; exit 1; }',
      retries: 2,
    });
    expect(outcome).toMatchObject({ reason: 'completed', result: 'good answer', turn: 2 });
    expect(outcome.attempts?.map((a) => [a.accepted, a.checkExitCode])).toEqual([
      [false, 1],
      [true, 0],
    ]);
    expect(outcome.attempts?.[0]?.checkOutput).toContain('not good: bad answer');
    const history = await umbel.logs({ name: 'w1' });
    expect(
      history
        .filter((e) => e.kind === 'sent')
        .map((e) => e.summary)
        .join('\n'),
    ).toContain('rejected');
  });

  it('halts after N+1 rejected attempts with its own exit code', async () => {
    await spawnMock();
    await umbel.send({ name: 'w1', prompt: 'ECHO never right' });
    const outcome = await umbel.wait({ name: 'w1', check: 'exit 4', retries: 1 });
    expect(outcome).toMatchObject({ reason: 'guardrail-halted', exitCode: 127 });
    expect(outcome.attempts).toHaveLength(2);
  });

  it('validates JSON answers against a schema, fenced blocks included', async () => {
    const schema = join(work, 'schema.json');
    await writeFile(schema, JSON.stringify({ type: 'object', required: ['ok'], properties: { ok: { type: 'boolean' } } }));
    await spawnMock({ env: { MOCK_CLI_FIX: 'Here:\n```json\n{"ok": true}\n```' } });
    await umbel.send({ name: 'w1', prompt: 'ECHO {"ok": "yes"}' });
    const outcome = await umbel.wait({ name: 'w1', schema, retries: 1 });
    expect(outcome.reason).toBe('completed');
    expect(outcome.attempts?.[0]?.schemaErrors?.join()).toContain('/ok must be boolean');
    expect(await code(umbel.wait({ name: 'w1', schema: join(work, 'missing.json') }))).toBe('UMBEL_CHECK_INVALID');
  });
});

describe('guardrail schema drafts', () => {
  it('accepts a JSON Schema 2020-12 file', async () => {
    const schema = join(work, 'schema-2020.json');
    await writeFile(
      schema,
      JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', required: ['n'], properties: { n: { type: 'integer' } } }),
    );
    await spawnMock();
    await umbel.send({ name: 'w1', prompt: 'ECHO {"n": 3}' });
    expect(await umbel.wait({ name: 'w1', schema, retries: 0 })).toMatchObject({ reason: 'completed' });
  });
});
