import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorExitCode, type HookEvent, type ProviderV1, type ProviderV1LaunchOptions, UmbelError } from '@umbel/core';
import { afterAll, describe, expect, it } from 'vitest';
import { VERSION } from './index.js';
import { createOpencode, opencode } from './provider.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'umbel-oc-provider-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** A stand-in `opencode` whose `opencode models` prints the mock's models. */
const fakeBin = join(root, 'opencode');
writeFileSync(fakeBin, '#!/bin/sh\n[ "$1" = models ] && printf "opencode/big-pickle\\nmock/mock-model\\nmock/mock-model-2\\n"\n');
chmodSync(fakeBin, 0o755);

function options(over: Partial<ProviderV1LaunchOptions> = {}): ProviderV1LaunchOptions {
  const dir = join(root, `w${++n}`);
  mkdirSync(join(dir, 'provider'), { recursive: true });
  const sink = join(root, 'hooks', 'umbel-hook');
  return {
    worker: `w${n}`,
    cwd: root,
    unattended: false,
    env: { PATH: '/usr/bin:/bin', HOME: root, OPENAI_API_KEY: 'sk-secret-value-1234' },
    callerEnv: { PATH: '/usr/bin:/bin', HOME: root, UMBEL_OPENCODE_BIN: fakeBin },
    workerDir: join(dir, 'provider'),
    sharedDir: join(root, 'shared'),
    sessionId: '00000000-0000-4000-8000-000000000000',
    hookSinkPath: sink,
    hookCommand: (kind) => `${sink} ${kind}`,
    ...over,
  };
}
const fileOf = (launch: Awaited<ReturnType<ProviderV1['doBuildLaunch']>>, tail: string) => launch.files?.find((f) => f.path.endsWith(tail));

describe('the launch', () => {
  it('runs opencode in the worker config dir: the plugin, the paste setting, the install lock; npm offline for startup', async () => {
    const o = options();
    const launch = await opencode.doBuildLaunch(o);
    const dir = join(o.workerDir, 'opencode');
    expect(launch.argv).toEqual([fakeBin]);
    expect(launch.env).toEqual({ OPENCODE_CONFIG_DIR: dir, npm_config_offline: 'true' });
    expect(launch.files?.map((f) => [f.path, f.mode])).toEqual([
      [join(dir, 'plugins/umbel.js'), 0o600],
      [join(dir, 'opencode.json'), 0o600],
      [join(dir, 'package-lock.json'), 0o600],
    ]);
    expect(statSync(join(dir, 'node_modules')).isDirectory()).toBe(true);
    expect(JSON.parse(fileOf(launch, 'opencode.json')?.content ?? '')).toEqual({
      $schema: 'https://opencode.ai/config.json',
      autoupdate: false,
      experimental: { disable_paste_summary: true },
    });
    expect(JSON.parse(fileOf(launch, 'package-lock.json')?.content ?? '')).toEqual({
      packages: { '': { dependencies: { '@opencode-ai/plugin': '1.18.33' } } },
    });
    const plugin = fileOf(launch, 'umbel.js')?.content ?? '';
    for (const kind of ['session', 'prompt', 'stop', 'stop-failure', 'permission', 'tool']) expect(plugin).toContain(`${o.hookSinkPath} ${kind}`);
    expect(plugin).toContain(JSON.stringify(join(o.workerDir, 'transcripts')));
    expect(plugin).toMatch(/"dropEnv": \[\s*"npm_config_offline"\s*\]/);
    expect(plugin).not.toContain('sk-secret-value-1234');
    // nothing is ever written into the user's own config
    expect(existsSync(join(root, '.config'))).toBe(false);
  });

  it("leaves npm_config_offline alone when the worker env sets it (and the plugin then never removes the user's)", async () => {
    for (const env of [{ npm_config_offline: 'false' }, { NPM_CONFIG_OFFLINE: 'true' }] as Record<string, string>[]) {
      const launch = await opencode.doBuildLaunch(options({ env: { PATH: '/usr/bin:/bin', ...env } }));
      expect(Object.keys(launch.env ?? {})).toEqual(['OPENCODE_CONFIG_DIR']);
      expect(fileOf(launch, 'umbel.js')?.content).toMatch(/"dropEnv": \[\]/);
    }
  });

  it('permission modes are a permission block in the worker config; unattended allows everything', async () => {
    const config = async (o: Partial<ProviderV1LaunchOptions>) =>
      JSON.parse(fileOf(await opencode.doBuildLaunch(options(o)), 'opencode.json')?.content ?? '{}');
    expect((await config({ permissionMode: 'ask' })).permission).toEqual({ bash: 'ask', edit: 'ask', webfetch: 'ask', websearch: 'ask' });
    expect((await config({ permissionMode: 'allow' })).permission).toBe('allow');
    expect((await config({ unattended: true })).permission).toBe('allow');
    expect(await config({ permissionMode: 'default' })).not.toHaveProperty('permission');
    expect(opencode.capabilities).toEqual({
      unattended: true,
      allowedTools: false,
      appendSystemPrompt: false,
      permissionModes: ['default', 'ask', 'allow'],
      model: true,
      resume: true,
    });
  });

  it('resumes with --session <ses_…> (umbel revive; test-fixtures/real/REVIVE-FACTS.md §3)', async () => {
    const id = 'ses_db8f119f2ffeu5DatyMnc1PghQ';
    const launch = await opencode.doBuildLaunch(options({ resume: { sessionId: id } }));
    expect(launch.argv).toEqual([fakeBin, '--session', id]);
    expect(launch.sessionId).toBe(id);
  });

  it('settings: bin names the executable (UMBEL_OPENCODE_BIN wins over it); extraArgs end every launch', async () => {
    const withBin = createOpencode({ bin: fakeBin, extraArgs: ['--print-logs'] });
    expect((await withBin.doBuildLaunch(options({ callerEnv: { PATH: '/usr/bin:/bin', HOME: root } }))).argv).toEqual([fakeBin, '--print-logs']);
    const other = join(root, 'other-opencode');
    writeFileSync(other, '#!/bin/sh\n');
    chmodSync(other, 0o755);
    expect((await createOpencode({ bin: other }).doBuildLaunch(options())).argv).toEqual([fakeBin]);
  });

  it('--model is passed as given once `opencode models` lists it', async () => {
    const launch = await opencode.doBuildLaunch(options({ model: 'mock/mock-model-2' }));
    expect(launch.argv).toEqual([fakeBin, '--model', 'mock/mock-model-2']);
  });

  it("the model list is read with the worker's env (its keys) and offline npm, as the worker gets them", async () => {
    const envBin = join(root, 'env-opencode');
    writeFileSync(envBin, '#!/bin/sh\n[ "$1" = models ] && [ "$npm_config_offline" = true ] && [ -n "$OPENAI_API_KEY" ] && echo mock/keyed\nexit 0\n');
    chmodSync(envBin, 0o755);
    const launch = await createOpencode({ bin: envBin }).doBuildLaunch(options({ model: 'mock/keyed', callerEnv: { PATH: '/usr/bin:/bin', HOME: root } }));
    expect(launch.argv).toEqual([envBin, '--model', 'mock/keyed']);
  });

  it('an unknown --model is refused (exit 2) naming what opencode lists; with checkModel off it is passed through', async () => {
    const error = await opencode.doBuildLaunch(options({ model: 'mock/nope' })).catch((e: unknown) => e);
    expect(UmbelError.isInstance(error) && error.name).toBe('OpencodeModelUnknownError');
    expect(errorExitCode(error)).toBe(2);
    expect((error as Error).message).toBe("opencode has no model 'mock/nope': it lists mock/mock-model, mock/mock-model-2, opencode/big-pickle");
    const unchecked = await createOpencode({ checkModel: false }).doBuildLaunch(options({ model: 'mock/nope' }));
    expect(unchecked.argv).toEqual([fakeBin, '--model', 'mock/nope']);
  });

  it('checks before any I/O: a model that is not provider/model, an OPENCODE_CONFIG_DIR passed in', () => {
    const spawn = { cwd: root, unattended: false, env: {}, callerEnv: {} };
    expect(() => opencode.doValidate?.({ spawn: { ...spawn, model: 'gpt-5' }, isRoot: false })).toThrow(
      expect.objectContaining({
        message: "opencode takes --model as provider/model (e.g. anthropic/claude-sonnet-4-5), not 'gpt-5'",
        hint: 'run `opencode models` to see the ids',
      }),
    );
    expect(() => opencode.doValidate?.({ spawn: { ...spawn, model: 'mock/mock-model' }, isRoot: false })).not.toThrow();
    expect(() => opencode.doValidate?.({ spawn: { ...spawn, env: { OPENCODE_CONFIG_DIR: '/x' } }, isRoot: false })).toThrow(
      /OPENCODE_CONFIG_DIR is umbel's per-worker plugin dir/,
    );
  });

  it('settings: retries and config overrides reach the worker config dir', async () => {
    const launch = await createOpencode({ maxRetries: 0, maxRetryDelayMs: 5000, configOverrides: { share: 'disabled' } }).doBuildLaunch(options());
    expect(fileOf(launch, 'umbel.js')?.content).toMatch(/"maxRetries": 0,\s*"maxRetryDelayMs": 5000/);
    expect(JSON.parse(fileOf(launch, 'opencode.json')?.content ?? '')).toMatchObject({ share: 'disabled', experimental: { disable_paste_summary: true } });
  });
});

describe('billing (subscription first)', () => {
  const keys = ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'OPENROUTER_API_KEY', 'GEMINI_API_KEY', 'AWS_PROFILE'];
  it('API keys are never inherited: they reach a worker only when passed by name', () => {
    for (const name of keys) {
      expect(opencode.billing?.apiEnv).toContain(name);
      expect(opencode.inheritEnv).not.toContain(name);
    }
    expect(opencode.inheritEnv).toContain('OPENCODE_CONFIG');
  });
  it("a passed key bills the API; without one, what opencode's own stored logins bill is unknown", () => {
    expect(opencode.doDetectBilling?.({ screen: '', envNames: ['PATH', 'OPENAI_API_KEY'] })).toEqual({ billing: 'api', evidence: 'OPENAI_API_KEY passed' });
    expect(opencode.doDetectBilling?.({ screen: '', envNames: ['PATH'] })).toEqual({
      billing: 'unknown',
      evidence: "no API key passed; opencode's stored logins (opencode auth login) may bill a plan or an API",
    });
  });
});

describe('what the payloads say', () => {
  const parse = (kind: string, payload: unknown) => opencode.doParseEvent({ kind, at: 1n, payload } as HookEvent);
  const base = { sessionID: 'ses_1', transcriptPath: '/w/transcripts/ses_1.json' };

  it('prompt and stop carry the turn key (the user message id), the session and the transcript', () => {
    expect(parse('prompt', { event: 'chat.message', ...base, messageID: 'msg_u1' })).toEqual({
      sessionId: 'ses_1',
      transcriptPath: base.transcriptPath,
      turnKey: 'msg_u1',
    });
    expect(parse('stop', { event: 'session.idle', ...base, messageID: 'msg_u1' })).toEqual({
      sessionId: 'ses_1',
      transcriptPath: base.transcriptPath,
      turnKey: 'msg_u1',
    });
    expect(parse('session', { event: 'plugin.loaded', directory: '/w', worktree: '/' })).toEqual({});
  });

  it("a subagent's child session (parentSessionID) names no session or transcript of the worker's; its prompt is self-started, keyed like its stop", () => {
    const child = { sessionID: 'ses_c', transcriptPath: '/w/transcripts/ses_c.json', parentSessionID: 'ses_1' };
    expect(parse('session', { event: 'session.created', ...child, directory: '/w' })).toEqual({});
    expect(parse('prompt', { event: 'chat.message', ...child, messageID: 'msg_c1', agent: 'general' })).toEqual({ turnKey: 'msg_c1', selfStarted: true });
    expect(parse('stop', { event: 'session.idle', ...child, messageID: 'msg_c1' })).toEqual({ turnKey: 'msg_c1' });
    expect(parse('tool', { event: 'tool.execute.before', ...child, tool: 'bash', args: { command: 'ls' } })).toEqual({ activity: 'bash: ls' });
    // its transcript, beside the worker's, is activity for the idle net
    expect(opencode.doFindActivityDirs?.(base.transcriptPath)).toEqual(['/w/transcripts']);
  });

  it('a permission names the tool and what it would run; a failure its message', () => {
    const asked = { event: 'permission.asked', ...base, id: 'per_1', permission: 'bash', patterns: ['touch x'], metadata: { command: 'touch x' } };
    expect(parse('permission', asked).needsInput).toEqual({ kind: 'permission', tool: 'bash', message: 'opencode asks to use bash: touch x' });
    expect(parse('stop-failure', { ...base, messageID: 'msg_u1', message: 'mock bad request', error: { name: 'APIError' } })).toMatchObject({
      turnKey: 'msg_u1',
      error: 'mock bad request',
    });
    expect(parse('stop-failure', { ...base })).toMatchObject({ error: 'opencode reported an error' });
  });

  it('activity: the tool and its argument, a permission answer, a retry with its attempt', () => {
    expect(parse('tool', { event: 'tool.execute.before', ...base, tool: 'bash', args: { command: 'ls -la' } }).activity).toBe('bash: ls -la');
    expect(parse('tool', { event: 'tool.execute.before', ...base, tool: 'read', args: { filePath: '/a/b.ts' } }).activity).toBe('read: /a/b.ts');
    expect(parse('tool', { event: 'permission.replied', ...base, reply: 'reject' }).activity).toBe('permission answered: reject');
    const retry = parse('tool', {
      event: 'session.status.retry',
      ...base,
      status: { type: 'retry', attempt: 2, message: 'always down', next: Date.now() + 4000 },
    });
    expect(retry.activity).toMatch(/^retrying \(attempt 2, next in [34]s\): always down$/);
  });
});

describe('prompts', () => {
  it('are kept byte-exact (tabs, unicode, trailing whitespace); CR becomes LF; a leading / gets one space', () => {
    const prepare = (p: string) => opencode.doPreparePrompt?.(p) ?? p;
    expect(prepare('  ECHO lead\n\tindented ünï 🎉\ttab  ')).toBe('  ECHO lead\n\tindented ünï 🎉\ttab  ');
    expect(prepare('a\r\nb\rc')).toBe('a\nb\nc');
    expect(prepare('/exit')).toBe(' /exit');
    expect(prepare('!echo hi')).toBe('!echo hi');
    expect(opencode.input).toMatchObject({ alwaysPaste: true });
  });
});

describe('the package', () => {
  it('names itself and the version it was verified on', () => {
    expect(opencode).toMatchObject({ providerId: 'opencode', displayName: 'opencode', verifiedVersions: ['1.18.33'] });
    expect(opencode.description).toMatch(/opencode/);
    expect(createOpencode({ providerId: 'opencode-2' }).providerId).toBe('opencode-2');
    expect(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).name).toBe('@umbel/provider-opencode');
  });

  it('exports VERSION equal to its package.json (the CLI bundles this package and reports it)', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(manifest.version);
  });

  it('classifies its tools for actions and diff', () => {
    expect(opencode.doClassifyTool?.({ name: 'bash', input: { command: 'ls' } })).toEqual({ command: 'ls' });
    expect(opencode.doClassifyTool?.({ name: 'edit', input: { filePath: '/a.ts', oldString: 'a', newString: 'b' } })).toEqual({ edited: ['/a.ts'] });
    expect(opencode.doClassifyTool?.({ name: 'write', input: { filePath: '/b.ts', content: '' } })).toEqual({ written: ['/b.ts'] });
    expect(opencode.doClassifyTool?.({ name: 'read', input: { filePath: '/c.ts' } })).toEqual({ read: ['/c.ts'] });
    expect(opencode.doClassifyTool?.({ name: 'webfetch', input: { url: 'x' } })).toEqual({});
  });
});
