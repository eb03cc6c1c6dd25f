/** The real process as a CliIo. */
import { spawnDetached as startDetached } from './detached.js';
import { type CliIo, INTERRUPT_EXIT_CODES, type Interrupt, type Out } from './io.js';
import { FINISH_ARGV } from './finish-argv.js';

async function readAll(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  } catch {
    return undefined;
  }
  return Buffer.concat(chunks).toString('utf8');
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

let stdinCache: Promise<string | undefined> | undefined;
let current: ((signal: Interrupt) => void) | undefined;
let pending: Interrupt | undefined;
let installed = false;
const broken = new Set<NodeJS.WriteStream>();

function deliver(interrupt: Interrupt): void {
  if (current) current(interrupt);
  else if (pending === undefined) pending = interrupt;
  // A second signal before any command took over: nothing was started, so nothing to clean up.
  else if (interrupt !== 'SIGPIPE') process.exit(INTERRUPT_EXIT_CODES[pending]);
}

function markBroken(stream: NodeJS.WriteStream): void {
  if (broken.has(stream)) return;
  broken.add(stream);
  deliver('SIGPIPE');
}

/**
 * Take over SIGINT/SIGTERM/SIGHUP, and the write errors of stdout/stderr (EPIPE when the reader went
 * away, EIO when the terminal did), as early as possible: an interrupt that arrives while the CLI is
 * still starting aborts cleanly (and cleans up) instead of killing the process half-way, and a
 * closed output is an interrupt, never an unhandled 'error' with a stack trace.
 */
export function captureSignals(): void {
  if (installed) return;
  installed = true;
  for (const signal of SIGNALS) process.on(signal, () => deliver(signal));
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => markBroken(stream));
}

/** Whether stdout or stderr failed a write (the output is incomplete). */
export function outputBroken(): boolean {
  return broken.size > 0;
}

/** Resolves once what was written to stdout and stderr is out (or failed). */
export async function flushOutput(): Promise<void> {
  await Promise.all(
    [process.stdout, process.stderr].map(
      (stream) =>
        new Promise<void>((resolve) => {
          if (stream.destroyed || broken.has(stream)) return resolve();
          stream.write('', (error) => {
            if (error) markBroken(stream);
            resolve();
          });
        }),
    ),
  );
}

/** A process stream that drops writes once it failed (the 'error' was taken as an interrupt). */
function guarded(stream: NodeJS.WriteStream): Out {
  return {
    write: (text: string) => (broken.has(stream) || stream.destroyed ? false : stream.write(text)),
    get isTTY() {
      return stream.isTTY === true;
    },
  };
}

/** CliIo over process.stdin/stdout/stderr/env. */
export function processIo(): CliIo {
  return {
    stdout: guarded(process.stdout),
    stderr: guarded(process.stderr),
    readStdin: () => (stdinCache ??= readAll()),
    env: process.env,
    cwd: process.cwd(),
    // Loaded on demand: `umbel --version` and `--help` must not pay for tmux or MCP (`--help` loads
    // the providers only, to name them). The runtime adds the config file's and UMBEL_PROVIDERS'.
    // A --worktree spawn's repository reserve is filled by a detached `pool finish` (print-teardown.ts).
    createEngine: async (env) =>
      (await import('@umbel/runtime')).createDefaultUmbel({
        env,
        cwd: process.cwd(),
        reserveWorktree: async (spare) => void (await spawnDetached(FINISH_ARGV, JSON.stringify({ spare }), false)),
      }),
    spawnDetached: (args, stdin) => spawnDetached(args, stdin, true),
    onSignal(handler) {
      captureSignals();
      current = handler;
      if (pending) {
        const signal = pending;
        pending = undefined;
        queueMicrotask(() => handler(signal));
      }
      return () => {
        if (current === handler) current = undefined;
      };
    },
  };
}

/**
 * `umbel ARGS…` in a new session, never holding this process's stdout/stderr (a `$(umbel -p …)` would
 * wait for it), `stdin` its input; `afterExit`, it starts once this process has exited (./detached.ts).
 */
async function spawnDetached(args: readonly string[], stdin: string, afterExit: boolean): Promise<number | undefined> {
  const script = process.argv[1];
  if (!script) return undefined;
  return (await startDetached(process.execPath, [script, ...args], stdin, { env: process.env, cwd: '/', afterExit }))?.pid;
}
