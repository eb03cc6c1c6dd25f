/** The echo provider's facts, from the recorded screens and hook payloads. */
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type HookEvent, UmbelError } from '@umbel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import echo, { BUNDLED_AGENT, ECHO_HOOK_EVENTS } from './index.js';

const fixtures = join(import.meta.dirname, '__fixtures__');
const screen = (name: string) => readFile(join(fixtures, `screen-${name}.txt`), 'utf8');
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'echo-provider-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('doFindBinary', () => {
  it('UMBEL_ECHO_BIN, else echo-agent on PATH, else the bundled copy', async () => {
    const bin = join(scratch, 'bin');
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, 'echo-agent'), '#!/bin/sh\n');
    await chmod(join(bin, 'echo-agent'), 0o755);
    const find = echo.doFindBinary as NonNullable<typeof echo.doFindBinary>;
    expect(await find({ UMBEL_ECHO_BIN: join(bin, 'echo-agent'), PATH: '/nowhere' })).toBe(join(bin, 'echo-agent'));
    expect(await find({ UMBEL_ECHO_BIN: 'echo-agent', PATH: bin })).toBe(join(bin, 'echo-agent'));
    expect(await find({ PATH: `/nowhere:${bin}` })).toBe(join(bin, 'echo-agent'));
    expect(await find({ PATH: '/nowhere' })).toBe(BUNDLED_AGENT);
  });

  it('a UMBEL_ECHO_BIN that is not an executable file is a typed error naming it', async () => {
    await writeFile(join(scratch, 'not-executable'), '');
    const find = echo.doFindBinary as NonNullable<typeof echo.doFindBinary>;
    for (const value of [join(scratch, 'not-executable'), join(scratch, 'missing'), 'no-such-agent']) {
      const error = await find({ UMBEL_ECHO_BIN: value, PATH: '/nowhere' }).catch((e: unknown) => e);
      expect(UmbelError.isInstance(error), value).toBe(true);
      expect((error as Error).message).toContain(`'${value}' from UMBEL_ECHO_BIN`);
    }
  });
});

describe('doBuildLaunch', () => {
  it('passes the settings file with every hook, the session id, the model and --yes; never an env value', async () => {
    const launch = await echo.doBuildLaunch({
      worker: 'w1',
      cwd: '/work',
      model: 'echo-2',
      unattended: true,
      env: { HOME: '/home/u', SECRET: 'canary-never-on-argv' },
      callerEnv: { PATH: '/nowhere' },
      workerDir: '/state/workers/w1/provider',
      sharedDir: '/state/providers/echo',
      sessionId: 'sid-1',
      hookSinkPath: '/state/hooks/umbel-hook',
      hookCommand: (kind) => `/state/hooks/umbel-hook ${kind}`,
    });
    expect(launch.argv).toEqual([
      BUNDLED_AGENT,
      '--settings',
      '/state/workers/w1/provider/echo-settings.json',
      '--session-id',
      'sid-1',
      '--model',
      'echo-2',
      '--yes',
    ]);
    expect(launch.transcriptPath).toBe('/home/u/.echo-agent/sessions/sid-1.jsonl');
    const settings = JSON.parse(launch.files?.[0]?.content ?? '{}');
    expect(Object.keys(settings.hooks)).toEqual(Object.keys(ECHO_HOOK_EVENTS));
    expect(settings.hooks.Stop).toEqual(['/state/hooks/umbel-hook stop']);
    expect(JSON.stringify(launch)).not.toContain('canary-never-on-argv');
  });
});

describe('doParseEvent on the recorded payloads', () => {
  it('reads the session, the turn id, the answer, the error and the permission request', async () => {
    const kinds: Record<string, string> = ECHO_HOOK_EVENTS;
    const infos: Record<string, unknown>[] = [];
    for (const file of (await readdir(join(fixtures, 'hooks'))).sort()) {
      const payload = JSON.parse(await readFile(join(fixtures, 'hooks', file), 'utf8'));
      const event: HookEvent = { kind: kinds[payload.hook_event_name] as string, at: 1n, payload };
      infos.push({ kind: event.kind, ...echo.doParseEvent(event) });
    }
    expect(infos.map((i) => i.kind)).toEqual([
      'session',
      'prompt',
      'stop',
      'prompt',
      'stop-failure',
      'prompt',
      'permission',
      'stop',
      'prompt',
      'interrupt',
      'session-end',
    ]);
    expect(infos[0]).toMatchObject({
      sessionId: '00000000-0000-4000-8000-0000000ec400',
      transcriptPath: expect.stringMatching(/sessions\/00000000-0000-4000-8000-0000000ec400\.jsonl$/),
    });
    expect(infos[2]).toMatchObject({ turnKey: 'turn-1', lastMessage: 'echo: hello\nworld' });
    expect(infos[4]).toMatchObject({ turnKey: 'turn-2', error: 'simulated API error: boom' });
    expect(infos[6]).toMatchObject({
      turnKey: 'turn-3',
      needsInput: { kind: 'permission', tool: 'write_file', message: 'echo-agent wants to write notes.txt' },
    });
  });
});

describe('screens', () => {
  it('reads the input line, sees the permission question, and no input box on a dialog', async () => {
    expect(echo.doReadInputBox?.(await screen('ready'))).toBe('');
    expect(echo.doReadInputBox?.(await screen('typed'))).toBe('draft');
    expect(echo.doReadInputBox?.(await screen('trust'))).toBeUndefined();
    expect(echo.doDetectInputPrompt?.(await screen('asking'))).toBe(true);
    expect(echo.doDetectInputPrompt?.(await screen('busy'))).toBe(false);
    expect(echo.doDetectSignIn?.(await screen('signed-out'))).toMatch(/^Signed out\. Run `echo-agent login`/);
    expect(echo.doDetectSignIn?.(await screen('ready'))).toBeUndefined();
    expect(echo.doDetectStartup({ screen: await screen('trust'), events: [] })).toEqual({ state: 'dialog', id: 'trust', keys: ['y'] });
  });
});
