// Types of private-tmux.mjs (plain ESM), for the TypeScript tests that import it.
export interface TmuxCallOptions {
  /** Bytes for tmux's stdin (`load-buffer -`). */
  input?: string;
}
export interface TmuxAttempt {
  status: number | null;
  stdout: string;
  stderr: string;
}
export interface PrivateTmux {
  /** The `-L` socket name. */
  readonly socket: string;
  /** The environment of every call (PATH, HOME, TERM, LANG, TMUX_TMPDIR). */
  readonly env: Record<string, string>;
  run(...args: string[]): string;
  run(options: TmuxCallOptions, ...args: string[]): string;
  attempt(...args: string[]): TmuxAttempt;
  attempt(options: TmuxCallOptions, ...args: string[]): TmuxAttempt;
  dispose(options?: { graceMs?: number }): Promise<void>;
}
export function privateTmux(prefix: string): PrivateTmux;
/** Whether the process `pid` runs (a zombie does not), from /proc. */
export function running(pid: number): boolean;
