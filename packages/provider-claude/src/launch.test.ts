import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { HOOK_KINDS, type HookKind, type ProviderV1LaunchOptions, UmbelError, UmbelErrorCode } from '@umbel/core';
import { ExecutableNotFoundError } from '@umbel/provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE_SETTINGS_FILE } from './facts.js';
import { encodeClaudeProjectDir, splitAllowedTools } from './index.js';
import { type ClaudeSettings, createClaude } from './provider.js';

const buildClaudeLaunch = (options: ProviderV1LaunchOptions, settings: ClaudeSettings = {}) => createClaude(settings).doBuildLaunch(options);
const resolveClaudeBinary = (env: Record<string, string | undefined>, binary?: string) =>
  createClaude(binary ? { binary } : {}).doFindBinary?.(env) ?? Promise.reject(new Error('no doFindBinary'));
const ClaudeNotFoundError = ExecutableNotFoundError;

let root: string;
let binDir: string;
let fakeClaude: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'umbel-provider-claude-'));
  binDir = join(root, 'bin');
  await mkdir(binDir);
  fakeClaude = join(binDir, 'claude');
  await writeFile(fakeClaude, '#!/bin/sh\nexit 0\n');
  await chmod(fakeClaude, 0o755);
  await writeFile(join(root, 'not-executable'), 'x');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const SID = '11111111-1111-4111-8111-111111111111';

function launchOptions(over: Partial<ProviderV1LaunchOptions> = {}): ProviderV1LaunchOptions {
  return {
    worker: 'w1',
    cwd: '/srv/my.project',
    unattended: false,
    env: { HOME: '/home/u' },
    callerEnv: { PATH: `/nonexistent:${binDir}` },
    workerDir: '/state/workers/w1/provider',
    sharedDir: '/state/providers/claude',
    sessionId: SID,
    hookCommand: (kind: HookKind) => `'/state/hooks/umbel-hook' ${kind}`,
    hookSinkPath: '/state/hooks/umbel-hook',
    ...over,
  };
}

function settingsOf(launch: Awaited<ReturnType<typeof buildClaudeLaunch>>): Record<string, any> {
  const file = launch.files?.find((f) => f.path.endsWith(CLAUDE_SETTINGS_FILE));
  expect(file).toBeDefined();
  return JSON.parse(file?.content ?? '{}');
}

describe('buildClaudeLaunch: settings file', () => {
  it('writes <workerDir>/claude-settings.json with a hook per event calling hookCommand(kind)', async () => {
    const launch = await buildClaudeLaunch(launchOptions());
    const file = launch.files?.[0];
    expect(file?.path).toBe('/state/workers/w1/provider/claude-settings.json');
    expect(file?.shared).toBeFalsy();
    const settings = settingsOf(launch);
    const expected: Record<string, HookKind> = {
      SessionStart: 'session',
      UserPromptSubmit: 'prompt',
      Stop: 'stop',
      StopFailure: 'stop-failure',
      PermissionRequest: 'permission',
      Notification: 'notify',
      SessionEnd: 'session-end',
      PreToolUse: 'tool',
    };
    expect(Object.keys(settings.hooks).sort()).toEqual(Object.keys(expected).sort());
    for (const [event, kind] of Object.entries(expected)) {
      expect(HOOK_KINDS).toContain(kind);
      expect(settings.hooks[event]).toEqual([{ matcher: '*', hooks: [{ type: 'command', command: `'/state/hooks/umbel-hook' ${kind}` }] }]);
    }
    expect(settings.permissions).toBeUndefined();
    expect(settings.skipDangerousModePermissionPrompt).toBeUndefined();
  });

  it('puts allowedTools into permissions.allow and pre-accepts bypass consent when unattended', async () => {
    const settings = settingsOf(await buildClaudeLaunch(launchOptions({ unattended: true, allowedTools: 'Bash(git diff:*) Edit,Read' })));
    expect(settings.permissions).toEqual({ allow: ['Bash(git diff:*)', 'Edit', 'Read'] });
    expect(settings.skipDangerousModePermissionPrompt).toBe(true);
  });

  it('does not pre-accept bypass consent when unattended runs an explicit other mode', async () => {
    const settings = settingsOf(await buildClaudeLaunch(launchOptions({ unattended: true, permissionMode: 'acceptEdits' })));
    expect(settings.skipDangerousModePermissionPrompt).toBeUndefined();
  });
});

describe('buildClaudeLaunch: argv, env, ids', () => {
  it('builds the minimal argv with the absolute binary, settings file and session id', async () => {
    const launch = await buildClaudeLaunch(launchOptions());
    expect(launch.argv).toEqual([fakeClaude, '--settings', '/state/workers/w1/provider/claude-settings.json', '--session-id', SID]);
    expect(launch.env).toEqual({ DISABLE_AUTOUPDATER: '1' });
    expect(launch.unsetEnv).toContain('CLAUDE_CODE_CHILD_SESSION');
    expect(launch.sessionId).toBe(SID);
  });

  it('adds model, permission mode, allowed tools and system prompt', async () => {
    const launch = await buildClaudeLaunch(
      launchOptions({ model: 'sonnet', permissionMode: 'plan', allowedTools: 'Bash(touch:*)', appendSystemPrompt: 'Be brief.' }),
    );
    expect(launch.argv.slice(5)).toEqual([
      '--model',
      'sonnet',
      '--permission-mode',
      'plan',
      '--allowedTools',
      'Bash(touch:*)',
      '--append-system-prompt',
      'Be brief.',
    ]);
  });

  it('puts a first prompt last, after -- (the many-valued --allowedTools cannot take it)', async () => {
    const launch = await buildClaudeLaunch(launchOptions({ allowedTools: 'Read', prompt: 'hello there' }));
    expect(launch.argv.slice(5)).toEqual(['--allowedTools', 'Read', '--', 'hello there']);
  });

  it('maps unattended to --permission-mode bypassPermissions unless a mode is explicit', async () => {
    expect((await buildClaudeLaunch(launchOptions({ unattended: true }))).argv.slice(5)).toEqual(['--permission-mode', 'bypassPermissions']);
    expect((await buildClaudeLaunch(launchOptions({ unattended: true, permissionMode: 'dontAsk' }))).argv.slice(5)).toEqual(['--permission-mode', 'dontAsk']);
  });

  it('never puts env values on argv', async () => {
    const launch = await buildClaudeLaunch(launchOptions({ env: { HOME: '/home/u', ANTHROPIC_API_KEY: 'sk-ant-secret-value' } }));
    expect(launch.argv.join(' ')).not.toContain('sk-ant-secret-value');
    expect(launch.files?.[0]?.content).not.toContain('sk-ant-secret-value');
  });

  it('predicts the transcript path from CLAUDE_CONFIG_DIR, else HOME/.claude, else none', async () => {
    expect((await buildClaudeLaunch(launchOptions({ env: { HOME: '/home/u', CLAUDE_CONFIG_DIR: '/cfg' } }))).transcriptPath).toBe(
      `/cfg/projects/-srv-my-project/${SID}.jsonl`,
    );
    expect((await buildClaudeLaunch(launchOptions())).transcriptPath).toBe(`/home/u/.claude/projects/-srv-my-project/${SID}.jsonl`);
    expect((await buildClaudeLaunch(launchOptions({ env: {} }))).transcriptPath).toBeUndefined();
  });

  it('appends settings.extraArgs and merges settings.env under the reserved env', async () => {
    const launch = await buildClaudeLaunch(launchOptions(), {
      extraArgs: ['--verbose'],
      env: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '0' },
    });
    expect(launch.argv.at(-1)).toBe('--verbose');
    expect(launch.env).toEqual({ CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' });
  });
});

describe('resolveClaudeBinary', () => {
  it('prefers UMBEL_CLAUDE_BIN (absolute path)', async () => {
    const other = join(root, 'other-claude');
    await writeFile(other, '#!/bin/sh\n');
    await chmod(other, 0o755);
    expect(await resolveClaudeBinary({ PATH: binDir, UMBEL_CLAUDE_BIN: other })).toBe(other);
  });

  it('looks claude up on the caller PATH, skipping relative and missing dirs', async () => {
    expect(await resolveClaudeBinary({ PATH: `relative:/nonexistent:${binDir}` })).toBe(fakeClaude);
  });

  it('never returns a binary found through a relative PATH entry', async () => {
    const relativeDir = relative(process.cwd(), binDir);
    expect(isAbsolute(relativeDir)).toBe(false);
    await expect(resolveClaudeBinary({ PATH: relativeDir })).rejects.toThrow(ClaudeNotFoundError);
  });

  it('throws a ClaudeNotFoundError (UmbelError) saying how to install or set UMBEL_CLAUDE_BIN', async () => {
    const error = await resolveClaudeBinary({ PATH: '/nonexistent' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaudeNotFoundError);
    expect(UmbelError.isInstance(error)).toBe(true);
    expect((error as UmbelError).code).toBe(UmbelErrorCode.SpawnFailed);
    expect((error as UmbelError).hint).toContain('npm install -g @anthropic-ai/claude-code');
    expect((error as UmbelError).hint).toContain('UMBEL_CLAUDE_BIN');
  });

  it('refuses a UMBEL_CLAUDE_BIN that is not executable', async () => {
    await expect(resolveClaudeBinary({ PATH: binDir, UMBEL_CLAUDE_BIN: join(root, 'not-executable') })).rejects.toThrow(ClaudeNotFoundError);
  });
});

describe('pure helpers', () => {
  it('encodes a project dir like Claude Code (§2.1)', () => {
    expect(encodeClaudeProjectDir('/srv/a.b c_d+é')).toBe('-srv-a-b-c-d--');
    expect(encodeClaudeProjectDir('/home/User1/x-y')).toBe('-home-User1-x-y');
  });

  it('splits allowedTools on commas/spaces outside parentheses', () => {
    expect(splitAllowedTools('Bash(npm run test:*), Edit  Read,Write(src/**)')).toEqual(['Bash(npm run test:*)', 'Edit', 'Read', 'Write(src/**)']);
    expect(splitAllowedTools(' ,, ')).toEqual([]);
  });
});

describe('buildClaudeLaunch: the statusLine (quota, issue 17)', () => {
  it("installs umbel's statusLine in the worker's own settings: the input goes to the hook sink as a statusline event", async () => {
    const launch = await buildClaudeLaunch(launchOptions({ env: { HOME: '/home/u', CLAUDE_CONFIG_DIR: join(root, 'no-such-config') } }));
    const script = launch.files?.find((f) => f.path.endsWith('claude-statusline.sh'));
    expect(script?.path).toBe('/state/workers/w1/provider/claude-statusline.sh');
    expect(settingsOf(launch).statusLine).toEqual({ type: 'command', command: '/bin/sh /state/workers/w1/provider/claude-statusline.sh' });
    expect(script?.content).toContain('| /state/hooks/umbel-hook statusline');
    expect(script?.content).not.toContain('exec /bin/sh -c');
  });

  it("chains to the user's own statusLine command (and keeps its other fields), so their display is unchanged", async () => {
    const config = join(root, 'user-config');
    await mkdir(config, { recursive: true });
    await writeFile(join(config, 'settings.json'), JSON.stringify({ statusLine: { type: 'command', command: "echo 'mine'", padding: 2 } }));
    const launch = await buildClaudeLaunch(launchOptions({ env: { HOME: '/home/u', CLAUDE_CONFIG_DIR: config } }));
    expect(settingsOf(launch).statusLine).toMatchObject({ type: 'command', padding: 2, command: expect.stringContaining('claude-statusline.sh') });
    const script = launch.files?.find((f) => f.path.endsWith('claude-statusline.sh'))?.content ?? '';
    expect(script).toContain(`exec /bin/sh -c 'echo '\\''mine'\\'''`);
  });

  it("without CLAUDE_CONFIG_DIR, the user's statusLine is in umbel's own ~/.claude (the caller's HOME, not the worker's)", async () => {
    await mkdir(join(root, '.claude'), { recursive: true });
    await writeFile(join(root, '.claude', 'settings.json'), JSON.stringify({ statusLine: { type: 'command', command: 'echo home' } }));
    const launch = await buildClaudeLaunch(launchOptions({ env: { HOME: '/home/u' }, callerEnv: { PATH: `/nonexistent:${binDir}`, HOME: root } }));
    expect(launch.files?.find((f) => f.path.endsWith('claude-statusline.sh'))?.content).toContain(`exec /bin/sh -c 'echo home'`);
  });
});

describe('buildClaudeLaunch: resume (umbel revive; claude-code.md §3: `--resume U` keeps session U and its file)', () => {
  const OLD = '22222222-2222-4222-8222-222222222222';

  it('passes --resume <id> instead of --session-id, and the launch names the resumed session and its transcript', async () => {
    const launch = await buildClaudeLaunch(launchOptions({ sessionId: OLD, resume: { sessionId: OLD }, env: { HOME: '/home/u', CLAUDE_CONFIG_DIR: '/cfg' } }));
    const i = launch.argv.indexOf('--resume');
    expect(i).toBeGreaterThan(0);
    expect(launch.argv[i + 1]).toBe(OLD);
    expect(launch.argv).not.toContain('--session-id');
    expect(launch.sessionId).toBe(OLD);
    expect(launch.transcriptPath).toBe(join('/cfg', 'projects', encodeClaudeProjectDir('/srv/my.project'), `${OLD}.jsonl`));
  });

  it('without resume, a fresh --session-id as before (no --resume)', async () => {
    const launch = await buildClaudeLaunch(launchOptions());
    expect(launch.argv).toContain('--session-id');
    expect(launch.argv).not.toContain('--resume');
  });
});
