/**
 * Smoke tests of the fake `codex` (test-fixtures/fake-codex, shim test-fixtures/bin/codex), driven
 * through a private tmux socket (allowed in test-fixtures tests only). Facts:
 * /work/shared/reference/codex.md. Waits poll a condition with a generous deadline; nothing asserts
 * on timing.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { privateTmux } from './lib/private-tmux.mjs';
import { codexMockConfig, processesOf } from './real/umbel-helpers.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const FAKE = join(here, 'bin', 'codex');
/** One private server for the file: every call, the paste and the cleanup go through it. */
const server = privateTmux('fake-codex-test');
const WAIT_MS = 30_000;

type Json = Record<string, any>;

const RECORDER = `import { readFileSync, renameSync, writeFileSync } from 'node:fs';
const [kind, dir] = process.argv.slice(2);
const input = readFileSync(0, 'utf8');
let payload; try { payload = JSON.parse(input); } catch { payload = { raw: input }; }
let transcriptAtHook = null; try { transcriptAtHook = readFileSync(payload.transcript_path, 'utf8'); } catch {}
const name = String(process.hrtime.bigint()).padStart(22, '0') + '-' + kind + '-' + process.pid + '.json';
writeFileSync(dir + '/.' + name, JSON.stringify({ kind, payload, transcriptAtHook }));
renameSync(dir + '/.' + name, dir + '/' + name);
`;
const NOTIFY = `import { renameSync, writeFileSync } from 'node:fs';
const dir = process.argv[2]; const json = process.argv[process.argv.length - 1];
const name = String(process.hrtime.bigint()) + '-notify-' + process.pid + '.json';
writeFileSync(dir + '/.' + name, json); renameSync(dir + '/.' + name, dir + '/' + name);
`;

const EVENTS: Record<string, string> = {
  SessionStart: 'session_start',
  UserPromptSubmit: 'user_prompt_submit',
  PreToolUse: 'pre_tool_use',
  PermissionRequest: 'permission_request',
  PostToolUse: 'post_tool_use',
  Stop: 'stop',
  Interrupt: 'interrupt',
  SessionEnd: 'session_end',
};

const sortKeys = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(sortKeys)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, sortKeys((v as Json)[k])]),
        )
      : v;
/** §6.2, computed independently of the fake. */
const trustHash = (snake: string, command: string, timeout: number) =>
  `sha256:${createHash('sha256')
    .update(JSON.stringify(sortKeys({ event_name: snake, hooks: [{ async: false, command, timeout, type: 'command' }] })))
    .digest('hex')}`;

async function waitFor<T>(what: string, probe: () => T | undefined | false, timeoutMs = WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 40));
  }
}

const tmux = (...args: string[]): string => server.run(...args);
const screen = (s: string) => tmux('capture-pane', '-p', '-t', s);
/** The screen plus history: after exit the trailer can scroll out of the visible screen. */
const scrollback = (s: string) => tmux('capture-pane', '-p', '-S', '-200', '-t', s);
function paste(s: string, text: string) {
  server.run({ input: text }, 'load-buffer', '-b', `b-${s}`, '-');
  tmux('paste-buffer', '-p', '-d', '-b', `b-${s}`, '-t', s);
}

interface Env {
  dir: string;
  home: string;
  work: string;
  hooksDir: string;
}

function setup(options: { trustHooks?: boolean; trustProject?: boolean; git?: boolean; daemon?: boolean; extra?: string } = {}): Env {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'fake-codex-')));
  const home = join(dir, 'home');
  const work = join(dir, 'work');
  const hooksDir = join(dir, 'hooks');
  for (const d of [home, work, hooksDir]) mkdirSync(d);
  if (options.git ?? true) mkdirSync(join(work, '.git'));
  writeFileSync(join(dir, 'recorder.mjs'), RECORDER);
  writeFileSync(join(dir, 'notify.mjs'), NOTIFY);
  const hooks: Json = {};
  let state = '';
  for (const [event, snake] of Object.entries(EVENTS)) {
    const command = `node ${join(dir, 'recorder.mjs')} ${event} ${hooksDir}`;
    const timeout = snake === 'interrupt' || snake === 'session_end' ? 3 : 30;
    hooks[event] = [{ hooks: [{ type: 'command', command, timeout }] }];
    state += `[hooks.state."${home}/hooks.json:${snake}:0:0"]\ntrusted_hash = "${trustHash(snake, command, timeout)}"\n\n`;
  }
  writeFileSync(join(home, 'hooks.json'), JSON.stringify({ hooks }, null, 2));
  writeFileSync(
    join(home, 'config.toml'),
    codexMockConfig({
      baseUrl: 'http://127.0.0.1:9/v1',
      envKey: 'MOCK_API_KEY',
      topLines: [`notify = ["${process.execPath}", "${join(dir, 'notify.mjs')}", "${hooksDir}"]`],
      tail: [
        '[features]',
        `daemon_auto_start = ${options.daemon ? 'true' : 'false'}`,
        '',
        options.trustProject === false ? '' : `[projects."${work}"]\ntrust_level = "trusted"\n`,
        options.trustHooks === false ? '' : state,
        options.extra ?? '',
      ],
    }),
  );
  return { dir, home, work, hooksDir };
}

function start(env: Env, name: string, args: string[] = [], extraEnv: string[] = []) {
  tmux(
    'new-session',
    '-d',
    '-s',
    name,
    '-x',
    '200',
    '-y',
    '50',
    '-c',
    env.work,
    'env',
    '-i',
    `PATH=${process.env.PATH}`,
    `HOME=${env.dir}`,
    'TERM=xterm-256color',
    'LANG=C.UTF-8',
    `CODEX_HOME=${env.home}`,
    'MOCK_API_KEY=sk-mock',
    ...extraEnv,
    FAKE,
    ...args,
  );
  tmux('set-option', '-t', name, 'remain-on-exit', 'on');
}

const hookFiles = (env: Env) =>
  readdirSync(env.hooksDir)
    .filter((f) => !f.startsWith('.'))
    .sort();
const hooksOf = (env: Env, kind: string): Json[] =>
  hookFiles(env)
    .filter((f) => f.includes(`-${kind}-`))
    .map((f) => JSON.parse(readFileSync(join(env.hooksDir, f), 'utf8')));
const notifies = (env: Env): Json[] =>
  hookFiles(env)
    .filter((f) => f.includes('-notify-'))
    .map((f) => JSON.parse(readFileSync(join(env.hooksDir, f), 'utf8')));
const readyLine = (env: Env) => (s: string) => screen(s).includes(`mock-model default · ${env.work}`);
const rollouts = (home: string): string[] => {
  const out: string[] = [];
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) e.isDirectory() ? walk(join(d, e.name)) : out.push(join(d, e.name));
  };
  walk(join(home, 'sessions'));
  return out;
};
const records = (path: string): Json[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

afterAll(() => server.dispose()); // after every describe: the server outlives its sessions

describe('fake codex TUI in tmux', () => {
  let env: Env;
  const sessions: string[] = [];
  const daemons: number[] = [];
  beforeEach(() => {
    sessions.length = 0;
  });
  afterEach(() => {
    for (const s of sessions) server.attempt('kill-session', '-t', s);
    for (const pid of daemons.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
    if (env) rmSync(env.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }); // a hook may still be writing there
  });

  const launch = (name: string, args: string[] = [], extraEnv: string[] = []) => {
    sessions.push(name);
    start(env, name, args, extraEnv);
  };

  it('fires hooks with the real payloads, writes the rollout, and a bracketed paste + Enter submits', async () => {
    env = setup();
    launch('a');
    await waitFor('status line', () => readyLine(env)('a'));
    paste('a', 'ECHO first answer');
    tmux('send-keys', '-t', 'a', 'Enter');
    const [stop] = await waitFor('Stop hook', () => (hooksOf(env, 'Stop').length > 0 ? hooksOf(env, 'Stop') : false));
    const p = stop?.payload as Json;
    expect(p).toMatchObject({
      hook_event_name: 'Stop',
      cwd: env.work,
      model: 'mock-model',
      permission_mode: 'default',
      stop_hook_active: false,
      last_assistant_message: 'first answer',
    });
    expect(p.transcript_path).toMatch(
      new RegExp(`^${env.home}/sessions/\\d{4}/\\d{2}/\\d{2}/rollout-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-${p.session_id}\\.jsonl$`),
    );
    // inside Stop the answer is in the file but task_complete is not yet (§7)
    expect(stop?.transcriptAtHook).toContain('"output_text","text":"first answer"');
    expect(stop?.transcriptAtHook).not.toContain('task_complete');
    const [prompt] = hooksOf(env, 'UserPromptSubmit');
    expect(prompt?.payload).toMatchObject({ prompt: 'ECHO first answer', turn_id: p.turn_id, session_id: p.session_id });
    expect(hooksOf(env, 'SessionStart')[0]?.payload).toMatchObject({ source: 'startup', session_id: p.session_id });
    const recs = await waitFor('task_complete', () => {
      const r = records(p.transcript_path);
      return r.some((x) => x.payload?.type === 'task_complete') ? r : false;
    });
    expect(recs[0]).toMatchObject({ type: 'session_meta', ordinal: 0, payload: { id: p.session_id, originator: 'codex-tui', cli_version: '0.169.0' } });
    expect(recs.at(-1)?.payload).toMatchObject({ type: 'task_complete', turn_id: p.turn_id, last_agent_message: 'first answer' });
    // notify: the real turn and the hidden title thread (§6.4)
    const notes = await waitFor('two notifies', () => (notifies(env).length >= 2 ? notifies(env) : false));
    expect(notes.map((n) => n['last-assistant-message']).sort()).toEqual(['first answer', '{"title":"Mock task title"}']);
    await waitFor('answer on screen', () => screen('a').includes('• first answer'));
    await waitFor('title in status line', () => screen('a').includes(' · Mock task title'));
  });

  it('typed text + Enter in one burst becomes a newline; a second Enter submits (§8)', async () => {
    // The burst rule is about time: an Enter within the window after a typed burst is a newline. The
    // window is named here (not the fake's 20 ms default): on a loaded machine the fake may process the
    // Enter of the burst later than 20 ms after its text, and on a fast one the second Enter below
    // would land inside a 20 ms window unless the test waited for it to pass.
    const windowMs = 400;
    env = setup();
    launch('b', [], [`FAKE_CODEX_BURST_WINDOW_MS=${windowMs}`]);
    await waitFor('status line', () => readyLine(env)('b'));
    // one tmux invocation: the text and the Enter arrive together, as a burst
    tmux('send-keys', '-t', 'b', '-l', 'ECHO typed burst', ';', 'send-keys', '-t', 'b', 'Enter');
    // still in the composer, over two lines, right above the status line: not submitted
    await waitFor('newline in composer', () => /› ECHO typed burst\n\n {2}mock-model default/.test(screen('b')));
    expect(hooksOf(env, 'UserPromptSubmit')).toHaveLength(0);
    // The burst is on screen, so it has been processed: once the window has passed, Enter submits.
    await new Promise((resolve) => setTimeout(resolve, 2 * windowMs));
    tmux('send-keys', '-t', 'b', 'Enter');
    const stops = await waitFor('Stop', () => (hooksOf(env, 'Stop').length > 0 ? hooksOf(env, 'Stop') : false));
    expect(stops[0]?.payload.last_assistant_message).toBe('typed burst');
  });

  it('/ is a command, a leading space makes it a prompt, ! runs a shell command with no hooks', async () => {
    env = setup();
    launch('c');
    await waitFor('status line', () => readyLine(env)('c'));
    paste('c', '/not-a-command please');
    tmux('send-keys', '-t', 'c', 'Enter');
    await waitFor('unrecognized', () => screen('c').includes("Unrecognized command '/not-a-command'"));
    paste('c', '!echo bang');
    tmux('send-keys', '-t', 'c', 'Enter');
    await waitFor('shell ran', () => screen('c').includes('• You ran echo bang'));
    expect(hooksOf(env, 'UserPromptSubmit')).toHaveLength(0);
    paste('c', ' /not-a-command x');
    tmux('send-keys', '-t', 'c', 'Enter');
    const stops = await waitFor('Stop', () => (hooksOf(env, 'Stop').length > 0 ? hooksOf(env, 'Stop') : false));
    expect(stops[0]?.payload.last_assistant_message).toBe('MOCK-REPLY: /not-a-command x');
  });

  it('an API error fires no hook and ends the turn with task_complete{error}; Esc fires Interrupt', async () => {
    env = setup();
    launch('d');
    await waitFor('status line', () => readyLine(env)('d'));
    paste('d', 'FAIL 500 boom');
    tmux('send-keys', '-t', 'd', 'Enter');
    await waitFor('error on screen', () => screen('d').includes('■ We’re currently experiencing high demand'));
    const [path] = rollouts(env.home);
    const failed = records(path as string).find((r) => r.payload?.type === 'task_complete');
    expect(failed?.payload).toMatchObject({ last_agent_message: null, error: { message: expect.stringContaining('high demand') } });
    expect(hooksOf(env, 'Stop')).toHaveLength(0);
    paste('d', 'DELAY 60000 ECHO late');
    tmux('send-keys', '-t', 'd', 'Enter');
    await waitFor('working', () => screen('d').includes('esc to interrupt'));
    tmux('send-keys', '-t', 'd', 'Escape');
    const [intr] = await waitFor('Interrupt', () => (hooksOf(env, 'Interrupt').length > 0 ? hooksOf(env, 'Interrupt') : false));
    expect(intr?.payload).toMatchObject({ hook_event_name: 'Interrupt', turn_id: expect.any(String) });
    await waitFor('aborted', () => records(path as string).some((r) => r.payload?.type === 'turn_aborted' && r.payload.turn_id === intr?.payload.turn_id));
    expect(screen('d')).toContain('■ Conversation interrupted');
    expect(hooksOf(env, 'Stop')).toHaveLength(0);
  });

  it('ASK shows the approval prompt and fires PermissionRequest; y runs it', async () => {
    env = setup();
    launch('e');
    await waitFor('status line', () => readyLine(env)('e'));
    paste('e', 'ASK echo approved-run');
    tmux('send-keys', '-t', 'e', 'Enter');
    await waitFor('approval', () => screen('e').includes('Would you like to run the following command?'));
    const [perm] = await waitFor('PermissionRequest', () => (hooksOf(env, 'PermissionRequest').length > 0 ? hooksOf(env, 'PermissionRequest') : false));
    expect(perm?.payload).toMatchObject({
      tool_name: 'Bash',
      tool_input: { command: 'echo approved-run', description: 'Mock wants to run: echo approved-run' },
    });
    tmux('send-keys', '-t', 'e', 'y');
    const [stop] = await waitFor('Stop', () => (hooksOf(env, 'Stop').length > 0 ? hooksOf(env, 'Stop') : false));
    expect(stop?.payload.last_assistant_message).toBe('TOOL-RESULT: approved-run');
  });

  it('untrusted hooks show "Hooks need review" and an untrusted git repo the trust dialog; answers are written to config.toml', async () => {
    env = setup({ trustHooks: false, trustProject: false });
    launch('f');
    await waitFor('trust dialog', () => screen('f').includes('Trust this folder?'));
    tmux('send-keys', '-t', 'f', 'Enter');
    await waitFor('hooks dialog', () => screen('f').includes('Hooks need review'));
    expect(screen('f')).toContain('8 hooks are new or changed.');
    tmux('send-keys', '-t', 'f', 'Down', 'Enter');
    await waitFor('status line', () => readyLine(env)('f'));
    const config = readFileSync(join(env.home, 'config.toml'), 'utf8');
    expect(config).toContain(`[projects."${env.work}"]`);
    expect(config).toContain(`trusted_hash = "${trustHash('stop', `node ${join(env.dir, 'recorder.mjs')} Stop ${env.hooksDir}`, 30)}"`);
  });

  it('shows the sign-in screen when told to', async () => {
    env = setup();
    launch('g', [], ['FAKE_CODEX_SIGNED_OUT=1']);
    await waitFor('sign-in', () => screen('g').includes('or connect an API key for usage-based billing'));
    expect(screen('g')).toContain("Welcome to Codex, OpenAI's command-line coding agent");
  });

  it('with daemon_auto_start the daemon outlives /quit; without it nothing is left (§5.1)', async () => {
    env = setup({ daemon: true });
    launch('h');
    await waitFor('status line', () => readyLine(env)('h'));
    const pidFile = join(env.home, 'fake-codex-daemon.pids');
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    daemons.push(pid);
    paste('h', '/quit');
    tmux('send-keys', '-t', 'h', 'Enter');
    await waitFor('pane dead', () => tmux('list-panes', '-t', 'h', '-F', '#{pane_dead}').trim() === '1');
    await waitFor('disconnect message', () => scrollback('h').includes('Disconnected from this task'));
    expect(() => process.kill(pid, 0)).not.toThrow();
  });

  it('Ctrl-C on an empty composer exits 0 with the resume trailer and SessionEnd', async () => {
    env = setup();
    launch('i');
    await waitFor('status line', () => readyLine(env)('i'));
    paste('i', 'ECHO one');
    tmux('send-keys', '-t', 'i', 'Enter');
    await waitFor('answer shown (turn over)', () => screen('i').includes('Worked for'));
    tmux('send-keys', '-t', 'i', 'C-c');
    await waitFor('pane dead', () => tmux('list-panes', '-t', 'i', '-F', '#{pane_dead}').trim() === '1');
    await waitFor('trailer', () => /To continue this session, run:\n {2}codex resume [0-9a-f-]{36}/.test(scrollback('i')));
    expect(existsSync(join(env.home, 'fake-codex-daemon.pids'))).toBe(false);
    await waitFor('SessionEnd', () => hooksOf(env, 'SessionEnd').length > 0);
    expect(hooksOf(env, 'SessionEnd')[0]?.payload).toMatchObject({ hook_event_name: 'SessionEnd', reason: 'other' });
  });
});

describe('fake codex resume <id> (test-fixtures/real/REVIVE-FACTS.md §1)', () => {
  let env: Env;
  afterEach(() => {
    for (const s of ['r1', 'r2', 'r3']) server.attempt('kill-session', '-t', s);
    if (env) rmSync(env.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });

  it('a SIGKILLed thread resumed by id appends to its rollout, fires SessionStart(resume), and RECALL sees the earlier prompts', async () => {
    env = setup();
    start(env, 'r1');
    await waitFor('status line', () => readyLine(env)('r1'));
    paste('r1', 'ECHO first answer');
    tmux('send-keys', '-t', 'r1', 'Enter');
    await waitFor('answer shown', () => screen('r1').includes('Worked for'));
    paste('r1', 'KILLSELF KILL');
    tmux('send-keys', '-t', 'r1', 'Enter');
    await waitFor('pane dead', () => tmux('list-panes', '-t', 'r1', '-F', '#{pane_dead}').trim() === '1');
    const [path] = rollouts(env.home);
    const id = (hooksOf(env, 'SessionStart')[0]?.payload as Json).session_id;
    const before = records(path as string).length;

    start(env, 'r2', ['resume', id]);
    await waitFor('status line', () => readyLine(env)('r2'));
    paste('r2', 'RECALL');
    tmux('send-keys', '-t', 'r2', 'Enter');
    await waitFor('recall answer', () => screen('r2').includes('• RECALL: ECHO first answer | KILLSELF KILL'));
    expect(rollouts(env.home)).toEqual([path]);
    const recs = records(path as string);
    expect(recs.filter((r) => r.type === 'session_meta')).toHaveLength(1);
    expect(recs.slice(before).map((r) => r.ordinal)).toEqual(recs.slice(before).map((_, k) => before + k));
    expect(hooksOf(env, 'SessionStart').map((h) => h.payload)).toMatchObject([
      { source: 'startup', session_id: id },
      { source: 'resume', session_id: id, transcript_path: path },
    ]);
  });

  it('an unknown id is refused like the real one (exit 1), a fresh thread knows nothing', async () => {
    env = setup();
    const r = spawnSync(FAKE, ['resume', '01a246f9-dcf1-7782-8acf-000000000000'], {
      cwd: env.work,
      env: { ...process.env, CODEX_HOME: env.home },
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('ERROR: No saved session found with ID 01a246f9-dcf1-7782-8acf-000000000000.');
    start(env, 'r3');
    await waitFor('status line', () => readyLine(env)('r3'));
    paste('r3', 'RECALL');
    tmux('send-keys', '-t', 'r3', 'Enter');
    await waitFor('recall answer', () => screen('r3').includes('• RECALL: (nothing)'));
  });
});

describe('fake codex exec (§4)', () => {
  let env: Env;
  afterEach(async () => {
    if (!env) return;
    // codex's notify program runs detached (fire and forget, like the real one): on a loaded machine it
    // may start after exec exited and write into hooks/ while it is removed (ENOTEMPTY). Wait for it.
    await waitFor('the detached notify programs to end', () => processesOf({ argsIncludes: [env.dir] }).length === 0);
    rmSync(env.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });
  const exec = (args: string[]) =>
    spawnSync(FAKE, ['exec', ...args], {
      cwd: env.work,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH, HOME: env.dir, CODEX_HOME: env.home, MOCK_API_KEY: 'sk-mock' },
    });

  it('prints only the final message on stdout, fires hooks, -o writes it without a newline', () => {
    env = setup();
    const out = join(env.dir, 'last.txt');
    const r = exec(['-o', out, 'TOOL echo hi']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('TOOL-RESULT: hi\n');
    expect(r.stderr).toContain('OpenAI Codex v0.169.0');
    expect(r.stderr).toContain('hook: Stop Completed');
    expect(readFileSync(out, 'utf8')).toBe('TOOL-RESULT: hi');
    expect(hooksOf(env, 'Stop')[0]?.payload.last_assistant_message).toBe('TOOL-RESULT: hi');
  });

  it('exits 1 on an API error and 2 on an unknown flag', () => {
    env = setup();
    const r = exec(['FAIL 401 nope']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('ERROR: unexpected status 401 Unauthorized: nope, url: http://127.0.0.1:9/v1/responses');
    expect(r.stdout).toBe('');
    expect(exec(['-a', 'never', 'x']).status).toBe(2);
  });

  it('a config.toml with a duplicate table is fatal, like the real one', () => {
    env = setup({ extra: '[tui]\na = 1\n[tui]\nb = 2\n' });
    const r = exec(['ECHO x']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/Error: loading config\.toml: .*duplicate key/);
  });
});
