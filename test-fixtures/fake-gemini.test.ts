/**
 * Smoke tests of the fake `gemini` (test-fixtures/fake-gemini, shim test-fixtures/bin/gemini): `-p`
 * against the Gemini API mock, and the TUI driven through a private tmux socket (allowed in
 * test-fixtures tests only). Facts: /work/shared/reference/gemini.md. Waits are event-driven (a
 * condition polled with a generous deadline); nothing asserts on timing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { privateTmux } from './lib/private-tmux.mjs';
// @ts-expect-error plain ESM fixture without types
import { startGeminiMock } from './mock-servers/gemini.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const FAKE = join(here, 'bin', 'gemini');
/** One private server for the file (its own env, never the runner's): every call and the cleanup use it. */
const server = privateTmux('fake-gemini-test');
const WAIT_MS = 30_000;
type Json = Record<string, any>;

let mock: Awaited<ReturnType<typeof startGeminiMock>>;
let dir: string;
let home: string;
let work: string;
let hookDir: string;

beforeAll(async () => {
  mock = await startGeminiMock();
});
afterAll(async () => {
  await server.dispose();
  await mock.close();
});

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'fake-gemini-test-')));
  home = join(dir, 'home');
  work = join(dir, 'work');
  hookDir = join(dir, 'hooks');
  mkdirSync(join(home, '.gemini'), { recursive: true });
  mkdirSync(work, { recursive: true });
  mkdirSync(hookDir, { recursive: true });
  const hook = join(dir, 'hook.sh');
  writeFileSync(hook, `#!/bin/sh\nf="${hookDir}/$(date +%s%N)-$1.json"; cat > "$f.tmp"; mv "$f.tmp" "$f"\n`);
  chmodSync(hook, 0o755);
  const h = (event: string) => [{ matcher: '', hooks: [{ name: `t-${event}`, type: 'command', command: `${hook} ${event}`, timeout: 10000 }] }];
  writeSettings({
    security: { auth: { selectedType: 'gemini-api-key' } },
    hooks: Object.fromEntries(['SessionStart', 'BeforeAgent', 'AfterAgent', 'Notification', 'SessionEnd', 'BeforeTool'].map((e) => [e, h(e)])),
  });
});
afterEach(() => {
  server.attempt('kill-session', '-t', 'w');
  rmSync(dir, { recursive: true, force: true });
});

function writeSettings(s: Json) {
  writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify(s, null, 2));
}

function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: home,
    GEMINI_CLI_HOME: home,
    GEMINI_API_KEY: 'test',
    GOOGLE_GEMINI_BASE_URL: mock.url,
    TERM: 'xterm-256color',
    FAKE_GEMINI_ORPHAN_MAX_MS: '20000',
    ...extra,
  };
}

const tmux = (...args: string[]) => server.run(...args);

/** Start the fake in a pane; the command records its exit status in the pane. */
function launch(env: Record<string, string>, options: { exec?: boolean; stderrFile?: string } = {}) {
  const assigns = Object.entries(env)
    .map(([k, v]) => `${k}='${v}'`)
    .join(' ');
  // exec: the fake is the pane's process (session leader), as when umbel's launch.sh execs the CLI
  const cmd = options.exec
    ? `exec env -i ${assigns} ${FAKE}`
    : `env -i ${assigns} sh -c '${FAKE}${options.stderrFile ? ` 2>${options.stderrFile}` : ''}; echo $? > ${join(dir, 'exit-status')}; echo __EXIT__=$?'`;
  tmux('new-session', '-d', '-s', 'w', '-x', '200', '-y', '50', '-c', work);
  tmux('set', '-g', 'remain-on-exit', 'on');
  tmux('respawn-pane', '-k', '-t', 'w', cmd);
}

const screen = () => tmux('capture-pane', '-p', '-t', 'w');
const title = () => tmux('display', '-p', '-t', 'w', '#{pane_title}').trim();

async function waitFor<T>(what: string, probe: () => T | undefined | false): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n--- screen ---\n${safeScreen()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function safeScreen() {
  try {
    return screen();
  } catch {
    return '(no pane)';
  }
}

function events(name?: string): { name: string; payload: Json }[] {
  return readdirSync(hookDir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ name: f.replace(/^\d+-/, '').replace(/\.json$/, ''), payload: JSON.parse(readFileSync(join(hookDir, f), 'utf8')) }))
    .filter((e) => name === undefined || e.name === name);
}

const waitEvents = (name: string, n: number) => waitFor(`${n}× ${name}`, () => (events(name).length >= n ? events(name) : undefined));

function paste(text: string) {
  const file = join(dir, 'paste.txt');
  writeFileSync(file, text);
  tmux('load-buffer', '-b', 't', file);
  tmux('paste-buffer', '-p', '-d', '-b', 't', '-t', 'w');
}

/** Paste, wait for it on screen, let the fast-Enter window pass (event: a later screen poll), press Enter. */
async function send(text: string) {
  const before = events('BeforeAgent').length;
  paste(text);
  const probe = text.split('\n')[0]?.slice(0, 20) ?? '';
  await waitFor('pasted text on screen', () => screen().includes(probe));
  await new Promise((r) => setTimeout(r, 150)); // ≥ the 40 ms fast-Enter window after a paste (reference §6)
  tmux('send-keys', '-t', 'w', 'Enter');
  return waitEvents('BeforeAgent', before + 1);
}

const ready = () => waitFor('ready', () => screen().includes('Type your message') && events('SessionStart').length > 0);

function chat(): Json[] {
  const p = events('SessionStart')[0]?.payload.transcript_path as string;
  return readFileSync(p, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

describe('fake gemini -p (headless)', () => {
  // async: the mock answers from this process, so a synchronous spawn would deadlock
  const run = (args: string[], env: Record<string, string>) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(FAKE, args, { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });

  it('prints the answer, exits 0, and fires the hooks', async () => {
    const r = await run(['-p', 'ECHO abc'], baseEnv({ GEMINI_CLI_TRUST_WORKSPACE: 'true' }));
    expect(r.stdout).toBe('abc\n');
    expect(r.status).toBe(0);
    expect(events('AfterAgent')[0]?.payload).toMatchObject({
      hook_event_name: 'AfterAgent',
      prompt: 'ECHO abc',
      prompt_response: 'abc',
      stop_hook_active: false,
    });
  });

  it('exits 42 without input, 55 in an untrusted folder, 41 with a base URL but no selectedType', async () => {
    expect((await run(['-p', ''], baseEnv({ GEMINI_CLI_TRUST_WORKSPACE: 'true' }))).status).toBe(42);
    const untrusted = await run(['-p', 'x'], baseEnv());
    expect(untrusted.status).toBe(55);
    expect(untrusted.stderr).toContain('not running in a trusted directory');
    writeSettings({});
    const gateway = await run(['-p', 'x'], baseEnv({ GEMINI_CLI_TRUST_WORKSPACE: 'true' }));
    expect(gateway.status).toBe(41);
    expect(gateway.stderr).toContain('Invalid auth method selected.');
  });

  it('maps an API error to stderr JSON and exit = status & 0xff', async () => {
    const r = await run(['-o', 'json', '-p', 'FAIL 400 nope'], baseEnv({ GEMINI_CLI_TRUST_WORKSPACE: 'true' }));
    expect(r.stdout).toBe('');
    expect(r.status).toBe(144);
    expect(JSON.parse(r.stderr).error).toMatchObject({ message: 'nope', code: 400 });
  });
});

describe('fake gemini TUI in tmux', () => {
  it('reaches the prompt, answers a pasted multi-line prompt exactly, and records it in the chat', async () => {
    launch(baseEnv({ GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_CLI_TRUST_WORKSPACE: 'true' }));
    await ready();
    expect(title()).toContain('◇  Ready (work)');
    const start = events('SessionStart')[0]?.payload as Json;
    expect(start).toMatchObject({ source: 'startup', cwd: work, hook_event_name: 'SessionStart' });
    expect(start.transcript_path).toMatch(new RegExp(`^${home}/\\.gemini/tmp/work/chats/session-.*\\.jsonl$`));
    const text = 'ECHO line one\nline "two" $x `y` \\ ü\ttab 🚀';
    await send(text);
    const [after] = await waitEvents('AfterAgent', 1);
    expect(after?.payload.prompt_response).toBe(text.slice(5));
    const records = chat();
    expect(records[0]).toMatchObject({ sessionId: start.session_id, kind: 'main' });
    const gemini = records.filter((r) => r.type === 'gemini');
    expect(gemini.at(-1)?.content).toBe(text.slice(5));
  });

  it('turns an Enter right after a paste into a newline (fast-Enter), and a trailing backslash + newline arrives exactly', async () => {
    launch(baseEnv({ GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_CLI_TRUST_WORKSPACE: 'true' }));
    await ready();
    const file = join(dir, 'p.txt');
    writeFileSync(file, 'ECHO first');
    // paste and Enter in one tmux command: the Enter lands within the window
    tmux('load-buffer', '-b', 't', file, ';', 'paste-buffer', '-p', '-d', '-b', 't', '-t', 'w', ';', 'send-keys', '-t', 'w', 'Enter');
    await waitFor('pasted text', () => screen().includes('ECHO first'));
    await send('Z');
    const [before] = events('BeforeAgent');
    expect(before?.payload.prompt).toBe('ECHO first\nZ');
    await waitEvents('AfterAgent', 1);
    await send('ECHO end\\\n');
    const after = await waitEvents('AfterAgent', 2);
    expect(after[1]?.payload.prompt_response).toBe('end\\');
  });

  it('asks before a tool, fires Notification(ToolPermission); a rejection fires no AfterAgent and drops the prompt', async () => {
    launch(baseEnv({ GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_CLI_TRUST_WORKSPACE: 'true' }));
    await ready();
    await send(`TOOL touch ${work}/f.txt`);
    const [note] = await waitEvents('Notification', 1);
    expect(note?.payload).toMatchObject({
      notification_type: 'ToolPermission',
      message: 'Tool Confirm Shell Command requires execution',
      details: { command: `touch ${work}/f.txt`, rootCommand: 'touch' },
    });
    await waitFor('approval title', () => title().includes('✋  Action Required'));
    expect(screen()).toContain('Allow execution of [Shell]?');
    tmux('send-keys', '-t', 'w', 'Escape');
    await waitFor('ready title', () => title().includes('◇  Ready'));
    await send('ECHO next');
    const after = await waitEvents('AfterAgent', 1);
    expect(after.map((e) => e.payload.prompt)).toEqual(['ECHO next']);
    expect(existsSync(join(work, 'f.txt'))).toBe(false);
    // allow once: the tool runs and the answer carries its output
    await send('TOOL echo ran > /dev/null; echo hi');
    await waitEvents('Notification', 2);
    // the hook fires before the dialog takes keys: an Enter pressed at once may go nowhere (a loaded machine)
    await waitFor('approval title', () => title().includes('✋  Action Required'));
    tmux('send-keys', '-t', 'w', 'Enter');
    const done = await waitEvents('AfterAgent', 2);
    expect(done[1]?.payload.prompt_response).toBe('TOOL-RESULT: hi');
    const last = chat()
      .filter((r) => r.$set?.messages)
      .at(-1);
    const prompts = (last?.$set.messages as Json[]).flatMap((m) => (m.type === 'user' ? (m.content as Json[]).map((p) => p.text ?? '') : []));
    expect(prompts.some((t) => t.includes('f.txt'))).toBe(false);
  });

  it('cancels a turn on Esc: AfterAgent [no response text], prompt dropped by a rewrite', async () => {
    launch(baseEnv({ GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_CLI_TRUST_WORKSPACE: 'true' }));
    await ready();
    await send('DELAY 60000 ECHO late');
    await waitFor('busy', () => /\(esc to cancel, \d+/.test(screen()));
    tmux('send-keys', '-t', 'w', 'Escape');
    const [after] = await waitEvents('AfterAgent', 1);
    expect(after?.payload.prompt_response).toBe('[no response text]');
    const records = chat();
    expect(records.some((r) => r.type === 'info' && r.content === 'Request cancelled.')).toBe(true);
    const rewrite = records.filter((r) => r.$set?.messages).at(-1);
    expect(JSON.stringify(rewrite)).not.toContain('ECHO late');
  });

  it('runs headless and exits when CI=true reaches it, even in a terminal', async () => {
    const err = join(dir, 'stderr.txt');
    launch(baseEnv({ GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_CLI_TRUST_WORKSPACE: 'true', CI: 'true' }), { stderrFile: err });
    // (the screen is not used here: tmux may redraw a pane whose process exits within its first moments)
    const status = await waitFor('headless exit', () => existsSync(join(dir, 'exit-status')) && readFileSync(join(dir, 'exit-status'), 'utf8').trim());
    expect(status).toBe('42');
    expect(readFileSync(err, 'utf8')).toContain('No input provided via stdin');
  });

  it('shows the sign-in screen when signed out, and the trust dialog for an unknown folder', async () => {
    launch(baseEnv({ GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_CLI_TRUST_WORKSPACE: 'true', FAKE_GEMINI_SIGNED_OUT: '1' }));
    await waitFor('sign-in', () => screen().includes('How would you like to authenticate for this project?'));
    tmux('kill-session', '-t', 'w');
    launch(baseEnv({ GEMINI_CLI_NO_RELAUNCH: 'true' }));
    await waitFor('trust dialog', () => screen().includes('Do you trust the files in this folder?'));
    tmux('send-keys', '-t', 'w', 'Enter');
    await ready();
    expect(JSON.parse(readFileSync(join(home, '.gemini', 'trustedFolders.json'), 'utf8'))).toEqual({ [work]: 'TRUST_FOLDER' });
  });

  it('relaunches into a child process unless GEMINI_CLI_NO_RELAUNCH=true (so killing tmux can orphan it)', async () => {
    // a relaunch child runs the fake's main again; a hook (`sh -c hook.sh …`) may be a child too
    const childrenOf = (pid: number) =>
      spawnSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter((line) => line.includes('fake-gemini/main.mjs'))
        .map((line) => Number(line.trim().split(/\s+/)[0]));
    const alive = (pid: number) => spawnSync('kill', ['-0', String(pid)]).status === 0;
    launch(baseEnv({ GEMINI_CLI_TRUST_WORKSPACE: 'true' }), { exec: true });
    await ready();
    const parent = Number(tmux('display', '-p', '-t', 'w', '#{pane_pid}').trim());
    const child = await waitFor('relaunch child', () => childrenOf(parent)[0]);
    tmux('kill-session', '-t', 'w');
    // the parent ignores SIGHUP: both processes outlive the terminal (reference §8)
    await new Promise((r) => setTimeout(r, 300));
    const orphaned = alive(parent) && alive(child);
    for (const pid of [child, parent]) spawnSync('kill', ['-KILL', String(pid)]);
    expect(orphaned).toBe(true);

    launch(baseEnv({ GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_CLI_TRUST_WORKSPACE: 'true' }), { exec: true });
    await waitFor('the second SessionStart', () => events('SessionStart').length > 1);
    const single = Number(tmux('display', '-p', '-t', 'w', '#{pane_pid}').trim());
    expect(childrenOf(single)).toEqual([]);
    tmux('kill-session', '-t', 'w');
    await waitFor('single process gone', () => !alive(single));
  });
});
