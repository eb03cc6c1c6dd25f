/** The process edges the CLI touches, injectable for tests. */
import type { Umbel } from '@umbel/core';

/** A writable stream as the CLI uses it. */
export interface Out {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

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
  /** Registers a handler for SIGINT/SIGTERM; returns an unregister function. */
  onSignal(handler: (signal: 'SIGINT' | 'SIGTERM') => void): () => void;
}
