/**
 * echo-agent itself, over pipes (no terminal needed: it reads the same bytes tmux would send).
 * The key parser, then whole sessions: hooks with their payloads, the transcript, the trust
 * question, a prompt typed while a turn runs (queued), and its refusals.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInputParser } from '../agent/input.js';
import { BUNDLED_AGENT } from './binary.js';

let scratch: string;
let n = 0;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'echo-agent-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('the key parser', () => {
  const parse = (...chunks: string[]) => {
    const events: unknown[] = [];
    const feed = createInputParser((e: unknown) => events.push(e));
    for (const chunk of chunks) feed(chunk);
    return events;
  };

  it('keeps a bracketed paste whole (newlines included), even when its markers are split across chunks', () => {
    expect(parse('\x1b[20', '0~one\r\ntwo\x1b[2', '01~\r')).toEqual([
      { type: 'paste', text: 'one\ntwo' },
      { type: 'key', name: 'enter' },
    ]);
  });

  it('reads typed text, Enter, Backspace, Escape, Ctrl-C, Ctrl-D, and skips other escape sequences', () => {
    expect(parse('hé\x7f\r', '\x1b', '\x1b[A\x03\x04')).toEqual([
      { type: 'text', text: 'h' },
      { type: 'text', text: 'é' },
      { type: 'key', name: 'backspace' },
      { type: 'key', name: 'enter' },
      { type: 'key', name: 'escape' },
      { type: 'key', name: 'ctrl-c' },
      { type: 'key', name: 'ctrl-d' },
    ]);
  });
});

interface Run {
  child: ChildProcessWithoutNullStreams;
  dir: string;
  home: string;
  closed: Promise<number | null>;
  output: () => string;
}

/** Start echo-agent in a fresh folder, its hooks appending each payload to hooks.jsonl. */
async function start(options: { args?: string[]; settingsText?: string; loggedOut?: boolean } = {}): Promise<Run> {
  const { args = [] } = options;
  const dir = join(scratch, `run-${n++}`);
  const home = join(dir, 'agent-home');
  await mkdir(join(dir, 'work'), { recursive: true });
  await mkdir(home, { recursive: true });
  if (options.loggedOut) await writeFile(join(home, 'logged-out'), '');
  const events = ['SessionStart', 'UserPromptSubmit', 'Stop', 'StopFailure', 'PermissionRequest', 'TurnInterrupted', 'SessionEnd'];
  // one append (one write) per payload: the agent may run two events' hooks at once (a queued prompt's
  // UserPromptSubmit beside the last turn's Stop), and a cat and an echo of each would interleave
  const hooks = Object.fromEntries(events.map((e) => [e, [`printf '%s\\n' "$(cat)" >> "${dir}/hooks.jsonl"`]]));
  await writeFile(join(dir, 'settings.json'), options.settingsText ?? JSON.stringify({ hooks }));
  const child = spawn(process.execPath, [BUNDLED_AGENT, '--settings', join(dir, 'settings.json'), '--session-id', 'sid', ...args], {
    cwd: join(dir, 'work'),
    env: { PATH: process.env.PATH, HOME: dir, ECHO_AGENT_HOME: home },
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, dir, home, closed, output: () => out };
}

/** The hook payloads appended so far (complete lines only: a hook may be writing the next). */
async function hookEvents(run: Run): Promise<Record<string, unknown>[]> {
  if (!existsSync(join(run.dir, 'hooks.jsonl'))) return [];
  const lines = (await readFile(join(run.dir, 'hooks.jsonl'), 'utf8')).split('\n');
  return lines
    .slice(0, -1)
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** Poll until `check` holds (event-driven enough for a child process; 20 s bound). */
async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('echo-agent', () => {
  it('asks to trust a new folder, then answers a pasted prompt: hooks, transcript, final answer', async () => {
    const run = await start();
    await until('the trust question', () => run.output().includes('Do you trust the files in this folder?'));
    run.child.stdin.write('y');
    await until('the session hook', async () => (await hookEvents(run)).length === 1);
    run.child.stdin.write('\x1b[200~line one\nline two\x1b[201~\r');
    await until('the stop hook', async () => (await hookEvents(run)).some((e) => e.hook_event_name === 'Stop'));
    run.child.stdin.write('\x04');
    expect(await run.closed).toBe(0);
    const events = await hookEvents(run);
    expect(events.map((e) => e.hook_event_name)).toEqual(['SessionStart', 'UserPromptSubmit', 'Stop', 'SessionEnd']);
    expect(events[1]).toMatchObject({ session_id: 'sid', turn_id: 'turn-1', prompt: 'line one\nline two' });
    expect(events[2]).toMatchObject({ turn_id: 'turn-1', last_message: 'echo: line one\nline two' });
    const transcript = (await readFile(join(run.home, 'sessions', 'sid.jsonl'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(transcript.map((e) => e.type)).toEqual(['session', 'user', 'assistant', 'turn_end']);
    expect(events[0]?.transcript_path).toBe(join(run.home, 'sessions', 'sid.jsonl'));
    expect(JSON.parse(await readFile(join(run.home, 'trusted.json'), 'utf8'))).toHaveLength(1);
  });

  it('queues a prompt submitted while a turn runs, and answers both in order', async () => {
    const run = await start({ args: ['--yes'] });
    await until('the prompt', () => run.output().includes('enter send'));
    run.child.stdin.write('SLOW 300 first\r');
    run.child.stdin.write('second\r');
    await until('two stops', async () => (await hookEvents(run)).filter((e) => e.hook_event_name === 'Stop').length === 2);
    run.child.stdin.end();
    await run.closed;
    const stops = (await hookEvents(run)).filter((e) => e.hook_event_name === 'Stop');
    expect(stops.map((e) => [e.turn_id, e.last_message])).toEqual([
      ['turn-1', 'echo: first'],
      ['turn-2', 'echo: second'],
    ]);
  });

  it('prints its version, refuses an unreadable settings file, and shows a sign-in screen when logged out', async () => {
    const version = await start({ args: ['--version'] });
    expect(await version.closed).toBe(0);
    expect(version.output()).toBe('echo-agent 1.0.0\n');
    const broken = await start({ settingsText: '{' });
    expect(await broken.closed).toBe(1);
    expect(broken.output()).toMatch(/^fatal: cannot read settings .*settings\.json: /m);
    const signedOut = await start({ args: ['--yes'], loggedOut: true });
    await until('the sign-in screen', () => signedOut.output().includes('Signed out. Run `echo-agent login`'));
    expect(signedOut.output()).not.toContain('enter send');
    signedOut.child.kill();
    await signedOut.closed;
  });
});
