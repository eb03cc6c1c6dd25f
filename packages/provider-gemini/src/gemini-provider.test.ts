import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HookEvent, HookKind, ProviderV1LaunchOptions } from '@umbel/core';
import { createUmbel, UmbelError, UsageError } from '@umbel/core';
import { createMemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGemini, GEMINI_INHERIT_ENV, GEMINI_UNSET_ENV, VERSION } from './index.js';
import { geminiBilling } from './facts.js';
import { buildWorkerSettings } from './home.js';

const prepareGeminiPrompt = (prompt: string) => createGemini().doPreparePrompt?.(prompt);

const hooks = JSON.parse(readFileSync(new URL('./__fixtures__/real-0.61.0-hooks.json', import.meta.url), 'utf8')) as {
  event: string;
  payload: Record<string, unknown>;
}[];

const KIND_OF: Record<string, string> = {
  SessionStart: 'session',
  BeforeAgent: 'prompt',
  AfterAgent: 'stop',
  Notification: 'notify',
  SessionEnd: 'session-end',
};
const event = (kind: string, payload: unknown): HookEvent => ({ kind, at: 1n, payload });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'umbel-gemini-test-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function fakeBin(): string {
  const binDir = join(dir, 'bin');
  mkdirSync(binDir, { recursive: true });
  const bin = join(binDir, 'gemini');
  writeFileSync(bin, '#!/bin/sh\nexit 0\n');
  chmodSync(bin, 0o755);
  return binDir;
}

function launchOptions(over: Partial<ProviderV1LaunchOptions> = {}): ProviderV1LaunchOptions {
  const binDir = fakeBin();
  return {
    worker: 'w1',
    cwd: join(dir, 'work'),
    unattended: false,
    env: { GEMINI_API_KEY: 'test' },
    callerEnv: { PATH: `/nonexistent:${binDir}`, HOME: join(dir, 'home') },
    workerDir: join(dir, 'state', 'workers', 'w1', 'provider'),
    sharedDir: join(dir, 'state', 'shared', 'gemini'),
    sessionId: '11111111-2222-4333-8444-555555555555',
    hookCommand: (kind: HookKind) => `'/state/hooks/umbel-hook' ${kind}`,
    hookSinkPath: '/state/hooks/umbel-hook',
    ...over,
  };
}

describe('provider shape', () => {
  it('reads its telemetry and settings beside the chat, and cancels a turn with Escape', () => {
    expect(createGemini().sideRecords).toEqual([
      { name: 'telemetry', path: 'telemetry.log', maxBytes: 4 << 20 },
      { name: 'settings', path: 'gemini-home/.gemini/settings.json' },
    ]);
    expect(createGemini().input?.cancelKeys).toEqual(['Escape']);
  });

  it('is a v1 provider with the gemini id and a version', () => {
    const p = createGemini();
    expect(p.specificationVersion).toBe('umbel-provider-v1');
    expect(p.providerId).toBe('gemini');
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(manifest.version);
    expect(p.capabilities.unattended).toBe(true);
    expect(p.capabilities.permissionModes).toEqual(['default', 'auto_edit', 'yolo', 'plan']);
  });

  it('inherits configuration variables one by one, never a prefix or a marker', () => {
    const p = createGemini();
    expect(p.inheritEnv).toEqual(GEMINI_INHERIT_ENV);
    for (const name of p.inheritEnv) {
      expect(name).toMatch(/^[A-Z][A-Z0-9_]*[A-Z0-9]$/);
      expect(name.endsWith('_')).toBe(false);
      expect(name).not.toContain('*');
    }
    expect(p.inheritEnv).toContain('GOOGLE_GEMINI_BASE_URL');
    // issue 17: what bills the Gemini API or a cloud account is passed by name, never inherited
    expect(p.billing?.apiEnv).toEqual(['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENAI_USE_VERTEXAI', 'GOOGLE_APPLICATION_CREDENTIALS']);
    for (const name of p.billing?.apiEnv ?? []) expect(p.inheritEnv).not.toContain(name);
    for (const marker of ['GEMINI_CLI', 'GEMINI_CLI_HOME', 'GEMINI_CLI_NO_RELAUNCH', 'CI', 'GITHUB_ACTIONS', 'GEMINI_CLI_IDE_SERVER_PORT']) {
      expect(p.inheritEnv).not.toContain(marker);
    }
  });

  it('refuses options gemini does not have, before any I/O (the engine checks the capabilities)', async () => {
    const p = createGemini();
    expect(p.capabilities).toEqual({
      unattended: true,
      allowedTools: false,
      appendSystemPrompt: false,
      permissionModes: ['default', 'auto_edit', 'yolo', 'plan'],
      model: true,
    });
    const substrate = createMemorySubstrate();
    const umbel = createUmbel({ substrate, providers: [p], home: join(dir, 'state'), env: { PATH: '/nonexistent' } });
    const spawn = (extra: Record<string, unknown>) => umbel.spawn({ name: 'o', provider: 'gemini', cwd: dir, ...extra }).catch((e: unknown) => e);
    for (const extra of [{ allowedTools: 'Bash' }, { appendSystemPrompt: 'x' }, { permissionMode: 'bypassPermissions' }]) {
      expect(await spawn(extra)).toBeInstanceOf(UsageError);
    }
    expect(substrate.launches).toHaveLength(0);
    expect(await spawn({ permissionMode: 'auto_edit' })).toMatchObject({ code: 'UMBEL_SPAWN_FAILED' }); // accepted; no gemini on this PATH
  });
});

describe('doBuildLaunch', () => {
  it('launches the absolute gemini from PATH with a per-worker home, no relaunch, trusted cwd, and CI removed', async () => {
    const p = createGemini();
    const o = launchOptions({ env: { GEMINI_API_KEY: 'canary-key-4711' } });
    const launch = await p.doBuildLaunch(o);
    expect(launch.argv[0]).toBe(join(dir, 'bin', 'gemini'));
    expect(launch.argv.slice(1)).toEqual(['--session-id', o.sessionId]);
    expect(launch.sessionId).toBe(o.sessionId);
    expect(launch.env).toEqual({
      GEMINI_CLI_HOME: join(o.workerDir, 'gemini-home'),
      GEMINI_CLI_NO_RELAUNCH: 'true',
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
    });
    expect(launch.unsetEnv).toEqual(expect.arrayContaining(['CI', 'GITHUB_ACTIONS']));
    expect(GEMINI_UNSET_ENV).toEqual(['CI', 'GITHUB_ACTIONS']);
    // no env value on argv
    expect(launch.argv.join(' ')).not.toContain('canary-key-4711');
    expect((launch.files ?? [])[0]?.content).not.toContain('canary-key-4711');
  });

  it('trusts the cwd only while trustWorkspace is not false', async () => {
    const env = async (settings: Parameters<typeof createGemini>[0]) => (await createGemini(settings).doBuildLaunch(launchOptions())).env ?? {};
    expect((await env({ trustWorkspace: false })).GEMINI_CLI_TRUST_WORKSPACE).toBeUndefined();
    expect((await env({ trustWorkspace: true })).GEMINI_CLI_TRUST_WORKSPACE).toBe('true');
  });

  it('prefers UMBEL_GEMINI_BIN (checked to be an executable file, even as a path), and fails with a typed error when gemini is nowhere', async () => {
    const p = createGemini();
    const o = launchOptions();
    const other = join(dir, 'other-gemini');
    writeFileSync(other, '#!/bin/sh\n');
    chmodSync(other, 0o755);
    const launch = await p.doBuildLaunch({ ...o, callerEnv: { ...o.callerEnv, UMBEL_GEMINI_BIN: other } });
    expect(launch.argv[0]).toBe(other);
    // a path is no longer taken unchecked
    await expect(p.doBuildLaunch({ ...o, callerEnv: { ...o.callerEnv, UMBEL_GEMINI_BIN: '/opt/fake/gemini' } })).rejects.toThrow(
      "Gemini CLI executable '/opt/fake/gemini' from UMBEL_GEMINI_BIN is not an executable file",
    );
    // the variable wins over the settings binary
    expect((await createGemini({ bin: '/opt/fake/gemini' }).doBuildLaunch({ ...o, callerEnv: { ...o.callerEnv, UMBEL_GEMINI_BIN: other } })).argv[0]).toBe(
      other,
    );
    const error = await p.doBuildLaunch({ ...o, callerEnv: { PATH: '/nonexistent', HOME: join(dir, 'home') } }).catch((e: unknown) => e);
    expect(UmbelError.isInstance(error)).toBe(true);
  });

  it("appends the settings' extra arguments (the kit's CliSettings.extraArgs; `args`, its old name, still works)", async () => {
    const argv = async (settings: Parameters<typeof createGemini>[0]) =>
      (await createGemini(settings).doBuildLaunch(launchOptions({ model: 'm' }))).argv.slice(3);
    expect(await argv({ extraArgs: ['--debug'] })).toEqual(['--model', 'm', '--debug']);
    expect(await argv({ args: ['--debug'] })).toEqual(['--model', 'm', '--debug']);
    expect(await argv({})).toEqual(['--model', 'm']);
  });

  it('maps model, unattended and permission mode to gemini flags', async () => {
    const p = createGemini();
    const a = await p.doBuildLaunch(launchOptions({ model: 'gemini-3.8-flash', unattended: true }));
    expect(a.argv.slice(3)).toEqual(['--model', 'gemini-3.8-flash', '--approval-mode', 'yolo']);
    const b = await p.doBuildLaunch(launchOptions({ unattended: true, permissionMode: 'plan' }));
    expect(b.argv.slice(3)).toEqual(['--approval-mode', 'plan']);
  });

  it("layers umbel's hooks over the user's settings and leaves the user's files byte-identical", async () => {
    const home = join(dir, 'home', '.gemini');
    mkdirSync(join(home, 'tmp'), { recursive: true });
    mkdirSync(join(home, 'commands'), { recursive: true });
    const userText = `{
  // my settings (JSONC)
  "ui": { "theme": "GitHub" },
  "hooks": { "AfterAgent": [ { "matcher": "", "hooks": [ { "name": "mine", "type": "command", "command": "echo mine" } ] } ] },
  "security": { "auth": { "selectedType": "oauth-personal" } },
}
`;
    writeFileSync(join(home, 'settings.json'), userText);
    writeFileSync(join(home, 'GEMINI.md'), 'be nice');
    writeFileSync(join(home, 'oauth_creds.json'), '{}');
    const work = join(dir, 'work', '.gemini');
    mkdirSync(work, { recursive: true });
    const projectText = '{"hooks":{"BeforeAgent":[]}}';
    writeFileSync(join(work, 'settings.json'), projectText);

    const o = launchOptions();
    const launch = await createGemini().doBuildLaunch(o);
    expect(readFileSync(join(home, 'settings.json'), 'utf8')).toBe(userText);
    expect(readFileSync(join(work, 'settings.json'), 'utf8')).toBe(projectText);
    const files = launch.files ?? [];
    expect(files).toHaveLength(1);
    const file = files[0] as { path: string; content: string; mode?: number };
    const workerHome = join(o.workerDir, 'gemini-home', '.gemini');
    expect(file.path).toBe(join(workerHome, 'settings.json'));
    expect(file.mode).toBe(0o600);
    const s = JSON.parse(file.content);
    expect(s.ui).toEqual({ theme: 'GitHub' });
    // the user's own hook stays first, umbel's is appended
    expect(s.hooks.AfterAgent.map((h: { hooks: { name: string }[] }) => h.hooks[0]?.name)).toEqual(['mine', 'umbel-stop']);
    expect(s.hooks.AfterAgent[1].hooks[0].command).toBe("'/state/hooks/umbel-hook' stop");
    expect(s.hooks.BeforeAgent[0].hooks[0].command).toBe("'/state/hooks/umbel-hook' prompt");
    expect(s.hooks.Notification[0].hooks[0].command).toBe("'/state/hooks/umbel-hook' notify");
    expect(s.hooks.SessionStart[0].hooks[0].command).toBe("'/state/hooks/umbel-hook' session");
    expect(s.hooksConfig.enabled).toBe(true);
    // the user's explicit auth choice is kept
    expect(s.security.auth.selectedType).toBe('oauth-personal');
    expect(s.general).toMatchObject({ enableAutoUpdate: false, enableAutoUpdateNotification: false });
    // the CLI's own record of each failed API attempt: local telemetry into the worker's dir, no prompts
    expect(s.telemetry).toEqual({ enabled: true, target: 'local', outfile: join(o.workerDir, 'telemetry.log'), logPrompts: false, useCollector: false });
    // everything else of the user's ~/.gemini is linked, not copied
    for (const name of ['GEMINI.md', 'oauth_creds.json', 'commands', 'tmp']) {
      expect(lstatSync(join(workerHome, name)).isSymbolicLink()).toBe(true);
      expect(readlinkSync(join(workerHome, name))).toBe(join(home, name));
    }
  });

  it('selects API-key auth when the user has no auth choice and the worker has GEMINI_API_KEY', async () => {
    const launch = await createGemini().doBuildLaunch(launchOptions());
    const s = JSON.parse((launch.files ?? [])[0]?.content ?? '{}');
    expect(s.security.auth.selectedType).toBe('gemini-api-key');
    // no ~/.gemini at all: chats go to a directory shared by umbel's workers, so they outlive the worker
    const o = launchOptions();
    expect(readlinkSync(join(o.workerDir, 'gemini-home', '.gemini', 'tmp'))).toBe(join(o.sharedDir, 'tmp'));
  });

  it('leaves auth unselected without a key (the CLI then shows its sign-in screen)', async () => {
    const launch = await createGemini().doBuildLaunch(launchOptions({ env: {} }));
    const s = JSON.parse((launch.files ?? [])[0]?.content ?? '{}');
    expect(s.security?.auth?.selectedType).toBeUndefined();
  });

  it('refuses an unreadable user settings file with a usage error and does not touch it', async () => {
    const home = join(dir, 'home', '.gemini');
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'settings.json'), '{ not json');
    const o = launchOptions();
    await expect(createGemini().doBuildLaunch(o)).rejects.toThrow(UsageError);
    await expect(createGemini().doBuildLaunch(o)).rejects.toThrow(`cannot read Gemini settings ${join(home, 'settings.json')}`);
    expect(readFileSync(join(home, 'settings.json'), 'utf8')).toBe('{ not json');
    expect(existsSync(join(o.workerDir, 'gemini-home'))).toBe(false); // refused before the worker home was made
  });

  it('reads the user settings from GEMINI_CLI_HOME when the caller sets it', async () => {
    const alt = join(dir, 'alt');
    mkdirSync(join(alt, '.gemini'), { recursive: true });
    writeFileSync(join(alt, '.gemini', 'settings.json'), '{"ui":{"theme":"Alt"}}');
    const o = launchOptions();
    const launch = await createGemini().doBuildLaunch({ ...o, callerEnv: { ...o.callerEnv, GEMINI_CLI_HOME: alt } });
    expect(JSON.parse((launch.files ?? [])[0]?.content ?? '{}').ui.theme).toBe('Alt');
  });
});

describe('settings helpers', () => {
  it('does not mutate its input', () => {
    const user = JSON.parse('{"hooks":{"AfterAgent":[]}}');
    const before = JSON.stringify(user);
    buildWorkerSettings({ user, hooks: [], env: {} });
    expect(JSON.stringify(user)).toBe(before);
  });

  it("keeps the user's own enabled telemetry as it is (umbel then has no record of retried attempts)", () => {
    const telemetry = { enabled: true, target: 'gcp', logPrompts: true };
    expect(buildWorkerSettings({ user: { telemetry }, hooks: [], env: {}, telemetryOutfile: '/w/t.log' }).telemetry).toEqual(telemetry);
    expect(
      buildWorkerSettings({ user: { telemetry: { enabled: false, otlpEndpoint: 'http://x' } }, hooks: [], env: {}, telemetryOutfile: '/w/t.log' }).telemetry,
    ).toEqual({
      enabled: true,
      target: 'local',
      outfile: '/w/t.log',
      logPrompts: false,
      useCollector: false,
    });
  });

  it.each([
    ['oauth-personal', 'subscription'],
    ['gemini-api-key', 'api'],
    ['vertex-ai', 'api'],
    ['gateway', 'api'],
    ['compute-default-credentials', 'api'],
    ['cloud-shell', 'unknown'],
  ])('billing: selectedType %s → %s (ACCOUNT-FACTS §3.1)', (type, billing) => {
    expect(geminiBilling({ security: { auth: { selectedType: type } } })).toEqual({ billing, evidence: `security.auth.selectedType "${type}"` });
  });

  it('billing: no selected auth type is unknown; umbel selects gemini-api-key only for a passed key', () => {
    expect(geminiBilling({})).toEqual({ billing: 'unknown', evidence: 'no security.auth.selectedType' });
    expect(geminiBilling(buildWorkerSettings({ user: {}, hooks: [], env: { GEMINI_API_KEY: 'k' } }))).toMatchObject({ billing: 'api' });
    expect(geminiBilling(buildWorkerSettings({ user: {}, hooks: [], env: {} }))).toMatchObject({ billing: 'unknown' });
  });
});

describe('doDetectStartup (screens of 0.61.0)', () => {
  const p = createGemini();
  const detect = (screen: string, events: HookEvent[] = []) => p.doDetectStartup({ screen, events });
  const idle = [
    ' ▝▜▄     Gemini CLI v0.61.0',
    '  ▗▟▀    Authenticated with gemini-api-key /auth',
    '──────────────',
    ' Shift+Tab to accept edits',
    ' >   Type your message or @path/to/file',
    ' workspace (/directory)            sandbox              /model',
  ].join('\n');
  const auth = [
    '│ ? Get started                                          │',
    '│   How would you like to authenticate for this project? │',
    '│     1. Sign in with Google                             │',
    '│   ● 2. Use Gemini API Key                              │',
    '│     3. Vertex AI                                       │',
  ].join('\n');

  const sessionStart: HookEvent = { kind: 'session', at: 1n, payload: { hook_event_name: 'SessionStart', source: 'startup' } };
  it('is ready once SessionStart fired (the config is initialized), not on the input box alone', () => {
    // the input box shows while the config still initializes: a prompt then is queued or mangled
    expect(detect(idle)).toEqual({ state: 'starting' });
    expect(detect(`${idle}\nℹ Initializing... Prompts will be queued.`)).toEqual({ state: 'starting' });
    expect(detect(idle, [sessionStart])).toEqual({ state: 'ready' });
  });
  it('reports the auth dialog as the sign-in screen, with its line', () => {
    expect(detect(auth)).toEqual({ state: 'sign-in', line: 'How would you like to authenticate for this project?' });
    expect(p.doDetectSignIn?.(auth)).toBe('How would you like to authenticate for this project?');
    expect(p.doDetectSignIn?.(idle)).toBeUndefined();
    expect(detect('│ Enter Gemini API Key │\n│ test │').state).toBe('sign-in');
  });
  it('answers the folder-trust dialog with Enter (Trust folder is preselected)', () => {
    const trust = "│ Do you trust the files in this folder? │\n│ ● 1. Trust folder (/w) │\n│   2. Trust parent folder (/) │\n│   3. Don't trust │";
    expect(detect(trust)).toEqual({ state: 'dialog', id: 'trust-folder', keys: ['Enter'] });
  });
  it('reports the CI headless trap as fatal', () => {
    const r = detect('No input provided via stdin. Input can be provided by piping data into gemini or using the --prompt option.');
    expect(r.state).toBe('fatal');
    expect(r.state === 'fatal' && r.message).toContain('CI=true');
  });
  it('is starting on a blank screen', () => {
    expect(detect('')).toEqual({ state: 'starting' });
  });
});

describe('doParseEvent on real 0.61.0 hook payloads', () => {
  const p = createGemini();
  const parsed = hooks.map((h) => ({ event: h.event, info: p.doParseEvent(event(KIND_OF[h.event] ?? 'x', h.payload)) }));

  it('takes session id and transcript path from every payload', () => {
    for (const { info } of parsed) {
      expect(info.sessionId).toBe('35050a10-9aac-4847-a4f2-808d4c777543');
      expect(info.transcriptPath).toMatch(/chats\/session-.*\.jsonl$/);
    }
  });
  it('keys a prompt by the BeforeAgent timestamp', () => {
    const first = parsed.find((x) => x.event === 'BeforeAgent');
    expect(first?.info.turnKey).toBe('2026-11-29T21:53:51.770Z');
  });
  it('classifies a ToolPermission notification as needing permission', () => {
    const n = parsed.find((x) => x.event === 'Notification');
    expect(n?.info.needsInput).toEqual({
      kind: 'permission',
      message: 'Tool Confirm Shell Command requires execution: touch /tmp/h6-exp/work/x.txt',
      tool: 'touch',
    });
    expect(p.doParseEvent(event('notify', { notification_type: 'Other', message: 'fyi' })).needsInput).toBeUndefined();
  });
  it('carries AfterAgent prompt_response as the fallback answer, except [no response text]', () => {
    const stops = parsed.filter((x) => x.event === 'AfterAgent').map((x) => x.info.lastMessage);
    expect(stops).toEqual(['hello from umbel', 'TOOL-RESULT: (empty)', undefined, 'after cancel', undefined, 'see @existing.txt now']);
  });
  it('turns BeforeTool into activity', () => {
    expect(p.doParseEvent(event('tool', { tool_name: 'run_shell_command', tool_input: { command: 'ls' } })).activity).toBe('run_shell_command(ls)');
  });
});

describe('doPreparePrompt (§6)', () => {
  it('delivers text, tabs, leading ! and ?, @file and paths as sent', () => {
    for (const text of ['hello', 'a\tb', '! ls', '? what', 'see @README.md', '/tmp/x is broken', '//not a command', 'line1\nline2']) {
      expect(prepareGeminiPrompt(text)).toBe(text);
    }
  });
  it('appends a newline after a trailing backslash so Enter submits', () => {
    expect(prepareGeminiPrompt('ends with \\')).toBe('ends with \\\n');
  });
  it('refuses a prompt gemini would run as a slash command, and an empty one', () => {
    expect(() => prepareGeminiPrompt('/about')).toThrow(UsageError);
    expect(() => prepareGeminiPrompt('  /clear now')).toThrow(/slash command/);
  });
  it("the refusal's hint names both ways out: a word before it, or --command to run it on purpose", () => {
    let error: UsageError | undefined;
    try {
      prepareGeminiPrompt('/about the moon');
    } catch (e) {
      error = e as UsageError;
    }
    expect(error?.hint).toBe(
      "put a word before it, e.g. 'Please: /about the moon', or send it with --command (command: true over MCP) to run it as gemini's command",
    );
  });
  it('is what the provider uses', () => {
    expect(createGemini().doPreparePrompt?.('x\\')).toBe('x\\\n');
  });
});

describe('the permission prompt on screen (doDetectInputPrompt)', () => {
  const approval = [
    '╭──────────────────────────────────────────────╮',
    '│ ? Shell  touch /srv/work/rejected.txt         │',
    '│ ╭──────────────────────────────────────────╮ │',
    '│ │ touch /srv/work/rejected.txt              │ │',
    '│ ╰──────────────────────────────────────────╯ │',
    '│ Allow execution of [Shell]?                   │',
    '│ ● 1. Allow once                               │',
    '│   2. Allow for this session                   │',
    '│   3. No, suggest changes (esc)                │',
    '╰──────────────────────────────────────────────╯',
  ].join('\n');
  it('is seen on the tool approval box (gemini.md §7), not on a working or ready screen', () => {
    const gemini = createGemini();
    expect(gemini.doDetectInputPrompt?.(approval)).toBe(true);
    expect(gemini.doDetectInputPrompt?.('⠏ Thinking… (esc to cancel, 2s)\n\n>   Type your message or @path/to/file')).toBe(false);
    expect(gemini.doDetectInputPrompt?.('>   Type your message or @path/to/file')).toBe(false);
  });
});
