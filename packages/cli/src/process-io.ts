/** The real process as a CliIo. */
import type { CliIo } from './io.js';

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

let stdinCache: Promise<string | undefined> | undefined;
let current: ((signal: 'SIGINT' | 'SIGTERM') => void) | undefined;
let pending: 'SIGINT' | 'SIGTERM' | undefined;
let installed = false;

/**
 * Take over SIGINT/SIGTERM as early as possible, so a signal that arrives while the CLI is still
 * starting aborts cleanly (and cleans up) instead of killing the process half-way.
 */
export function captureSignals(): void {
  if (installed) return;
  installed = true;
  let count = 0;
  const deliver = (signal: 'SIGINT' | 'SIGTERM') => {
    // A second signal while the first is being handled means "now": exit without cleanup.
    if (++count > 1) process.exit(signal === 'SIGINT' ? 130 : 143);
    if (current) current(signal);
    else pending ??= signal;
  };
  process.on('SIGINT', () => deliver('SIGINT'));
  process.on('SIGTERM', () => deliver('SIGTERM'));
}

/** CliIo over process.stdin/stdout/stderr/env. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    readStdin: () => (stdinCache ??= readAll()),
    env: process.env,
    cwd: process.cwd(),
    // Loaded on demand: `umbel --version` and `--help` must not pay for tmux, the providers or MCP.
    createEngine: async (env) => (await import('@umbel/mcp/default-umbel')).createDefaultUmbel(env),
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
