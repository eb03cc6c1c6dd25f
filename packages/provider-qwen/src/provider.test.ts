import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HookEvent, HookKind, ProviderV1, ProviderV1LaunchOptions } from '@umbel/core';
import { afterAll, describe, expect, it } from 'vitest';
import { QWEN_HOOK_EVENTS, VERSION } from './index.js';
import { createQwen, qwen } from './provider.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'umbel-qwen-provider-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
const screen = (name: string): string => fixture(`real-0.15.10-screen-${name}.txt`);
/** The hook payloads the real 0.15.10 delivered, in order: {kind: the Qwen event, payload}. */
const recordedHooks = fixture('real-0.15.10-hooks.jsonl')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { kind: keyof typeof QWEN_HOOK_EVENTS; payload: Record<string, unknown> });
const eventOf = (h: (typeof recordedHooks)[number]): HookEvent => ({ kind: QWEN_HOOK_EVENTS[h.kind] as HookKind, at: 1n, payload: h.payload });
const firstHook = (kind: string, where: (p: Record<string, unknown>) => boolean = () => true) => {
  const hook = recordedHooks.find((h) => h.kind === kind && where(h.payload));
  if (!hook) throw new Error(`no recorded ${kind}`);
  return eventOf(hook);
};

const fakeBin = join(root, 'qwen');
writeFileSync(fakeBin, '#!/bin/sh\n');
chmodSync(fakeBin, 0o755);

function options(over: Partial<ProviderV1LaunchOptions> = {}): ProviderV1LaunchOptions {
  const dir = join(root, `w${++n}`);
  mkdirSync(join(dir, 'provider'), { recursive: true });
  const sink = join(root, 'hooks', 'umbel-hook');
  return {
    worker: `w${n}`,
    cwd: root,
    unattended: false,
    env: { PATH: '/usr/bin:/bin', HOME: root },
    callerEnv: { PATH: '/usr/bin:/bin', HOME: root, UMBEL_QWEN_BIN: fakeBin, QWEN_CODE_SYSTEM_SETTINGS_PATH: join(root, 'no-system-settings.json') },
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
  it('points Qwen Code at the worker settings: every hook appended, update checks off', async () => {
    const o = options();
    const launch = await qwen.doBuildLaunch(o);
    const settings = join(o.workerDir, 'qwen', 'settings.json');
    expect(launch.argv).toEqual([fakeBin]);
    expect(launch.env).toEqual({ QWEN_CODE_SYSTEM_SETTINGS_PATH: settings });
    expect(launch.files?.map((f) => [f.path, f.mode])).toEqual([
      [settings, 0o600],
      [join(o.workerDir, 'qwen', 'prompt-hook.sh'), 0o600],
    ]);
    const written = JSON.parse(fileOf(launch, 'settings.json')?.content ?? '');
    expect(written.general).toEqual({ enableAutoUpdate: false });
    expect(Object.keys(written.hooks)).toEqual(Object.keys(QWEN_HOOK_EVENTS));
    expect(written.hooks.Stop).toEqual([{ matcher: '', hooks: [{ type: 'command', name: 'umbel-Stop', command: `${o.hookSinkPath} stop`, timeout: 10_000 }] }]);
    expect(written.hooks.UserPromptSubmit[0].hooks[0].command).toBe(`/bin/sh ${join(o.workerDir, 'qwen', 'prompt-hook.sh')}`);
  });

  it("keeps the machine's system settings and their hooks (the copy is the worker's; the file is only read)", async () => {
    const machine = join(root, 'system-settings.json');
    const own = { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'mine' }] }] }, general: { vimMode: true }, model: { name: 'x' } };
    writeFileSync(machine, JSON.stringify(own));
    const o = options();
    const launch = await qwen.doBuildLaunch({ ...o, callerEnv: { ...o.callerEnv, QWEN_CODE_SYSTEM_SETTINGS_PATH: machine } });
    const written = JSON.parse(fileOf(launch, 'settings.json')?.content ?? '');
    expect(written.model).toEqual({ name: 'x' });
    expect(written.general).toEqual({ vimMode: true, enableAutoUpdate: false });
    expect(written.hooks.Stop.map((h: { hooks: { command: string }[] }) => h.hooks[0]?.command)).toEqual(['mine', `${o.hookSinkPath} stop`]);
    expect(JSON.parse(readFileSync(machine, 'utf8'))).toEqual(own);
  });

  it('the prompt hook drops the empty prompt Qwen Code fires for a tool-result continuation, and passes real prompts on', async () => {
    const o = options();
    const out = join(root, `sink-${n}.txt`);
    const launch = await qwen.doBuildLaunch({ ...o, hookCommand: (kind) => `cat >> ${out}; echo " ${kind}" >> ${out}` });
    const script = join(root, `filter-${n}.sh`);
    writeFileSync(script, fileOf(launch, 'prompt-hook.sh')?.content ?? '');
    const run = (h: (typeof recordedHooks)[number]) => execFileSync('/bin/sh', [script], { input: JSON.stringify(h.payload) });
    const prompts = recordedHooks.filter((h) => h.kind === 'UserPromptSubmit');
    expect(prompts.some((h) => h.payload.prompt === '')).toBe(true);
    for (const h of prompts) run(h);
    const delivered = readFileSync(out, 'utf8').trim().split('\n');
    expect(delivered).toHaveLength(prompts.filter((h) => h.payload.prompt !== '').length);
    expect(JSON.parse((delivered[1] ?? '').replace(/ prompt$/, ''))).toMatchObject({ prompt: 'ECHO multi\nline answer\n  indented' });
  });

  it('maps the spawn options to flags: model, approval modes, unattended = yolo, append-system-prompt', async () => {
    expect((await qwen.doBuildLaunch(options({ model: 'qwen3-coder-plus' }))).argv).toEqual([fakeBin, '--model', 'qwen3-coder-plus']);
    expect((await qwen.doBuildLaunch(options({ permissionMode: 'auto-edit' }))).argv).toEqual([fakeBin, '--approval-mode', 'auto-edit']);
    expect((await qwen.doBuildLaunch(options({ unattended: true }))).argv).toEqual([fakeBin, '--approval-mode', 'yolo']);
    expect((await qwen.doBuildLaunch(options({ appendSystemPrompt: 'be brief' }))).argv).toEqual([fakeBin, '--append-system-prompt', 'be brief']);
    expect(qwen.capabilities).toEqual({
      unattended: true,
      allowedTools: false,
      appendSystemPrompt: true,
      permissionModes: ['default', 'auto-edit', 'yolo', 'plan'],
      model: true,
    });
  });

  it('refuses QWEN_CODE_SYSTEM_SETTINGS_PATH in the worker env (it is where umbel installs its hooks)', () => {
    const spawn = { cwd: root, unattended: false, env: { QWEN_CODE_SYSTEM_SETTINGS_PATH: '/x.json' }, callerEnv: {} };
    expect(() => qwen.doValidate?.({ spawn, isRoot: false })).toThrow(/QWEN_CODE_SYSTEM_SETTINGS_PATH is umbel's per-worker hook settings/);
    expect(() => qwen.doValidate?.({ spawn: { ...spawn, env: {} }, isRoot: false })).not.toThrow();
  });
});

describe('env and billing', () => {
  it('never inherits a key; the key variables are API billing', () => {
    expect(qwen.inheritEnv).not.toContain('OPENAI_API_KEY');
    expect(qwen.billing?.apiEnv).toEqual([
      'OPENAI_API_KEY',
      'ANTHROPIC_API_KEY',
      'GEMINI_API_KEY',
      'DASHSCOPE_API_KEY',
      'BAILIAN_CODING_PLAN_API_KEY',
      'OPENROUTER_API_KEY',
    ]);
    expect(qwen.billing?.endpointEnv).toEqual(['OPENAI_BASE_URL', 'ANTHROPIC_BASE_URL']);
  });

  it("reads billing from the banner's auth label: API Key is api, Qwen OAuth the subscription, Unknown unknown", () => {
    expect(qwen.doDetectBilling?.({ screen: screen('ready'), envNames: [] })).toEqual({ billing: 'api', evidence: 'the banner says "API Key"' });
    const oauth = screen('ready').replace('API Key | mock-model', 'Qwen OAuth | coder-model');
    expect(qwen.doDetectBilling?.({ screen: oauth, envNames: [] })).toEqual({ billing: 'subscription', evidence: 'the banner says "Qwen OAuth"' });
    const unknown = screen('ready').replace('API Key | mock-model', 'Unknown | mock-model');
    expect(qwen.doDetectBilling?.({ screen: unknown, envNames: ['OPENAI_API_KEY'] })).toEqual({ billing: 'api', evidence: 'OPENAI_API_KEY passed' });
    expect(qwen.doDetectBilling?.({ screen: '', envNames: [] })).toEqual({ billing: 'unknown' });
  });
});

describe('screens (recorded from the real 0.15.10)', () => {
  const session = [firstHook('SessionStart')];
  it('is ready once SessionStart fired and the input box is drawn', () => {
    expect(qwen.doDetectStartup({ screen: screen('ready'), events: session })).toEqual({ state: 'ready' });
    expect(qwen.doDetectStartup({ screen: screen('ready'), events: [] })).toEqual({ state: 'starting' });
    // --unattended (YOLO): the box's prompt is `*` and three spaces, not `> ` (recorded on 0.15.10)
    expect(qwen.doDetectStartup({ screen: screen('ready-yolo'), events: session })).toEqual({ state: 'ready' });
  });

  it('the auth dialog of a CLI with no login or key is the sign-in screen', () => {
    const signIn = `  │ Select Authentication Method                          │\n  │ › Alibaba ModelStudio                                 │`;
    expect(qwen.doDetectStartup({ screen: signIn, events: session })).toEqual({ state: 'sign-in', line: 'Select Authentication Method' });
  });

  it('reads the input box: empty (placeholder), a draft (cursor dropped), a multi-line draft; none under a permission box', () => {
    expect(qwen.doReadInputBox?.(screen('ready'))).toBe('');
    expect(qwen.doReadInputBox?.(screen('after-clear'))).toBe('');
    expect(qwen.doReadInputBox?.(screen('draft'))).toBe('a draft here');
    expect(qwen.doReadInputBox?.(screen('draft-multiline'))).toBe('first line\nsecond line');
    expect(qwen.doReadInputBox?.(screen('ready-yolo'))).toBe('');
    expect(qwen.doReadInputBox?.(screen('ready-yolo').replace('*   Type your message or @path/to/file', '*   a yolo draft'))).toBe('a yolo draft');
    expect(qwen.input?.clearKeys).toEqual(['C-c']);
    // Qwen Code drains a prompt typed while a turn runs into that turn after its tool calls
    expect(qwen.input?.whileBusy).toBe('merge');
  });

  it('the permission prompt is drawn and taking keys only when its first option is', () => {
    expect(qwen.doDetectInputPrompt?.(screen('permission'))).toBe(true);
    expect(qwen.doDetectInputPrompt?.(screen('after-turn'))).toBe(false);
  });
});

describe('hook payloads (recorded from the real 0.15.10)', () => {
  it('SessionStart names the session and its chat recording', () => {
    expect(qwen.doParseEvent(firstHook('SessionStart'))).toEqual({
      sessionId: '11cdf5d9-7b3a-4ee5-901e-d11cc18a1876',
      transcriptPath: '/tmp/hC-qwen/home/.qwen/projects/-tmp-hC-qwen-proj4/chats/11cdf5d9-7b3a-4ee5-901e-d11cc18a1876.jsonl',
    });
  });

  it("a subagent's records are beside the chat: subagents/<session>/ (their growth is activity for --idle-timeout)", () => {
    const chats = '/h/.qwen/projects/-tmp-p/chats/3f1446fe-88f8-4709-aadc-9223ef0f4cf4.jsonl';
    expect(qwen.doFindActivityDirs?.(chats)).toEqual(['/h/.qwen/projects/-tmp-p/subagents/3f1446fe-88f8-4709-aadc-9223ef0f4cf4']);
    expect(qwen.doFindActivityDirs?.('/elsewhere/x.txt')).toEqual([]);
  });

  it('Stop carries the final answer byte-exact', () => {
    const multi = firstHook('Stop', (p) => String(p.last_assistant_message).startsWith('multi'));
    expect(qwen.doParseEvent(multi).lastMessage).toBe('multi\nline answer\n  indented');
  });

  it('StopFailure: 400 is an error; 401 (authentication_failed) auth-failed; rate_limit rate-limited', () => {
    const bad = firstHook('StopFailure');
    expect(qwen.doParseEvent(bad)).toMatchObject({ error: '400 bad request body' });
    expect(qwen.doParseEvent(bad).account).toBeUndefined();
    const auth = { ...bad, payload: { ...(bad.payload as object), error: 'authentication_failed', error_details: '401 invalid key' } };
    expect(qwen.doParseEvent(auth)).toMatchObject({ error: '401 invalid key', account: { kind: 'auth-failed' } });
    const limit = { ...bad, payload: { ...(bad.payload as object), error: 'rate_limit' } };
    expect(qwen.doParseEvent(limit).account).toEqual({ kind: 'rate-limited' });
  });

  it('PermissionRequest and the permission notification need input; the idle notification does not', () => {
    expect(qwen.doParseEvent(firstHook('PermissionRequest')).needsInput).toEqual({
      kind: 'permission',
      message: 'Qwen Code asks to use run_shell_command: touch approved.txt',
      tool: 'run_shell_command',
    });
    const prompt = firstHook('Notification', (p) => p.notification_type === 'permission_prompt');
    expect(qwen.doParseEvent(prompt).needsInput).toEqual({
      kind: 'permission',
      message: 'Qwen Code needs your permission to use run_shell_command',
      tool: 'run_shell_command',
    });
    expect(qwen.doParseEvent(firstHook('Notification', (p) => p.notification_type === 'idle_prompt')).needsInput).toBeUndefined();
  });

  it('PreToolUse is the activity: the tool and its command', () => {
    expect(qwen.doParseEvent(firstHook('PreToolUse')).activity).toBe('run_shell_command(touch approved.txt)');
  });
});

describe('prompts and identity', () => {
  it('refuses a slash command and passes other prompts byte-exact', () => {
    expect(() => qwen.doPreparePrompt?.('/help me')).toThrow(/slash command/);
    expect(qwen.doPreparePrompt?.('two\nlines')).toBe('two\nlines');
  });

  it('is the qwen provider, version 0.1.0, verified on 0.15.10; a second configuration takes its own id', () => {
    expect([qwen.providerId, qwen.displayName, VERSION, qwen.verifiedVersions]).toEqual(['qwen', 'Qwen Code', '0.1.0', ['0.15.10']]);
    expect(createQwen({ providerId: 'qwen-2' }).providerId).toBe('qwen-2');
  });

  it('runs the executable its settings name, UMBEL_QWEN_BIN winning over it, and appends their extra arguments', async () => {
    const configured = join(root, 'configured-qwen');
    writeFileSync(configured, '#!/bin/sh\n');
    chmodSync(configured, 0o755);
    const o = options();
    const { UMBEL_QWEN_BIN: _, ...callerEnv } = o.callerEnv;
    const custom = createQwen({ bin: configured, extraArgs: ['--debug'] });
    expect((await custom.doBuildLaunch({ ...o, callerEnv })).argv).toEqual([configured, '--debug']);
    expect((await custom.doBuildLaunch(options())).argv).toEqual([fakeBin, '--debug']);
  });
});

describe('tools (actions, diff)', () => {
  it('classifies the real 0.15.10 tools by their parameters, and reads a failed shell command', () => {
    expect(qwen.doClassifyTool?.({ name: 'read_file', input: { file_path: '/w/a.ts' } })).toEqual({ read: ['/w/a.ts'] });
    expect(qwen.doClassifyTool?.({ name: 'write_file', input: { file_path: 'b.ts', content: 'x' } })).toEqual({ written: ['b.ts'] });
    expect(qwen.doClassifyTool?.({ name: 'edit', input: { file_path: 'c.ts', old_string: 'a', new_string: 'b' } })).toEqual({ edited: ['c.ts'] });
    expect(qwen.doClassifyTool?.({ name: 'run_shell_command', input: { command: 'touch approved.txt' } })).toEqual({ command: 'touch approved.txt' });
    expect(qwen.doClassifyTool?.({ name: 'glob', input: { pattern: '*.ts' } })).toEqual({});
    const ok = 'Command: ls\nDirectory: (root)\nOutput: a\nError: (none)\nExit Code: 0';
    expect(qwen.doReadToolError?.({ name: 'run_shell_command', content: ok, isError: false })).toBeUndefined();
    expect(qwen.doReadToolError?.({ name: 'run_shell_command', content: ok.replace('Exit Code: 0', 'Exit Code: 2'), isError: false })).toBe('Exit Code: 2');
    expect(qwen.doReadToolError?.({ name: 'edit', content: '{"error":"no match"}', isError: false })).toBe('no match');
  });

  it("reads a turn's messages (stream-json, actions) from the chat recording", () => {
    const content = fixture('real-0.15.10-chat.jsonl');
    const messages = qwen.doReadMessages?.({ content, transcriptPath: '/x.jsonl', ordinal: 7, prompt: 'TOOL touch approved.txt', stopSeen: true });
    expect(messages?.map((m) => m.type)).toEqual(['assistant', 'user', 'assistant']);
  });
});

describe('Qwen Code confirms every prompt it takes with UserPromptSubmit (BACKGROUND-FACTS.md §4)', () => {
  it("declares it (`promptHook: 'every-prompt'`): its own <task-notification> turn fires only a Stop, a queued prompt its prompt hook when it starts", () => {
    expect(qwen.promptHook).toBe('every-prompt');
    // the recording: turn 1's prompt, its Stop, then the notification turn's bare Stop, then the next prompt
    const kinds = fixture('real-0.15.10-background-hooks.jsonl')
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { kind: string }).kind)
      .filter((k) => k === 'UserPromptSubmit' || k === 'Stop');
    expect(kinds).toEqual(['UserPromptSubmit', 'Stop', 'Stop', 'UserPromptSubmit', 'Stop']);
  });
});
