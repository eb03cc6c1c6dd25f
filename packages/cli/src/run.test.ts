import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUmbel, EXIT_CODE_MEANINGS, type Umbel } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo, Interrupt } from './io.js';
import { DOCS_URL } from './parser.js';
import { run } from './run.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
let engine: Umbel;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-cli-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-cli-work-'));
  substrate = createMemorySubstrate();
  engine = createUmbel({ substrate, providers: [createMockProvider()], home, env: { PATH: process.env.PATH, SECRET: 's3cret' } });
});
afterEach(async () => {
  for (const s of await substrate.list()) await substrate.kill(s);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

function io(stdin?: string, signals?: { fire?: (s: Interrupt) => void }) {
  const out = { stdout: '', stderr: '' };
  const value: CliIo = {
    stdout: { write: (t: string) => (out.stdout += t) },
    stderr: { write: (t: string) => (out.stderr += t) },
    readStdin: async () => stdin,
    env: { PATH: process.env.PATH, SECRET: 's3cret' },
    cwd: work,
    createEngine: () => engine,
    onSignal: (handler) => {
      if (signals) signals.fire = handler;
      return () => undefined;
    },
  };
  return { io: value, out };
}

async function cli(argv: string[], stdin?: string) {
  const { io: value, out } = io(stdin);
  const code = await run(argv, value);
  return { code, ...out };
}

describe('help, version and usage errors', () => {
  it('top needs a terminal: without one it is a usage error naming what scripts use', async () => {
    const r = await cli(['top']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('umbel top needs a terminal');
    expect(r.stderr).toContain('umbel events --follow');
  });

  it("lists every exit code of core's table in the help, with its meaning", async () => {
    // yargs wraps long lines: compared with the whitespace collapsed
    const flat = (text: string) => text.replace(/\s+/g, ' ');
    const help = flat((await cli(['--help'])).stdout);
    for (const [code, meaning] of Object.entries(EXIT_CODE_MEANINGS)) expect(help).toContain(flat(` ${code} ${meaning}`));
  });

  it('prints the version and help; no args is a usage error', async () => {
    expect(await cli(['--version'])).toMatchObject({ code: 0, stdout: 'umbel 0.1.0\n' });
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    for (const verb of ['spawn', 'send', 'wait', 'keys', 'status', 'read', 'kill', 'prune', 'attach', 'capture', 'logs', 'events', 'top', 'run', 'mcp'])
      expect(help.stdout).toContain(`umbel ${verb}`);
    expect(help.stdout).toContain('124  wait: timeout');
    // its first line names every built-in CLI
    for (const cli of ['Claude Code', 'Codex', 'Gemini CLI', 'opencode', 'GitHub Copilot CLI']) expect(help.stdout.split('\n')[0]).toContain(cli);
    const wait = await cli(['wait', '--help']);
    expect(wait.stdout).toContain('--idle-timeout');
    const none = await cli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Usage:');
  });

  it('gives one clear line and exit 2 for bad input, never a stack trace', async () => {
    const cases: [string[], RegExp][] = [
      [['frobnicate'], /unknown verb 'frobnicate'; to run a prompt use umbel -p/],
      [['spawn', '--bogus'], /unknown option/],
      [['spawn', 'Bad_Name', '--provider', 'mock'], /invalid spawn options: name/],
      [['spawn', 'w', '--provider', 'nope'], /unknown provider 'nope' \(known: mock\)/],
      [['spawn', 'w', '--provider', 'mock', '--cwd', '/no/such/dir'], /working directory does not exist/],
      [['spawn', 'w', '--provider', 'mock', '--env', 'NOT_SET_HERE'], /NOT_SET_HERE is not set/],
      [['wait', 'w', '--timeout', 'soon'], /not a duration|no worker/],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(argv);
      expect(r.code, argv.join(' ')).toBe(argv[0] === 'wait' ? r.code : 2);
      expect(r.stderr, argv.join(' ')).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect((await cli(['send', 'ghost', 'hi'])).code).toBe(1);
  });
});

describe('supervisor verbs', () => {
  it('spawn → send → wait → read → status → kill', async () => {
    expect(await cli(['spawn', 'w1', '--provider', 'mock'])).toMatchObject({ code: 0, stdout: 'w1\n' });
    expect(await cli(['send', 'w1', 'ECHO hello there'])).toMatchObject({ code: 0, stdout: '1\n' });
    expect(await cli(['wait', 'w1'])).toMatchObject({ code: 0, stdout: 'hello there\n' });
    expect(await cli(['send', 'w1', '-'], 'ECHO from stdin')).toMatchObject({ stdout: '2\n' });
    const waited = await cli(['wait', 'w1', '--json']);
    expect(JSON.parse(waited.stdout)).toMatchObject({ reason: 'completed', result: 'from stdin', turn: 2, exitCode: 0 });
    expect(await cli(['read', 'w1', '--turn', '1'])).toMatchObject({ stdout: 'hello there\n' });
    expect(await cli(['send', 'w1', 'ECHO # Notes\nintro\n## Findings\nfound\n## Next\nlater'])).toMatchObject({ stdout: '3\n' });
    await cli(['wait', 'w1']);
    const section = await cli(['read', 'w1', '--section', '## Findings']);
    expect(section).toMatchObject({ code: 0, stdout: '## Findings\nfound\n' });
    expect(section.stderr).toMatch(/about \d+ tokens of the answer left out/);
    expect(await cli(['read', 'w1', '--head', '4'])).toMatchObject({ code: 0, stdout: '# Notes\nintro\n' });
    expect(await cli(['read', 'w1', '--tail', '2'])).toMatchObject({ code: 0, stdout: 'later\n' });
    expect((await cli(['read', 'w1', '--head', 'lots'])).code).toBe(2);
    const table = await cli(['ls']);
    expect(table.stdout).toMatch(/^NAME\s+PROVIDER\s+STATE\s+TURN/);
    expect(table.stdout).toMatch(/w1\s+mock\s+ready\s+3\/3/);
    expect(JSON.parse((await cli(['status', 'w1', '--json'])).stdout)).toMatchObject({ name: 'w1', state: 'ready' });
    expect(await cli(['kill', 'w1'])).toMatchObject({ code: 0, stdout: 'killed: w1\n' });
    expect((await cli(['status', 'w1'])).stdout).toMatch(/state:\s+killed/);
  });

  it('exit codes by outcome, with diagnostics on stderr', async () => {
    await cli(['spawn', 'w1', '--provider', 'mock']);
    await cli(['send', 'w1', 'HANG']);
    const timeout = await cli(['wait', 'w1', '--timeout', '200ms']);
    expect(timeout).toMatchObject({ code: 124, stdout: '' });
    expect(timeout.stderr).toContain('wait timed out');
    expect(timeout.stderr).toContain('--- last screen ---');
    await cli(['spawn', 'w2', '--provider', 'mock']);
    await cli(['send', 'w2', 'ASK Bash']);
    const blocked = await cli(['wait', 'w2']);
    expect(blocked.code).toBe(126);
    expect(blocked.stderr).toContain('umbel keys w2');
    expect(await cli(['keys', 'w2', '1'])).toMatchObject({ code: 0 });
    expect(await cli(['wait', 'w2'])).toMatchObject({ code: 0, stdout: 'approved Bash\n' });
    await cli(['send', 'w2', 'DIE 3']);
    const dead = await cli(['wait', 'w2']);
    expect(dead.code).toBe(125);
    expect(dead.stderr).toContain('process exited 3');
    expect((await cli(['send', 'w2', 'hi'])).code).toBe(125);
    await cli(['spawn', 'w3', '--provider', 'mock']);
    await cli(['send', 'w3', 'FAIL API Error: 529 overloaded']);
    expect((await cli(['wait', 'w3'])).code).toBe(122);
    await cli(['send', 'w3', 'ECHO nope']);
    const halted = await cli(['wait', 'w3', '--check', 'exit 1', '--retries', '0']);
    expect(halted.code).toBe(127);
    expect(halted.stderr).toContain('attempt 1 (turn 2): rejected (check exit 1)');
  });
});

describe('umbel -p', () => {
  it('text: the answer and a newline; the anonymous worker is removed', async () => {
    const r = await cli(['-p', 'ECHO just the answer', '--provider', 'mock']);
    expect(r).toMatchObject({ code: 0, stdout: 'just the answer\n' });
    expect(await readdir(join(home, 'workers'))).toEqual([]);
    expect(await substrate.list()).toEqual([]);
  });

  it('--billing subscription refuses a kept worker whose billing is unknown (exit 3), and leaves it as it was', async () => {
    await engine.spawn({ name: 'kept', provider: 'mock', cwd: work });
    const r = await cli(['-p', 'ECHO hi', '--resume', 'kept', '--billing', 'subscription']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/its billing is unknown.*cannot guarantee it does not bill the API/);
    expect((await engine.status({ name: 'kept' })).state).toBe('ready');
    expect((await cli(['-p', 'ECHO hi', '--provider', 'mock', '--billing', 'subscription'])).code).toBe(3);
  });

  it('combines the argument and piped stdin like claude -p', async () => {
    expect((await cli(['-p', 'ECHO first', '--provider', 'mock'], 'second\n')).stdout).toBe('first\nsecond\n\n');
    expect((await cli(['-p', '--provider', 'mock'], 'ECHO only stdin')).stdout).toBe('only stdin\n');
    const none = await cli(['-p', '--provider', 'mock'], '');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Input must be provided either through stdin or as a prompt argument');
  });

  it('json: one result object with the fields scripts read', async () => {
    const r = await cli(['-p', 'ECHO {"a":1}', '--provider', 'mock', '--output-format', 'json']);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: '{"a":1}', num_turns: 1, provider: 'mock', turn: 1 });
    for (const key of ['session_id', 'duration_ms', 'usage', 'total_cost_usd', 'uuid', 'worker']) expect(result).toHaveProperty(key);
    const failed = await cli(['-p', 'FAIL API Error: 500 boom', '--provider', 'mock', '--output-format', 'json']);
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)).toMatchObject({ is_error: true, subtype: 'success', result: 'API Error: 500 boom', terminal_reason: 'api_error' });
    const slow = await cli(['-p', 'HANG', '--provider', 'mock', '--output-format', 'json', '--timeout', '200ms']);
    expect(slow.code).toBe(124);
    expect(JSON.parse(slow.stdout)).toMatchObject({ is_error: true, subtype: 'error_during_execution', terminal_reason: 'timeout' });
    expect(await substrate.list()).toEqual([]);
  });

  it('stream-json needs --verbose and ends with the result line', async () => {
    expect(await cli(['-p', 'x', '--provider', 'mock', '--output-format', 'stream-json'])).toMatchObject({ code: 1 });
    const r = await cli(['-p', 'ECHO streamed', '--provider', 'mock', '--output-format', 'stream-json', '--verbose']);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init' });
    expect(lines.some((l) => l.type === 'assistant')).toBe(true);
    expect(lines[lines.length - 1]).toMatchObject({ type: 'result', result: 'streamed' });
  });

  it('--name keeps the worker; --resume sends into it', async () => {
    expect((await cli(['-p', 'ECHO one', '--provider', 'mock', '--name', 'keep'])).stdout).toBe('one\n');
    expect((await cli(['-p', 'ECHO two', '--resume', 'keep'])).stdout).toBe('two\n');
    expect(JSON.parse((await cli(['status', 'keep', '--json'])).stdout)).toMatchObject({ alive: true, turn: 2 });
    expect((await cli(['-p', 'x', '--resume', 'ghost'])).code).toBe(1);
  });

  it('SIGINT during the wait: exit 130 and nothing left behind', async () => {
    const signals: { fire?: (s: Interrupt) => void } = {};
    const { io: value, out } = io(undefined, signals);
    // -p's engine says when its wait began (a loaded machine can be slower than any fixed pause)
    const waiting = new Promise<void>((began) => {
      value.createEngine = () => withWaitCalled(engine, began);
    });
    const pending = run(['-p', 'HANG', '--provider', 'mock'], value);
    await waiting;
    await new Promise((r) => setTimeout(r, 50));
    signals.fire?.('SIGINT');
    expect(await pending).toBe(130);
    expect(out.stdout).toBe('');
    // The worker is removed, so no word of it running on or of answering it.
    expect(out.stderr).not.toMatch(/keeps running|umbel keys/);
    expect(out.stderr).toMatch(/umbel -p removes its worker anon-/);
    expect(await substrate.list()).toEqual([]);
    expect(await readdir(join(home, 'workers'))).toEqual([]);
  });
});

/** Poll until the engine lists a live anonymous worker with a `sent` turn (the -p run is waiting). */
async function untilWaiting(): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const workers = await engine.list();
    if (workers.some((w) => w.name.startsWith('anon-') && w.turn > 0)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('no -p worker came to wait');
}

/** The engine, telling `began` when its `wait` is first called. */
function withWaitCalled(real: Umbel, began: () => void): Umbel {
  return new Proxy(real, {
    get(target, key) {
      if (key === 'wait')
        return (...args: Parameters<Umbel['wait']>) => {
          began();
          return target.wait(...args);
        };
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function nothingLeft(): Promise<void> {
  expect(await substrate.list()).toEqual([]);
  expect(await readdir(join(home, 'workers'))).toEqual([]);
}

describe('-p interrupts', () => {
  for (const [signal, code] of [
    ['SIGHUP', 129],
    ['SIGTERM', 143],
    ['SIGPIPE', 141],
  ] as const) {
    it(`${signal} during the wait: exit ${code}, the worker removed`, async () => {
      const signals: { fire?: (s: Interrupt) => void } = {};
      const { io: value, out } = io(undefined, signals);
      const pending = run(['-p', 'HANG', '--provider', 'mock'], value);
      await untilWaiting();
      signals.fire?.(signal);
      expect(await pending).toBe(code);
      expect(out.stderr).not.toMatch(/\n\s+at /);
      await nothingLeft();
    });
  }

  it('a second signal while the cleanup is stuck removes the worker at once and exits 130', async () => {
    // An engine whose wait ignores the abort: the first Ctrl-C cannot end the run by itself.
    const stuck: Umbel = { ...engine, wait: () => new Promise(() => undefined) };
    const signals: { fire?: (s: Interrupt) => void } = {};
    const { io: value } = io(undefined, signals);
    const pending = run(['-p', 'ECHO never printed', '--provider', 'mock'], { ...value, createEngine: () => stuck });
    await untilWaiting();
    signals.fire?.('SIGINT');
    signals.fire?.('SIGINT');
    expect(await pending).toBe(130);
    await nothingLeft();
  });

  it('an output error after the first signal does not count as a second one', async () => {
    // the run is in its (stuck) wait, past the spawn that an interrupt would end by itself
    let waiting = false;
    const stuck: Umbel = {
      ...engine,
      wait: () => {
        waiting = true;
        return new Promise(() => undefined);
      },
    };
    const signals: { fire?: (s: Interrupt) => void } = {};
    const { io: value } = io(undefined, signals);
    let settled = false;
    const pending = run(['-p', 'ECHO x', '--provider', 'mock'], { ...value, createEngine: () => stuck }).finally(() => (settled = true));
    for (let i = 0; i < 500 && !waiting; i++) await new Promise((r) => setTimeout(r, 20));
    signals.fire?.('SIGINT');
    signals.fire?.('SIGPIPE');
    await new Promise((r) => setTimeout(r, 200));
    expect(settled).toBe(false);
    signals.fire?.('SIGINT');
    expect(await pending).toBe(130);
    await nothingLeft();
  });
});

describe('-p options and errors', () => {
  it('--check-timeout reaches the guardrail; --idle-timeout is accepted', async () => {
    const halted = await cli(['-p', 'ECHO x', '--provider', 'mock', '--check', 'sleep 30', '--check-timeout', '200ms', '--retries', '0']);
    expect(halted.code).toBe(127);
    expect(halted.stderr).toContain('attempt 1 (turn 1): rejected (check exit timeout)');
    const idle = await cli(['-p', 'HANG', '--provider', 'mock', '--idle-timeout', '300ms']);
    expect(idle.code).toBe(123);
    await nothingLeft();
  });

  it('--output-format json prints a result object when the run fails before an outcome', async () => {
    const unknown = await cli(['-p', 'x', '--provider', 'nope', '--output-format', 'json']);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout)).toMatchObject({
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      result: expect.stringContaining("unknown provider 'nope'"),
      umbel: { reason: 'error', code: 'UMBEL_PROVIDER_UNKNOWN', exit_code: 2 },
    });
    expect(unknown.stderr).toContain("unknown provider 'nope'");
    const ghost = await cli(['-p', 'x', '--resume', 'ghost', '--output-format', 'stream-json', '--verbose']);
    expect(ghost.code).toBe(1);
    expect(JSON.parse(ghost.stdout.trim().split('\n').at(-1) as string)).toMatchObject({
      type: 'result',
      is_error: true,
      umbel: { code: 'UMBEL_WORKER_NOT_FOUND' },
    });
    const text = await cli(['-p', 'x', '--provider', 'nope']);
    expect(text.stdout).toBe('');
  });

  it('needs-input: no hint to answer a worker that -p removes', async () => {
    const r = await cli(['-p', 'ASK Bash', '--provider', 'mock']);
    expect(r.code).toBe(126);
    expect(r.stderr).not.toContain('umbel keys');
    expect(r.stderr).toMatch(/umbel -p removes its worker anon-\w+; keep one with --name/);
    const kept = await cli(['-p', 'ASK Bash', '--provider', 'mock', '--name', 'kept']);
    expect(kept.code).toBe(126);
    expect(kept.stderr).toContain('umbel keys kept');
  });
});

describe('argument edges', () => {
  it('-- ends the options: a prompt may start with -', async () => {
    await cli(['spawn', 'w1', '--provider', 'mock']);
    expect(await cli(['send', 'w1', '--', '- fix it'])).toMatchObject({ code: 0, stdout: '1\n' });
    expect(await cli(['wait', 'w1'])).toMatchObject({ code: 0, stdout: 'MOCK-REPLY: - fix it\n' });
    expect(await cli(['-p', '--provider', 'mock', '--', '-x'])).toMatchObject({ code: 0, stdout: 'MOCK-REPLY: -x\n' });
    // After --, even --json is text.
    expect(await cli(['-p', '--provider', 'mock', '--', 'ECHO --json'])).toMatchObject({ code: 0, stdout: '--json\n' });
    const extra = await cli(['send', 'w1', '--', 'one', 'two']);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain('two');
    expect(extra.stderr).not.toContain('\u0000');
  });

  it('a single-value flag given twice is a usage error; --env and --var repeat', async () => {
    const twice = await cli(['spawn', 'w1', '--provider', 'mock', '--model', 'a', '--model', 'b']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain("--model was given 2 times ('a', 'b'); it takes one value");
    expect((await cli(['wait', 'w1', '--timeout', '1s', '--timeout', '2s'])).stderr).toContain('--timeout was given 2 times');
    expect(await cli(['spawn', 'w1', '--provider', 'mock', '--env', 'A=1', '--env', 'B=2'])).toMatchObject({ code: 0, stdout: 'w1\n' });
  });

  it('spawn NAME --name OTHER is a usage error; the same name twice is fine', async () => {
    const two = await cli(['spawn', 'aaa', '--name', 'bbb', '--provider', 'mock']);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain("two names given: 'aaa' and --name 'bbb'");
    expect(await substrate.list()).toEqual([]);
    expect(await cli(['spawn', 'aaa', '--name', 'aaa', '--provider', 'mock'])).toMatchObject({ code: 0, stdout: 'aaa\n' });
    expect(await cli(['spawn', '--name', 'ccc', '--provider', 'mock'])).toMatchObject({ code: 0, stdout: 'ccc\n' });
  });

  it('a boolean flag with a value other than true/false is a usage error', async () => {
    for (const argv of [
      ['ls', '--json=maybe'],
      ['-p', 'x', '--provider', 'mock', '--unattended=yes'],
      ['kill', 'w', '--purge=1'],
    ]) {
      const r = await cli(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toMatch(/--(json|unattended|purge) takes no value \(got '--\w+=\w+'\)/);
    }
    expect((await cli(['ls', '--json=true'])).code).toBe(0);
  });

  it('whole-number flags quote what was typed', async () => {
    await cli(['spawn', 'w1', '--provider', 'mock']);
    for (const [argv, message] of [
      [['wait', 'w1', '--retries', 'abc'], "--retries must be a whole number, got 'abc'"],
      [['read', 'w1', '--turn', '1.5'], "--turn must be a whole number, got '1.5'"],
      [['capture', 'w1', '--lines', ''], "--lines must be a whole number, got ''"],
      [['-p', 'x', '--provider', 'mock', '--retries', 'two'], "--retries must be a whole number, got 'two'"],
    ] as const) {
      const r = await cli([...argv]);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toContain(message);
    }
  });
});

describe('messages and help', () => {
  it('a typo of a verb names it and suggests the nearest verb', async () => {
    for (const [word, near] of [
      ['sned', 'send'],
      ['stauts', 'status'],
      ['kil', 'kill'],
      ['wiat', 'wait'],
      ['prnue', 'prune'],
    ] as const) {
      const r = await cli([word, 'w', 'hi']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`unknown verb '${word}' — did you mean '${near}'?`);
    }
  });

  it('a missing positional is named with the verb usage', async () => {
    expect((await cli(['send'])).stderr).toContain('send needs NAME: umbel send NAME [PROMPT]');
    expect((await cli(['wait', '--json'])).stderr).toContain('wait needs NAME: umbel wait NAME');
    expect((await cli(['keys', 'w'])).stderr).toContain('keys needs KEY: umbel keys NAME KEY…');
    expect((await cli(['send'])).stderr).not.toContain('Not enough non-option arguments');
  });

  it("each verb's help lists its own options, not -p or --version; spawn lists --name", async () => {
    for (const verb of ['spawn', 'send', 'wait', 'keys', 'status', 'ls', 'read', 'kill', 'prune', 'attach', 'capture', 'logs', 'run', 'mcp']) {
      const help = (await cli([verb, '--help'])).stdout;
      expect(help, verb).toContain(`umbel ${verb}`);
      expect(help, verb).not.toMatch(/--print|--version/);
    }
    const spawn = (await cli(['spawn', '--help'])).stdout;
    expect(spawn).toContain('--name');
    expect(spawn).toMatch(/--permission-mode[\s\S]*manual/);
    const top = (await cli(['--help'])).stdout;
    expect(top).toMatch(/-p, --print/);
    expect(top).toContain('--version');
    expect(top).toContain('--check-timeout');
    expect(top).toContain('--idle-timeout');
  });

  it('the help points at documentation that exists outside the package (the repository)', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { repository: { url: string } };
    const repo = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
    expect(DOCS_URL.startsWith(`${repo}/`)).toBe(true);
    const help = (await cli(['--help'])).stdout;
    expect(help).toContain(`Docs: ${DOCS_URL}`);
    expect(help).not.toContain('Docs: docs/');
  });
});

describe('logs and status', () => {
  it('logs: one line per event, a multi-line answer included', async () => {
    await cli(['spawn', 'w1', '--provider', 'mock']);
    await cli(['send', 'w1', 'ECHO first line\nsecond line\n\tthird']);
    await cli(['wait', 'w1']);
    const text = (await cli(['logs', 'w1'])).stdout.trimEnd().split('\n');
    const entries = (await cli(['logs', 'w1', '--json'])).stdout.trimEnd().split('\n');
    expect(text.length).toBe(entries.length);
    for (const line of text) expect(line).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(text.some((l) => l.includes('first line\\nsecond line\\n\\tthird'))).toBe(true);
  });

  it('ls has a MODEL column', async () => {
    await cli(['spawn', 'w1', '--provider', 'mock', '--model', 'big-model']);
    await cli(['spawn', 'w2', '--provider', 'mock']);
    const table = (await cli(['ls'])).stdout;
    expect(table).toMatch(/^NAME\s+PROVIDER\s+STATE\s+TURN\s+MODEL\s+CWD/);
    expect(table).toMatch(/w1\s+mock\s+ready\s+0\/0\s+big-model\s/);
    expect(table).toMatch(/w2\s+mock\s+ready\s+0\/0\s+—\s/);
  });
});
