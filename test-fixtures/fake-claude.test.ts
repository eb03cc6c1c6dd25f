/**
 * Tests of the fake `claude` (test-fixtures/fake-claude, shim test-fixtures/bin/claude): print mode
 * against the outputs recorded from the real 2.1.328 (test-fixtures/real/recorded), and the TUI driven
 * through a private tmux socket (allowed in test-fixtures tests only). Facts:
 * /work/shared/reference/claude-code.md. Waits are event-driven (polling a condition with a generous
 * deadline); nothing asserts on timing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { privateTmux } from './lib/private-tmux.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const FAKE = join(here, 'bin', 'claude');
const RECORDED = join(here, 'real', 'recorded');
const WAIT_MS = 30_000;

type Json = Record<string, any>;
interface HookRecord {
  readonly kind: string;
  readonly payload: Json;
  readonly transcriptAtHook: string | null;
  readonly env: Record<string, string | undefined>;
}

/** A hook that records its payload, the transcript as it was at that moment, and some env. */
const RECORDER = `import { readFileSync, renameSync, writeFileSync } from 'node:fs';
const [kind, dir] = process.argv.slice(2);
const input = readFileSync(0, 'utf8');
let payload;
try { payload = JSON.parse(input); } catch { payload = { raw: input }; }
let transcriptAtHook = null;
try { transcriptAtHook = readFileSync(payload.transcript_path, 'utf8'); } catch {}
const env = { CLAUDE_PROJECT_DIR: process.env.CLAUDE_PROJECT_DIR, CLAUDECODE: process.env.CLAUDECODE };
const stamp = String(Math.round((performance.timeOrigin + performance.now()) * 1000)).padStart(20, '0');
const name = stamp + '-' + kind + '-' + process.pid + '.json';
writeFileSync(dir + '/.' + name, JSON.stringify({ kind, payload, transcriptAtHook, env }));
renameSync(dir + '/.' + name, dir + '/' + name);
`;

const EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'PostToolBatch',
  'PermissionRequest',
  'Notification',
  'Stop',
  'StopFailure',
  'SessionEnd',
];

async function waitFor<T>(what: string, probe: () => T | undefined | false, timeoutMs = WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 40));
  }
}

function parseJsonl(text: string): Json[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Json];
      } catch {
        return [];
      }
    });
}

/** One scratch world: home, config dir, workdir, event dir, settings with recording hooks. */
class World {
  readonly root = realpathSync(mkdtempSync(join(tmpdir(), 'fake-claude-')));
  readonly home = join(this.root, 'home');
  readonly config = join(this.root, 'config');
  readonly work = join(this.root, 'work');
  readonly events = join(this.root, 'events');
  readonly settings = join(this.root, 'settings.json');

  constructor() {
    for (const d of [this.home, this.config, this.work, this.events]) mkdirSync(d, { recursive: true });
    const recorder = join(this.root, 'recorder.mjs');
    writeFileSync(recorder, RECORDER);
    const hooks: Json = {};
    for (const e of EVENTS) {
      hooks[e] = [{ matcher: '*', hooks: [{ type: 'command', command: `node ${recorder} ${e} ${this.events}` }] }];
    }
    writeFileSync(this.settings, JSON.stringify({ hooks }));
  }

  /** Seed `.claude.json` (§2.2). */
  seed(extra: Json = {}, trust = true): void {
    const seed: Json = { hasCompletedOnboarding: true, ...extra };
    if (trust) seed.projects = { [this.work]: { hasTrustDialogAccepted: true } };
    writeFileSync(join(this.config, '.claude.json'), JSON.stringify(seed));
  }

  globalConfig(): Json {
    return JSON.parse(readFileSync(join(this.config, '.claude.json'), 'utf8')) as Json;
  }

  hooks(kind?: string): HookRecord[] {
    return readdirSync(this.events)
      .filter((f) => f.endsWith('.json') && !f.startsWith('.'))
      .sort()
      .map((f) => JSON.parse(readFileSync(join(this.events, f), 'utf8')) as HookRecord)
      .filter((h) => kind === undefined || h.kind === kind);
  }

  baseEnv(extra: Record<string, string> = {}): Record<string, string> {
    return {
      HOME: this.home,
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      CLAUDE_CONFIG_DIR: this.config,
      DISABLE_AUTOUPDATER: '1',
      ...extra,
    };
  }

  dispose(): void {
    // a fake killed with the tmux server may still be running its SessionEnd hook
    rmSync(this.root, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  }
}

/** Run the fake in print mode (stdin /dev/null unless `input`). */
function runPrint(world: World, args: string[], env: Record<string, string> = {}, input?: string) {
  const r = spawnSync(FAKE, args, {
    cwd: world.work,
    env: world.baseEnv(env),
    input,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    encoding: 'utf8',
    timeout: WAIT_MS,
  });
  return { rc: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A private tmux server for one test; killed in afterEach. */
class Tmux {
  private readonly server = privateTmux('fake-claude-test');
  private started = false;

  run(...args: string[]): string {
    return this.server.run(...args);
  }

  /** Start the fake TUI as the pane's direct command (remain-on-exit on, set before it starts). */
  start(world: World, args: string[], env: Record<string, string> = {}): void {
    if (!this.started) {
      this.run('new-session', '-d', '-s', 'keeper', 'sleep', '600', ';', 'set-option', '-g', 'remain-on-exit', 'on');
      this.started = true;
    }
    const envArgs = Object.entries(world.baseEnv(env)).map(([k, v]) => `${k}=${v}`);
    this.run('new-session', '-d', '-s', 'w', '-x', '120', '-y', '40', '-c', world.work, 'env', '-i', ...envArgs, FAKE, ...args);
  }

  /** The visible screen; `withHistory` adds the scrollback (a dead pane's "Pane is dead" line scrolls the screen). */
  capture(withHistory = false): string {
    return this.run('capture-pane', '-p', ...(withHistory ? ['-S', '-'] : []), '-t', 'w');
  }

  keys(...keys: string[]): void {
    this.run('send-keys', '-t', 'w', ...keys);
  }

  type(text: string): void {
    this.run('send-keys', '-t', 'w', '-l', text);
  }

  paste(text: string): void {
    this.server.run({ input: text }, 'load-buffer', '-b', 'p', '-');
    this.run('paste-buffer', '-p', '-d', '-b', 'p', '-t', 'w');
  }

  /**
   * Wait until the pane is dead with an exit status. tmux 3.3a marks the pane dead on EOF and sets the
   * status when it reaps the child; under load it sometimes misses that SIGCHLD and leaves a zombie
   * (status empty) until another child of the server exits. `run-shell true` is such a child.
   */
  async exitStatus(): Promise<string> {
    return waitFor('pane dead with a status', () => {
      const d = this.dead();
      if (d.dead && d.status === '') this.run('run-shell', 'true');
      return d.dead && d.status !== '' ? d.status : undefined;
    });
  }

  dead(): { dead: boolean; status: string } {
    const [d, s] = this.run('display', '-p', '-t', 'w', '#{pane_dead} #{pane_dead_status}').trim().split(' ');
    return { dead: d === '1', status: s ?? '' };
  }

  /**
   * Kill the server, then wait until the fake is gone (its SIGHUP path still runs SessionEnd hooks);
   * whatever of the panes' processes outlives WAIT_MS is SIGKILLed. The socket goes too.
   */
  async kill(): Promise<void> {
    await this.server.dispose({ graceMs: WAIT_MS });
  }
}

let world: World;
beforeEach(() => {
  world = new World();
});
afterEach(() => {
  world.dispose();
});

describe('print mode (-p), compared with 2.1.328 recordings', () => {
  it('prints --version like the real binary', () => {
    const r = runPrint(world, ['--version']);
    expect(r).toMatchObject({ rc: 0, stdout: '2.1.328 (Claude Code)\n' });
  });

  it('text format: the reply plus a newline, rc 0; stdin is appended to the argument', () => {
    const recorded = readFileSync(join(RECORDED, 'claude-p-text.txt'), 'utf8');
    expect(runPrint(world, ['-p', 'ECHO hi'])).toMatchObject({ rc: 0, stdout: recorded });
    expect(runPrint(world, ['-p', 'hello there']).stdout).toBe('MOCK-REPLY: hello there\n');
    expect(runPrint(world, ['-p', 'ECHO arg'], {}, 'line1\nline2\n').stdout).toBe('arg\nline1\nline2\n\n');
    expect(runPrint(world, ['-p'], {}, 'ECHO piped\n').stdout).toBe('piped\n\n');
  });

  it('usage errors: no prompt, stream-json without --verbose, a reused --session-id', () => {
    expect(runPrint(world, ['-p'])).toMatchObject({
      rc: 1,
      stdout: '',
      stderr: 'Error: Input must be provided either through stdin or as a prompt argument when using --print\n',
    });
    expect(runPrint(world, ['-p', 'x', '--output-format', 'stream-json'])).toMatchObject({
      rc: 1,
      stderr: 'Error: When using --print, --output-format=stream-json requires --verbose\n',
    });
    const sid = '11111111-2222-4333-8444-555555555555';
    expect(runPrint(world, ['-p', 'first', '--session-id', sid]).rc).toBe(0);
    expect(runPrint(world, ['-p', 'again', '--session-id', sid])).toMatchObject({ rc: 1, stderr: `Error: Session ID ${sid} is already in use.\n` });
    expect(runPrint(world, ['-p', 'x', '--session-id', 'nope'])).toMatchObject({ rc: 1, stderr: 'Error: Invalid session ID. Must be a valid UUID.\n' });
  });

  it('RECALL answers with the earlier prompts of its conversation: a --resume really resumes it, a new session recalls nothing', () => {
    const sid = '66666666-2222-4333-8444-555555555555';
    expect(runPrint(world, ['-p', 'ECHO one', '--session-id', sid]).rc).toBe(0);
    expect(runPrint(world, ['-p', 'second prompt', '--resume', sid]).rc).toBe(0);
    expect(runPrint(world, ['-p', 'RECALL', '--resume', sid]).stdout).toBe('RECALL: ECHO one | second prompt\n');
    expect(runPrint(world, ['-p', 'RECALL']).stdout).toBe('RECALL: (nothing)\n');
  });

  it('json format has the recorded keys, in the recorded order', () => {
    const recorded = JSON.parse(readFileSync(join(RECORDED, 'claude-p-json.json'), 'utf8')) as Json;
    const r = runPrint(world, ['-p', 'ECHO hi', '--output-format', 'json']);
    expect(r.rc).toBe(0);
    const out = JSON.parse(r.stdout) as Json;
    expect(out).toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'hi',
      num_turns: 1,
      terminal_reason: 'completed',
      stop_reason: 'end_turn',
      permission_denials: [],
    });
    const keys = Object.keys(out);
    for (const k of keys) expect(recorded, `key ${k} exists in the real output`).toHaveProperty(k);
    const realOrder = Object.keys(recorded).filter((k) => keys.includes(k));
    expect(keys).toEqual(realOrder);
    expect(Object.keys(out.modelUsage)).toEqual(Object.keys(recorded.modelUsage));
  });

  it('API error: error text on stdout, rc 1, json is_error with the recorded text', () => {
    const recorded = JSON.parse(readFileSync(join(RECORDED, 'claude-p-error-500-json.json'), 'utf8')) as Json;
    const env = { CLAUDE_CODE_MAX_RETRIES: '0', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' };
    const r = runPrint(world, ['-p', 'FAIL 500 mock boom', '--output-format', 'json'], env);
    expect(r.rc).toBe(1);
    const out = JSON.parse(r.stdout) as Json;
    const expected = (recorded.result as string).replace('<port>', '9');
    expect(out).toMatchObject({
      subtype: 'success',
      is_error: true,
      api_error_status: 500,
      api_error_type: 'api_error',
      terminal_reason: 'api_error',
      stop_reason: 'stop_sequence',
      num_turns: 1,
      result: expected,
    });
    const text = runPrint(world, ['-p', 'FAIL 500 mock boom'], env);
    expect(text).toMatchObject({ rc: 1, stdout: `${expected}\n`, stderr: '' });
    // FAIL 500 x1 recovers on the retry
    expect(runPrint(world, ['-p', 'FAIL 500 x1 ECHO back'], { CLAUDE_CODE_MAX_RETRIES: '1' })).toMatchObject({ rc: 0, stdout: 'back\n' });
  });

  it('stream-json --verbose: init, assistant, result like the recording; hooks fire (SessionStart without model)', () => {
    const recorded = parseJsonl(readFileSync(join(RECORDED, 'claude-p-stream-json.jsonl'), 'utf8'));
    const r = runPrint(world, ['-p', 'ECHO hi', '--output-format', 'stream-json', '--verbose', '--settings', world.settings]);
    expect(r.rc).toBe(0);
    const lines = parseJsonl(r.stdout);
    const shape = (l: Json) => `${l.type}${l.subtype ? `/${l.subtype}` : ''}`;
    expect(lines.map(shape)).toEqual(recorded.map(shape));
    expect(lines[1]?.message?.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(lines.at(-1)).toMatchObject({ result: 'hi', session_id: lines[0]?.session_id });
    const kinds = world.hooks().map((h) => h.kind);
    expect(kinds).toEqual(['SessionStart', 'UserPromptSubmit', 'Stop', 'SessionEnd']);
    const start = world.hooks('SessionStart')[0]!.payload;
    expect(start).not.toHaveProperty('model');
    expect(world.hooks('SessionEnd')[0]!.payload.reason).toBe('other');
  });

  it.runIf(process.getuid?.() === 0)('as root, bypass needs IS_SANDBOX=1', () => {
    const refused = runPrint(world, ['-p', 'x', '--dangerously-skip-permissions']);
    expect(refused).toMatchObject({ rc: 1, stderr: '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n' });
    expect(runPrint(world, ['-p', 'x', '--permission-mode', 'bypassPermissions']).rc).toBe(1);
    expect(runPrint(world, ['-p', 'TOOL touch b.txt', '--dangerously-skip-permissions'], { IS_SANDBOX: '1' })).toMatchObject({
      rc: 0,
      stdout: 'TOOL-RESULT: (Bash completed with no output)\n',
    });
  });

  it('tool calls: denied in default mode (permission_denials), run with --allowedTools', () => {
    const denied = JSON.parse(runPrint(world, ['-p', 'TOOL touch made.txt', '--output-format', 'json']).stdout) as Json;
    expect(denied.permission_denials).toMatchObject([{ tool_name: 'Bash', tool_input: { command: 'touch made.txt' } }]);
    expect(existsSync(join(world.work, 'made.txt'))).toBe(false);
    const ok = runPrint(world, ['-p', '--allowedTools', 'Bash(touch:*)', '--', 'TOOL touch made.txt']);
    expect(ok).toMatchObject({ rc: 0, stdout: 'TOOL-RESULT: (Bash completed with no output)\n' });
    expect(existsSync(join(world.work, 'made.txt'))).toBe(true);
    expect(runPrint(world, ['-p', 'TOOL echo recorded']).stdout).toBe('TOOL-RESULT: recorded\n');
  });
});

describe('TUI through tmux', () => {
  let tmux: Tmux;
  beforeEach(() => {
    tmux = new Tmux();
  });
  afterEach(async () => {
    await tmux.kill();
  });

  const box = (screen: string) => {
    const lines = screen.split('\n');
    const rule = lines.findIndex((l) => l.startsWith('───'));
    return rule >= 0 ? lines[rule + 1] : undefined;
  };

  it('a turn: hook payloads, transcript shape, the final answer lands after the Stop hook', async () => {
    world.seed();
    tmux.start(world, ['--settings', world.settings]);
    await waitFor('SessionStart', () => world.hooks('SessionStart')[0]);
    await waitFor('full footer', () => tmux.capture().includes('⏵⏵ auto mode on (shift+tab to cycle)'));
    const start = world.hooks('SessionStart')[0]!;
    expect(start.payload).toMatchObject({ hook_event_name: 'SessionStart', source: 'startup', model: 'claude-opus-5-5', cwd: world.work });
    expect(start.transcriptAtHook).toBeNull();
    expect(start.env).toMatchObject({ CLAUDE_PROJECT_DIR: world.work, CLAUDECODE: '1' });
    const sessionFile = join(world.config, 'sessions', `${readdirSync(join(world.config, 'sessions'))[0]!.split('.')[0]}.json`);

    tmux.type('ECHO the answer');
    tmux.keys('Enter');
    const ups = await waitFor('UserPromptSubmit', () => world.hooks('UserPromptSubmit')[0]);
    expect(ups.payload).toMatchObject({
      hook_event_name: 'UserPromptSubmit',
      prompt: 'ECHO the answer',
      permission_mode: 'auto',
      session_id: start.payload.session_id,
    });
    const stop = await waitFor('Stop', () => world.hooks('Stop')[0]);
    expect(stop.payload).toMatchObject({
      hook_event_name: 'Stop',
      prompt_id: ups.payload.prompt_id,
      stop_hook_active: false,
      last_assistant_message: 'the answer',
      transcript_path: start.payload.transcript_path,
    });
    // The transcript lags the Stop hook (§4): the answer is not there yet when Stop runs …
    expect(stop.transcriptAtHook ?? '').not.toContain('"the answer"');
    // … and arrives, followed by turn_duration.
    const path = stop.payload.transcript_path as string;
    const entries = await waitFor('turn_duration', () => {
      const e = existsSync(path) ? parseJsonl(readFileSync(path, 'utf8')) : [];
      return e.some((x) => x.type === 'system' && x.subtype === 'turn_duration') ? e : undefined;
    });
    const user = entries.find((e) => e.type === 'user')!;
    expect(user).toMatchObject({
      promptId: ups.payload.prompt_id,
      origin: { kind: 'human' },
      promptSource: 'typed',
      message: { role: 'user', content: 'ECHO the answer' },
    });
    const answerAt = entries.findIndex((e) => e.type === 'assistant');
    expect(entries[answerAt]).toMatchObject({ message: { role: 'assistant', content: [{ type: 'text', text: 'the answer' }], stop_reason: 'end_turn' } });
    expect(entries[answerAt]!.message.id).toMatch(/^msg_/);
    expect(answerAt).toBeLessThan(entries.findIndex((e) => e.subtype === 'turn_duration'));
    expect(entries.map((e) => e.type)).toEqual(expect.arrayContaining(['mode', 'permission-mode', 'file-history-snapshot', 'last-prompt']));
    await waitFor('idle status', () => JSON.parse(readFileSync(sessionFile, 'utf8')).status === 'idle');
    expect(tmux.capture()).toContain('● the answer');

    // /exit: SessionEnd prompt_input_exit, rc 0, sessions/<pid>.json removed.
    tmux.type('/exit');
    tmux.keys('Enter');
    expect(await tmux.exitStatus()).toBe('0');
    expect(world.hooks('SessionEnd')[0]!.payload.reason).toBe('prompt_input_exit');
    expect(existsSync(sessionFile)).toBe(false);
  });

  it('bracketed paste of a multi-line prompt arrives exactly in UserPromptSubmit and the transcript', async () => {
    world.seed();
    tmux.start(world, ['--settings', world.settings]);
    await waitFor('SessionStart', () => world.hooks('SessionStart')[0]);
    const sent = 'ECHO first line\nsecond\tline "quoted" $HOME `tick`\n  ünïcödé 🚀\nlast';
    const expected = sent.replace(/\t/g, '    ');
    tmux.paste(sent);
    await waitFor('paste in the box', () => box(tmux.capture())?.startsWith('❯ [Pasted text #1 +3 lines]'));
    expect(world.hooks('UserPromptSubmit')).toHaveLength(0); // newlines in a paste do not submit
    tmux.keys('Enter');
    const ups = await waitFor('UserPromptSubmit', () => world.hooks('UserPromptSubmit')[0]);
    expect(ups.payload.prompt).toBe(expected);
    const stop = await waitFor('Stop', () => world.hooks('Stop')[0]);
    expect(stop.payload.last_assistant_message).toBe(expected.slice('ECHO '.length));
    const entries = await waitFor('turn_duration', () => {
      const e = parseJsonl(existsSync(stop.payload.transcript_path) ? readFileSync(stop.payload.transcript_path, 'utf8') : '');
      return e.some((x) => x.subtype === 'turn_duration') ? e : undefined;
    });
    expect(entries.find((e) => e.type === 'user')!.message.content).toBe(expected);
    expect(world.hooks('UserPromptSubmit')).toHaveLength(1);
  });

  it('manual mode: permission dialog; Enter runs the tool, Esc denies with no Stop', async () => {
    world.seed();
    tmux.start(world, ['--settings', world.settings, '--permission-mode', 'default']);
    await waitFor('SessionStart', () => world.hooks('SessionStart')[0]);
    await waitFor('manual footer', () => tmux.capture().includes('⏸ manual mode on · ? for shortcuts'));
    tmux.type('TOOL touch yes.txt');
    tmux.keys('Enter');
    await waitFor('PermissionRequest', () => world.hooks('PermissionRequest')[0]);
    await waitFor('dialog', () => tmux.capture().includes(' ❯ 1. Yes'));
    expect(world.hooks('PreToolUse')[0]!.payload).toMatchObject({ tool_name: 'Bash', tool_input: { command: 'touch yes.txt' } });
    expect(existsSync(join(world.work, 'yes.txt'))).toBe(false);
    tmux.keys('Enter');
    const stop = await waitFor('Stop', () => world.hooks('Stop')[0]);
    expect(stop.payload.last_assistant_message).toBe('TOOL-RESULT: (Bash completed with no output)');
    expect(existsSync(join(world.work, 'yes.txt'))).toBe(true);
    expect(world.hooks('PostToolUse')).toHaveLength(1);
    const path = stop.payload.transcript_path as string;
    const entries = await waitFor('turn_duration', () => {
      const e = existsSync(path) ? parseJsonl(readFileSync(path, 'utf8')) : [];
      return e.some((x) => x.subtype === 'turn_duration') ? e : undefined;
    });
    const assistants = entries.filter((e) => e.type === 'assistant');
    expect(assistants.slice(0, 2).map((e) => e.message.content[0].type)).toEqual(['text', 'tool_use']);
    expect(assistants[0]!.message.id).toBe(assistants[1]!.message.id);

    const sessionFile = join(world.config, 'sessions', `${readdirSync(join(world.config, 'sessions'))[0]!.split('.')[0]}.json`);
    await waitFor('idle', () => JSON.parse(readFileSync(sessionFile, 'utf8')).status === 'idle');
    tmux.type('TOOL touch no.txt');
    tmux.keys('Enter');
    await waitFor('second PermissionRequest', () => world.hooks('PermissionRequest')[1]);
    await waitFor('waiting status', () => JSON.parse(readFileSync(sessionFile, 'utf8')).status === 'waiting');
    tmux.keys('Escape');
    await waitFor('interrupted', () => tmux.capture().includes('⎿  Interrupted · What should Claude do instead?'));
    await waitFor('idle again', () => JSON.parse(readFileSync(sessionFile, 'utf8')).status === 'idle');
    const marker = await waitFor('interrupt marker', () => readFileSync(path, 'utf8').includes('[Request interrupted by user for tool use]'));
    expect(marker).toBe(true);
    expect(world.hooks('Stop')).toHaveLength(1);
    expect(existsSync(join(world.work, 'no.txt'))).toBe(false);
  });

  it('trust dialog: Enter on "No, exit" exits 1 with the real text', async () => {
    world.seed({}, false);
    tmux.start(world, ['--settings', world.settings]);
    await waitFor('trust dialog', () => tmux.capture().includes(' ❯ No, exit'));
    expect(tmux.capture()).toContain('   Yes, I trust this folder');
    tmux.keys('Enter');
    expect(await tmux.exitStatus()).toBe('1');
    expect(tmux.capture(true)).toContain("Claude Code didn't start because this folder isn't trusted.");
    expect(world.globalConfig().projects?.[world.work]?.hasTrustDialogAccepted).toBeUndefined();
  });

  it('trust dialog: Down + Enter accepts, records the flag and reaches the prompt', async () => {
    world.seed({}, false);
    tmux.start(world, ['--settings', world.settings]);
    await waitFor('trust dialog', () => tmux.capture().includes(' ❯ No, exit'));
    tmux.keys('Down');
    await waitFor('highlight moved', () => tmux.capture().includes(' ❯ Yes, I trust this folder'));
    tmux.keys('Enter');
    await waitFor('SessionStart', () => world.hooks('SessionStart')[0]);
    await waitFor('input box', () => box(tmux.capture())?.startsWith('❯'));
    expect(world.globalConfig().projects[world.work]).toEqual({ hasTrustDialogAccepted: true });
  });

  it('API key approval: Up + Enter approves the last 20 characters', async () => {
    world.seed();
    const key = 'sk-ant-api03-XXXXabcdefghij0123456789';
    tmux.start(world, ['--settings', world.settings], { ANTHROPIC_API_KEY: key });
    await waitFor('key dialog', () => tmux.capture().includes('  ❯ No (recommended)'));
    tmux.keys('Up');
    await waitFor('Yes highlighted', () => tmux.capture().includes('  ❯ Yes'));
    tmux.keys('Enter');
    await waitFor('SessionStart', () => world.hooks('SessionStart')[0]);
    expect(world.globalConfig().customApiKeyResponses.approved).toEqual(['abcdefghij0123456789']);
  });

  it('an inherited CLAUDE_CODE_CHILD_SESSION turns the transcript off; hooks still fire', async () => {
    world.seed();
    tmux.start(world, ['--settings', world.settings], { CLAUDE_CODE_CHILD_SESSION: '1' });
    await waitFor('SessionStart', () => world.hooks('SessionStart')[0]);
    await waitFor('warning', () => tmux.capture().includes('⚠ Transcript saving is off — inherited CLAUDE_CODE_CHILD_SESSION marker'));
    tmux.type('ECHO unsaved');
    tmux.keys('Enter');
    const stop = await waitFor('Stop', () => world.hooks('Stop')[0]);
    expect(stop.payload.last_assistant_message).toBe('unsaved');
    tmux.type('/exit');
    tmux.keys('Enter');
    expect(await tmux.exitStatus()).toBe('0');
    expect(world.hooks('SessionEnd')).toHaveLength(1);
    expect(existsSync(stop.payload.transcript_path)).toBe(false);
    expect(existsSync(join(world.config, 'projects'))).toBe(false);
  });

  it('the same session with CLAUDE_CODE_FORCE_SESSION_PERSISTENCE=1 keeps its transcript', async () => {
    world.seed();
    tmux.start(world, ['--settings', world.settings], { CLAUDE_CODE_CHILD_SESSION: '1', CLAUDE_CODE_FORCE_SESSION_PERSISTENCE: '1' });
    await waitFor('SessionStart', () => world.hooks('SessionStart')[0]);
    tmux.type('ECHO saved');
    tmux.keys('Enter');
    const stop = await waitFor('Stop', () => world.hooks('Stop')[0]);
    await waitFor(
      'answer in transcript',
      () => existsSync(stop.payload.transcript_path) && readFileSync(stop.payload.transcript_path, 'utf8').includes('"saved"'),
    );
    expect(tmux.capture()).not.toContain('Transcript saving is off');
  });

  it('API error → StopFailure and no Stop; /unknown, !bash and a leading space; EXIT dies mid-turn', async () => {
    world.seed();
    tmux.start(world, ['--settings', world.settings], { CLAUDE_CODE_MAX_RETRIES: '0', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' });
    await waitFor('SessionStart', () => world.hooks('SessionStart')[0]);
    tmux.type('FAIL 529 overloaded');
    tmux.keys('Enter');
    const failure = await waitFor('StopFailure', () => world.hooks('StopFailure')[0]);
    expect(failure.payload).toMatchObject({ error: 'server_error', prompt_id: world.hooks('UserPromptSubmit')[0]!.payload.prompt_id });
    expect(failure.payload.last_assistant_message).toMatch(/^API Error: 529 overloaded\. This is a server-side issue/);
    await waitFor('error on screen', () => tmux.capture().includes('API Error: 529 overloaded'));

    tmux.type('/nope some args');
    tmux.keys('Enter');
    await waitFor('unknown command', () => tmux.capture().includes('● Unknown command: /nope'));
    tmux.type('!echo bash-out');
    tmux.keys('Enter');
    const bashStop = await waitFor('Stop after bash mode', () => world.hooks('Stop')[0]);
    expect(bashStop.payload.last_assistant_message).toBe('MOCK-REPLY: <bash-stdout>bash-out</bash-stdout><bash-stderr></bash-stderr>');
    expect(world.hooks('UserPromptSubmit')).toHaveLength(1); // neither /nope nor !cmd fired one
    tmux.type(' /x');
    tmux.keys('Enter');
    const spaced = await waitFor('UPS for " /x"', () => world.hooks('UserPromptSubmit')[1]);
    expect(spaced.payload.prompt).toBe(' /x');
    await waitFor('its Stop', () => world.hooks('Stop')[1]);

    tmux.type('EXIT 3');
    tmux.keys('Enter');
    expect(await tmux.exitStatus()).toBe('3');
    expect(world.hooks('StopFailure')).toHaveLength(1);
    expect(world.hooks('Stop')).toHaveLength(2);
    expect(world.hooks('SessionEnd')).toHaveLength(0);
  });

  it('a prompt typed while busy is queued: UPS at once with the running prompt_id, runs after', async () => {
    world.seed();
    tmux.start(world, ['--settings', world.settings]);
    await waitFor('SessionStart', () => world.hooks('SessionStart')[0]);
    tmux.type('DELAY 60000 ECHO slow');
    tmux.keys('Enter');
    const first = await waitFor('first UPS', () => world.hooks('UserPromptSubmit')[0]);
    await waitFor('busy footer', () => tmux.capture().includes('esc to interrupt'));
    tmux.type('ECHO queued');
    tmux.keys('Enter');
    const second = await waitFor('queued UPS', () => world.hooks('UserPromptSubmit')[1]);
    expect(second.payload).toMatchObject({ prompt: 'ECHO queued', prompt_id: first.payload.prompt_id });
    expect(world.hooks('Stop')).toHaveLength(0);
    tmux.keys('Escape'); // interrupt the slow turn: no hook; the queued prompt runs next
    const stop = await waitFor('Stop of the queued turn', () => world.hooks('Stop')[0]);
    expect(stop.payload.last_assistant_message).toBe('queued');
    expect(stop.payload.prompt_id).not.toBe(first.payload.prompt_id);
    const entries = await waitFor('queued user entry', () => {
      const e = parseJsonl(readFileSync(stop.payload.transcript_path, 'utf8'));
      return e.some((x) => x.subtype === 'turn_duration') ? e : undefined;
    });
    expect(entries.find((e) => e.promptSource === 'queued')).toMatchObject({ promptId: stop.payload.prompt_id, message: { content: 'ECHO queued' } });
    await waitFor('interrupted prompt back in the box', () => box(tmux.capture())?.startsWith('❯ DELAY 60000 ECHO slow'));
    expect(world.hooks('Stop')).toHaveLength(1);
  });

  it('permission Notification after FAKE_CLAUDE_NOTIFY_MS; SIGTERM → SessionEnd other, rc 143', async () => {
    world.seed();
    tmux.start(world, ['--settings', world.settings, '--permission-mode', 'manual'], { FAKE_CLAUDE_NOTIFY_MS: '200' });
    await waitFor('SessionStart', () => world.hooks('SessionStart')[0]);
    tmux.type('TOOL touch z.txt');
    tmux.keys('Enter');
    const note = await waitFor('Notification', () => world.hooks('Notification')[0]);
    expect(note.payload).toMatchObject({ notification_type: 'permission_prompt', message: 'Claude needs your permission' });
    tmux.keys('4');
    await waitFor('denied', () => tmux.capture().includes('Interrupted · What should Claude do instead?'));
    const sessions = join(world.config, 'sessions');
    const pid = Number(readdirSync(sessions)[0]!.split('.')[0]);
    process.kill(pid, 'SIGTERM');
    expect(await tmux.exitStatus()).toBe('143');
    expect(world.hooks('SessionEnd')[0]!.payload.reason).toBe('other');
    expect(readdirSync(sessions)).toEqual([]);
    expect(world.hooks('Stop')).toHaveLength(0);
  });

  it('FAKE_CLAUDE_DROP_FIRST_ENTER swallows the first Enter; a second Enter submits the same text', async () => {
    world.seed();
    tmux.start(world, ['--settings', world.settings], { FAKE_CLAUDE_DROP_FIRST_ENTER: '1' });
    await waitFor('SessionStart', () => world.hooks('SessionStart')[0]);
    tmux.type('ECHO once');
    tmux.keys('Enter');
    await waitFor('text still in the box', () => box(tmux.capture())?.startsWith('❯ ECHO once'));
    // The dropped Enter was handled before the next key, so nothing may have been submitted.
    tmux.keys('Escape');
    await waitFor('esc notice', () => tmux.capture().includes('esc again to clear'));
    expect(world.hooks('UserPromptSubmit')).toHaveLength(0);
    tmux.keys('Enter');
    const ups = await waitFor('UserPromptSubmit', () => world.hooks('UserPromptSubmit')[0]);
    expect(ups.payload.prompt).toBe('ECHO once');
  });
});
