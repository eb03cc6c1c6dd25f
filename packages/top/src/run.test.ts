/**
 * runTop's ways out, on fake terminal streams and a fake engine: each one leaves the alternate
 * screen, shows the cursor and turns raw mode off — after `q`, after the caller's signal, and when
 * the feed or the view crashes.
 */
import { PassThrough } from 'node:stream';
import type { FleetEvent, Umbel, WorkerStatus } from '@umbel/core';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runTop } from './index.js';

// As in CI (`.ci/run` sets CI=true), from before any import: ink would draw only a final frame, and
// `top` nothing at all.
const ci = vi.hoisted(() => {
  const was = process.env.CI;
  process.env.CI = 'true';
  return was;
});
afterAll(() => {
  if (ci === undefined) delete process.env.CI;
  else process.env.CI = ci;
});

const ENTER_ALT = '\u001b[?1049h';
const LEAVE_ALT = '\u001b[?1049l';
const SHOW_CURSOR = '\u001b[?25h';

function terminal() {
  const raw: boolean[] = [];
  const stdin = Object.assign(new PassThrough(), {
    isTTY: true,
    setRawMode(mode: boolean) {
      raw.push(mode);
      return stdin;
    },
    ref: () => stdin,
    unref: () => stdin,
  });
  let out = '';
  const stdout = Object.assign(new PassThrough(), { isTTY: true, columns: 80, rows: 24 });
  stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  return {
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout: stdout as unknown as NodeJS.WriteStream,
    raw,
    output: () => out,
    type: (text: string) => stdin.write(text),
  };
}

const status: WorkerStatus = {
  name: 'w1',
  provider: 'claude',
  state: 'ready',
  alive: true,
  cwd: '/w',
  createdAt: '2026-01-01T00:00:00.000Z',
  turn: 0,
  completedTurn: 0,
  anonymous: false,
  billing: 'api',
};

/** An engine with one worker whose event stream ends only when cancelled (or throws `streamError`). */
function fakeEngine(streamError?: Error): Umbel {
  return {
    list: async () => [status],
    status: async () => status,
    capture: async () => ({ worker: 'w1', text: 'the screen of w1', live: true }),
    read: async () => ({ worker: 'w1', provider: 'claude', turn: 0, result: '', complete: true }),
    async *events(_options: unknown, context?: { signal?: AbortSignal }): AsyncGenerator<FleetEvent> {
      if (streamError) throw streamError;
      await new Promise((resolve) => context?.signal?.addEventListener('abort', resolve, { once: true }));
    },
  } as unknown as Umbel;
}

/** Resolve once `check` holds (bounded), else fail naming `what`. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

/** What was written after the last frame: the terminal is left as it was found. */
function expectRestored(t: ReturnType<typeof terminal>) {
  const out = t.output();
  expect(out.startsWith(ENTER_ALT)).toBe(true);
  expect(out.lastIndexOf(LEAVE_ALT)).toBeGreaterThan(out.lastIndexOf('umbel top'));
  expect(out.lastIndexOf(SHOW_CURSOR)).toBeGreaterThan(out.lastIndexOf('umbel top'));
  expect(t.raw.at(-1)).toBe(false);
}

describe('runTop', () => {
  it('q quits with 0 and restores the terminal', async () => {
    const t = terminal();
    const done = runTop({ engine: fakeEngine(), stdin: t.stdin, stdout: t.stdout });
    await until(() => t.output().includes('the screen of w1'), 'the first frame');
    expect(t.raw).toContain(true);
    t.type('q');
    expect(await done).toBe(0);
    expectRestored(t);
  });

  it("the caller's signal (SIGINT, SIGTERM) ends it with 130 and restores the terminal", async () => {
    const t = terminal();
    const controller = new AbortController();
    const done = runTop({ engine: fakeEngine(), stdin: t.stdin, stdout: t.stdout, signal: controller.signal });
    await until(() => t.output().includes('w1'), 'the first frame');
    controller.abort('SIGTERM');
    expect(await done).toBe(130);
    expectRestored(t);
  });

  it('a crash of the feed is thrown after the terminal is restored', async () => {
    const t = terminal();
    await expect(runTop({ engine: fakeEngine(new Error('the stream broke')), stdin: t.stdin, stdout: t.stdout })).rejects.toThrow('the stream broke');
    expect(t.output().startsWith(ENTER_ALT)).toBe(true);
    expect(t.output().endsWith(LEAVE_ALT)).toBe(true);
    expect(t.raw.at(-1) ?? false).toBe(false);
  });

  it('Enter attaches: the view leaves the terminal to the attach command and comes back after it', async () => {
    const t = terminal();
    const seen: string[] = [];
    let screen = 'the screen of w1';
    const engine = {
      ...fakeEngine(),
      capture: async () => ({ worker: 'w1', text: screen, live: true }),
      attachCommand: async ({ name }: { name: string }) => ({ file: 'tmux', args: ['attach', '-t', name], env: {} }),
    } as Umbel;
    const done = runTop({
      engine,
      stdin: t.stdin,
      stdout: t.stdout,
      runAttach: (command) => {
        // while attached, top is off the screen and out of raw mode
        seen.push(`${command.args.join(' ')} alt:${t.output().endsWith(LEAVE_ALT)} raw:${t.raw.at(-1)}`);
        screen = 'typed while attached';
      },
    });
    await until(() => t.output().includes('w1'), 'the first frame');
    t.type('\r');
    await until(() => t.output().includes('back from w1'), 'top again');
    // the screen is captured again: what happened while attached shows
    await until(() => t.output().includes('typed while attached'), 'the new screen');
    expect(seen).toEqual(['attach -t w1 alt:true raw:false']);
    t.type('q');
    expect(await done).toBe(0);
    expectRestored(t);
  });
});

describe('y/n answer only a question that is on the screen', () => {
  /** A worker that asks for permission; `wait` says whether the question is on its screen (gated). */
  function askingEngine(confirm: () => Promise<string>) {
    const asking = { ...status, state: 'needs-input', turn: 1, needsInput: { kind: 'permission', tool: 'Bash' } } as WorkerStatus;
    const pressed: string[][] = [];
    const engine = {
      ...fakeEngine(),
      list: async () => [asking],
      status: async () => asking,
      wait: async () => ({ worker: 'w1', provider: 'claude', turn: 1, reason: await confirm(), exitCode: 126, durationMs: 1 }),
      keys: async (options: { keys: string[] }) => {
        pressed.push(options.keys);
      },
    } as unknown as Umbel;
    return { engine, pressed };
  }

  it('y presses the answer once the wait confirms the question is drawn, never before', async () => {
    let drawn: (reason: string) => void = () => undefined;
    const { engine, pressed } = askingEngine(() => new Promise((resolve) => (drawn = resolve)));
    const t = terminal();
    const done = runTop({ engine, stdin: t.stdin, stdout: t.stdout });
    await until(() => t.output().includes('needs-input'), 'the asking row');
    t.type('y');
    await until(() => t.output().includes('waiting for the question'), 'the notice');
    expect(pressed).toEqual([]);
    drawn('needs-input');
    await until(() => pressed.length === 1, 'the answer pressed');
    t.type('q');
    expect(await done).toBe(0);
  });

  it('y presses nothing when the question is gone by then (answered elsewhere, or the turn ended)', async () => {
    const { engine, pressed } = askingEngine(async () => 'completed');
    const t = terminal();
    const done = runTop({ engine, stdin: t.stdin, stdout: t.stdout });
    await until(() => t.output().includes('needs-input'), 'the asking row');
    t.type('y');
    await until(() => t.output().includes('no question on its screen'), 'the notice');
    expect(pressed).toEqual([]);
    t.type('q');
    expect(await done).toBe(0);
  });
});
