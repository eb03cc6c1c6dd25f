/** The process edges the CLI touches, injectable for tests. */
import type { Interrupt, Umbel } from '@umbel/core';

/** A writable stream as the CLI uses it. */
export interface Out {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

/**
 * What interrupts a command (a signal; `SIGPIPE` when its stdout or stderr can no longer be
 * written: the reader went away, EPIPE, or the terminal is gone, EIO) and its exit code: core's
 * exit-code tables (packages/core/src/contract/exit-codes.ts).
 */
export { INTERRUPT_EXIT_CODES, type Interrupt, interruptExitCode } from '@umbel/core';

/** Everything `run()` needs from the outside world. */
export interface CliIo {
  readonly stdout: Out;
  readonly stderr: Out;
  /** Reads all of stdin; undefined when stdin is a terminal (nothing piped). */
  readStdin(): Promise<string | undefined>;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Builds the engine (default: tmux + the three providers), loaded only when a verb needs it. */
  createEngine(env: Readonly<Record<string, string | undefined>>): Umbel | Promise<Umbel>;
  /**
   * Registers a handler for interrupts; returns an unregister function. The handler gets every
   * one: the first aborts the command, a later signal hurries its cleanup.
   */
  onSignal(handler: (signal: Interrupt) => void): () => void;
  /**
   * Start `umbel ARGS…` as a short-lived detached process (a session of its own, stdout and stderr
   * ignored, `stdin` its input; it starts once this process has exited: ./detached.ts); resolves
   * once the input is handed over:
   * its pid, or undefined when the process could not be started. Absent where no such process can
   * be started (in-process tests).
   */
  spawnDetached?(args: readonly string[], stdin: string): Promise<number | undefined>;
}
