import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HookEvent, ProviderV1Launch, ProviderV1LaunchOptions } from '@umbel/core';
import { afterAll, describe, expect, it } from 'vitest';
import { COPILOT_API_BILLING_ENV, COPILOT_HOOK_EVENTS, VERSION, withTranscriptPath } from './index.js';
import { copilot, createCopilot } from './provider.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'umbel-copilot-provider-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));
/** A stand-in executable (the launch only checks that it is one). */
const bin = join(root, 'copilot');
writeFileSync(bin, '#!/bin/sh\n');
chmodSync(bin, 0o755);
let n = 0;
const SESSION = '00000000-0000-4000-8000-000000000000';

function options(over: Partial<ProviderV1LaunchOptions> = {}): ProviderV1LaunchOptions {
  const dir = join(root, `w${++n}`);
  mkdirSync(join(dir, 'provider'), { recursive: true });
  const sink = join(root, 'hooks', 'umbel-hook');
  return {
    worker: `w${n}`,
    cwd: root,
    unattended: false,
    env: { PATH: '/usr/bin:/bin', HOME: root, COPILOT_PROVIDER_API_KEY: 'sk-secret-value-1234' },
    callerEnv: { PATH: '/usr/bin:/bin', HOME: root, UMBEL_COPILOT_BIN: bin },
    workerDir: join(dir, 'provider'),
    sharedDir: join(root, 'shared'),
    sessionId: SESSION,
    hookSinkPath: sink,
    hookCommand: (kind) => `${sink} ${kind}`,
    ...over,
  };
}
const fileOf = (launch: ProviderV1Launch, tail: string) => launch.files?.find((f) => f.path.endsWith(tail));

describe('the launch', () => {
  it("loads the worker's hooks plugin, takes umbel's session id, never updates itself; the transcript is that session's events file", async () => {
    const o = options();
    const launch = await copilot.doBuildLaunch(o);
    const dir = join(o.workerDir, 'copilot-plugin');
    expect(launch.argv).toEqual([bin, '--plugin-dir', dir, '--session-id', SESSION]);
    expect(launch.env).toMatchObject({ COPILOT_AUTO_UPDATE: 'false' });
    expect(launch.sessionId).toBe(SESSION);
    expect(launch.transcriptPath).toBe(join(root, '.copilot', 'session-state', SESSION, 'events.jsonl'));
    expect(launch.files?.map((f) => [f.path, f.mode])).toEqual([
      [join(dir, '.plugin', 'plugin.json'), 0o600],
      [join(dir, 'hooks', 'hooks.json'), 0o600],
    ]);
    expect(JSON.parse(fileOf(launch, 'plugin.json')?.content ?? '')).toMatchObject({ name: 'umbel-worker' });
    const hooks = JSON.parse(fileOf(launch, 'hooks.json')?.content ?? '');
    expect(hooks.version).toBe(1);
    expect(Object.keys(hooks.hooks)).toEqual(Object.keys(COPILOT_HOOK_EVENTS));
    expect(hooks.hooks.agentStop).toEqual([{ type: 'command', bash: `${o.hookSinkPath} stop`, timeoutSec: 30 }]);
    // the prompt hook adds the events file to its payload (a failed turn names it nowhere else)
    expect(hooks.hooks.userPromptSubmitted[0].bash).toBe(`sed 's|^{|{"transcriptPath":"${launch.transcriptPath}",|' | ${o.hookSinkPath} prompt`);
    // and so does the session hook (umbel doctor reads the session payload for it)
    expect(hooks.hooks.sessionStart[0].bash).toBe(`sed 's|^{|{"transcriptPath":"${launch.transcriptPath}",|' | ${o.hookSinkPath} session`);
    expect(hooks.hooks.permissionRequest[0].bash).toBe(`${o.hookSinkPath} permission`);
    expect(JSON.stringify(launch)).not.toContain('sk-secret-value-1234');
  });

  it('COPILOT_HOME moves the events file', async () => {
    const launch = await copilot.doBuildLaunch(options({ env: { PATH: '/usr/bin:/bin', HOME: root, COPILOT_HOME: '/state/cp' } }));
    expect(launch.transcriptPath).toBe(join('/state/cp', 'session-state', SESSION, 'events.jsonl'));
  });

  it('permission modes are flags; unattended allows everything; --model and --allow-tool pass through', async () => {
    const argv = async (o: Partial<ProviderV1LaunchOptions>) => (await copilot.doBuildLaunch(options(o))).argv.slice(5);
    expect(await argv({ permissionMode: 'default' })).toEqual([]);
    expect(await argv({ permissionMode: 'plan' })).toEqual(['--plan']);
    expect(await argv({ permissionMode: 'allow' })).toEqual(['--allow-all']);
    expect(await argv({ unattended: true })).toEqual(['--allow-all']);
    expect(await argv({ model: 'gpt-5.4' })).toEqual(['--model', 'gpt-5.4']);
    expect(await argv({ allowedTools: 'shell(git:*)' })).toEqual(['--allow-tool', 'shell(git:*)']);
    expect(copilot.capabilities).toEqual({
      unattended: true,
      allowedTools: true,
      appendSystemPrompt: false,
      permissionModes: ['default', 'plan', 'allow'],
      model: true,
    });
  });
});

describe('the prompt hook names the events file', () => {
  const run = (command: string, input: string) => execFileSync('sh', ['-c', command], { input, encoding: 'utf8' });
  it('its payload, as Copilot writes it, gets transcriptPath first and stays JSON', () => {
    const payload = '{"sessionId":"11111111-2222-4333-8444-555555555555","timestamp":1,"cwd":"/w","prompt":"ECHO a|b & \\"c\\""}';
    const out = JSON.parse(run(withTranscriptPath('cat', "/home/u v/it's/.copilot/session-state/x/events.jsonl"), payload));
    expect(out).toEqual({ transcriptPath: "/home/u v/it's/.copilot/session-state/x/events.jsonl", ...JSON.parse(payload) });
  });
  it('a path sed cannot take literally, or none, leaves the command alone', () => {
    for (const path of ['/a|b/events.jsonl', '/a&b/events.jsonl', '/a\\b/events.jsonl', undefined])
      expect(withTranscriptPath('sink prompt', path)).toBe('sink prompt');
  });
});

describe('env and billing (subscription first)', () => {
  it('BYOK and token variables are never inherited', () => {
    for (const name of [
      'COPILOT_PROVIDER_BASE_URL',
      'COPILOT_PROVIDER_API_KEY',
      'COPILOT_PROVIDER_BEARER_TOKEN',
      'COPILOT_GITHUB_TOKEN',
      'GH_TOKEN',
      'GITHUB_TOKEN',
    ]) {
      expect(copilot.billing?.apiEnv).toContain(name);
      expect(copilot.inheritEnv).not.toContain(name);
    }
    expect(copilot.inheritEnv).toEqual(expect.arrayContaining(['COPILOT_HOME', 'COPILOT_OFFLINE']));
  });

  it('Copilot markers and COPILOT_ALLOW_ALL are removed from every worker env', async () => {
    const launch = await copilot.doBuildLaunch(options());
    expect(launch.unsetEnv).toEqual([
      'COPILOT_CLI',
      'COPILOT_AGENT_SESSION_ID',
      'COPILOT_CLI_BINARY_VERSION',
      'COPILOT_CLI_RESOLVED_DIST_DIR',
      'COPILOT_ALLOW_ALL',
    ]);
  });

  it('the GitHub sign-in is the subscription; a passed BYOK or token variable bills the API', () => {
    expect(copilot.doDetectBilling?.({ screen: '', envNames: ['PATH'] })).toMatchObject({ billing: 'subscription' });
    for (const name of COPILOT_API_BILLING_ENV) {
      expect(copilot.doDetectBilling?.({ screen: '', envNames: ['PATH', name] })).toEqual({ billing: 'api', evidence: `${name} passed` });
    }
    expect(copilot.billing?.endpointEnv).toEqual(['COPILOT_PROVIDER_BASE_URL']);
  });
});

// The hook payloads of the recorded real session (test-fixtures/real/COPILOT-FACTS.md §4).
const recorded = readFileSync(new URL('./__fixtures__/real-1.0.102-hooks.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { event: string; payload: Record<string, unknown> });
const payloadOf = (event: string) => recorded.find((r) => r.event === event)?.payload;
const parse = (event: keyof typeof COPILOT_HOOK_EVENTS, payload = payloadOf(event)) =>
  copilot.doParseEvent({ kind: COPILOT_HOOK_EVENTS[event], at: 1n, payload } as HookEvent);

describe('what the recorded hook payloads say', () => {
  it('session, prompt and stop name the session; stop names the events file', () => {
    expect(parse('sessionStart')).toEqual({ sessionId: '11111111-2222-4333-8444-555555555555' });
    expect(parse('userPromptSubmitted')).toEqual({ sessionId: '11111111-2222-4333-8444-555555555555' });
    expect(parse('agentStop')).toEqual({
      sessionId: '11111111-2222-4333-8444-555555555555',
      transcriptPath: '/tmp/hB-home5/.copilot/session-state/11111111-2222-4333-8444-555555555555/events.jsonl',
    });
  });

  it('a permission request needs input, naming the tool and its command; tools and failed calls are activity', () => {
    expect(parse('permissionRequest').needsInput).toEqual({ kind: 'permission', tool: 'bash', message: 'Copilot asks to use bash: touch made-by-tool.txt' });
    expect(parse('preToolUse').activity).toBe('bash: touch made-by-tool.txt');
    expect(parse('postToolUse').activity).toBe('bash: touch made-by-tool.txt');
    expect(parse('errorOccurred').activity).toMatch(/^model call failed \(Copilot retries\): \{"message":"/);
    expect(parse('errorOccurred').needsInput).toBeUndefined();
  });
});

const screen = (name: string) => readFileSync(new URL(`./__fixtures__/real-1.0.102-screen-${name}.txt`, import.meta.url), 'utf8');

describe('recorded screens', () => {
  const startup = (name: string) => copilot.doDetectStartup({ screen: screen(name), events: [] });
  it('the trust dialog is answered with Enter (this session only); then ready; a sign-in request is reported', () => {
    expect(startup('trust')).toEqual({ state: 'dialog', id: 'trust-folder', keys: ['Enter'] });
    expect(startup('ready')).toEqual({ state: 'ready' });
    expect(startup('after-turn')).toEqual({ state: 'ready' });
    expect(startup('sign-in')).toEqual({ state: 'sign-in', line: 'Please use /login to sign in to use Copilot' });
    expect(copilot.doDetectStartup({ screen: '', events: [] })).toEqual({ state: 'starting' });
  });

  it('the permission dialog takes keys; the input box reads a multi-line draft and is empty after a turn', () => {
    expect(copilot.doDetectInputPrompt?.(screen('permission'))).toBe(true);
    expect(copilot.doDetectInputPrompt?.(screen('ready'))).toBe(false);
    expect(copilot.doDetectInputPrompt?.(screen('trust'))).toBe(false);
    expect(copilot.doReadInputBox?.(screen('draft-multiline'))).toBe('ECHO line one\nline two');
    expect(copilot.doReadInputBox?.(screen('after-turn'))).toBe('');
    expect(copilot.doReadInputBox?.(screen('after-abort'))).toBe('');
    expect(copilot.doReadInputBox?.(screen('permission'))).toBeUndefined();
    expect(copilot.input?.clearKeys).toEqual(['C-c']);
  });
});

describe('prompts and the package', () => {
  it('prompts are byte-exact; CR becomes LF; a leading / gets one space; a leading ! is refused', () => {
    const prepare = (p: string) => copilot.doPreparePrompt?.(p) ?? p;
    expect(prepare('  ECHO lead\n\tindented ünï 🎉\ttab  ')).toBe('  ECHO lead\n\tindented ünï 🎉\ttab  ');
    expect(prepare('a\r\nb\rc')).toBe('a\nb\nc');
    expect(prepare('/exit')).toBe(' /exit');
    // a leading ! runs a local shell command, even after spaces (verified on 1.0.102): refused
    for (const prompt of ['!rm -rf x', '  !echo hi', '\n!ls']) expect(() => prepare(prompt)).toThrow(/Copilot would run '!/);
    expect(prepare('say !hi')).toBe('say !hi');
    expect(copilot.input).toMatchObject({ alwaysPaste: true, cancelKeys: ['Escape'] });
  });

  it('names itself, the version it was verified on, and classifies its tools', () => {
    expect(copilot).toMatchObject({ providerId: 'copilot', displayName: 'GitHub Copilot CLI', verifiedVersions: ['1.0.102'] });
    expect(createCopilot({ providerId: 'copilot-2' }).providerId).toBe('copilot-2');
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
    expect(manifest.name).toBe('@umbel/provider-copilot');
    expect(VERSION).toBe(manifest.version);
    expect(copilot.doClassifyTool?.({ name: 'bash', input: { command: 'ls' } })).toEqual({ command: 'ls' });
    expect(copilot.doClassifyTool?.({ name: 'edit', input: { path: '/a.ts', old_str: 'a', new_str: 'b' } })).toEqual({ edited: ['/a.ts'] });
    expect(copilot.doClassifyTool?.({ name: 'create', input: { path: '/b.ts', file_text: '' } })).toEqual({ written: ['/b.ts'] });
    expect(copilot.doClassifyTool?.({ name: 'view', input: { path: '/c.ts' } })).toEqual({ read: ['/c.ts'] });
    expect(copilot.doClassifyTool?.({ name: 'grep', input: { pattern: 'x' } })).toEqual({});
  });
});

// The hook payloads umbel's sink got in a real session with subagents (BACKGROUND-FACTS.md §7): a
// sync subagent, a background one, and the turn Copilot started by itself when it ended.
const withAgents = readFileSync(new URL('./__fixtures__/real-1.0.102-subagents-hooks.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { kind: string; payload: Record<string, unknown> });
const MAIN = '646851cf-ad37-48a7-9cd8-c30baefc689b';
const SYNC_AGENT = 'c50dd98b-3ddc-4783-8f5a-d2422718c2e6';
const parseHook = ({ kind, payload }: { kind: string; payload: Record<string, unknown> }) => copilot.doParseEvent({ kind, at: 1n, payload } as HookEvent);

describe('the hooks Copilot fires for subagents and for the turn it starts by itself', () => {
  it("a subagent's prompt and stop name no session; its prompt is self-started; both carry the agent's key", () => {
    const ofAgent = withAgents.filter((h) => h.payload.agentId === SYNC_AGENT);
    expect(ofAgent.map((h) => h.kind)).toEqual(['prompt', 'stop']);
    const [prompt, stop] = ofAgent.map(parseHook);
    expect(prompt).toMatchObject({ selfStarted: true, turnKey: `agent:${SYNC_AGENT}` });
    expect(stop).toMatchObject({ turnKey: `agent:${SYNC_AGENT}` });
    expect(prompt).not.toHaveProperty('sessionId');
    expect(stop).not.toHaveProperty('sessionId');
    // nor a transcript: both payloads name the worker's own events file, which its prompt already named
    expect(ofAgent.map((h) => h.payload.transcriptPath)).toEqual([expect.stringContaining(MAIN), expect.stringContaining(MAIN)]);
    expect(prompt).not.toHaveProperty('transcriptPath');
    expect(stop).not.toHaveProperty('transcriptPath');
  });

  it("the main agent's prompts and stops are umbel's turns; the <system_notification> prompt is self-started", () => {
    const main = withAgents.filter((h) => h.payload.agentId === undefined && (h.kind === 'prompt' || h.kind === 'stop'));
    const notification = main.find((h) => String(h.payload.prompt ?? '').startsWith('<system_notification>'));
    expect(notification && parseHook(notification)).toMatchObject({ selfStarted: true, sessionId: MAIN });
    for (const hook of main.filter((h) => h !== notification)) {
      expect(parseHook(hook)).toMatchObject({ sessionId: MAIN });
      expect(parseHook(hook)).not.toHaveProperty('selfStarted');
      expect(parseHook(hook)).not.toHaveProperty('turnKey');
    }
  });
});
