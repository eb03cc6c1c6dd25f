/**
 * The Substrate port: what a terminal host must offer the engine. `@umbel/tmux` implements it on a
 * private tmux socket; tests may implement it in memory. Every method is bounded in time and throws
 * `SubstrateError` (never returns a misleading "no such session") when the host does not answer.
 */

/** How to start one worker process. */
export interface SubstrateLaunchOptions {
  /** Substrate-level session name (the engine uses `umbel-<worker>`). */
  readonly session: string;
  /** Working directory of the process. */
  readonly cwd: string;
  /** The command: executable first, then its arguments. Never contains env values. */
  readonly argv: readonly string[];
  /**
   * The complete environment of the worker. It must reach the process without appearing on any
   * command line, in the host's own environment, or on disk, and nothing else may be inherited
   * (terminal variables the host sets for the pane excepted).
   */
  readonly env: Readonly<Record<string, string>>;
  /**
   * Directory where the launch wrapper records how the process ended, as one event file
   * `<ns>-<pid>-exit.json` holding `{"status":N}` or `{"signal":"SIGTERM"}`, written atomically,
   * only if the directory still exists.
   */
  readonly exitRecordDir: string;
  /** Terminal size (default 200×50). */
  readonly width?: number;
  readonly height?: number;
}

/** Liveness of a session, as the host reports it. */
export interface PaneState {
  /** The session exists on the host. */
  readonly exists: boolean;
  /** The process in the pane has exited (the pane is kept for evidence). */
  readonly dead: boolean;
  /** Exit status recorded by the host, when dead and known. */
  readonly exitStatus?: number;
  /** Signal name (`SIGTERM`) recorded by the host, when dead by a signal and known. */
  readonly signal?: string;
  /** Pid of the pane's process, while alive. */
  readonly pid?: number;
}

/** A command a person runs to watch a worker (`umbel attach`). */
export interface AttachCommand {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/** The terminal host port. */
export interface Substrate {
  /** Short id of the implementation, e.g. tmux. */
  readonly substrateId: string;
  /**
   * Optional: the state root this host is bound to (absolute), when it is bound to one (tmux
   * derives its socket and launch wrapper from it). `createUmbel` takes its home from it when given
   * none, and refuses another one (`HomeMismatchError`).
   */
  readonly home?: string;
  /**
   * Start a session running `argv`. Resolves once the host has created it. When the host already
   * has a session of that name, rejects with a `SubstrateError` whose `sessionExists` is true and
   * starts nothing: spawn relies on it (it asks the host nothing before the launch).
   */
  launch(options: SubstrateLaunchOptions): Promise<void>;
  /** Liveness of one session. `exists:false` only when the host answered that it is gone. */
  inspect(session: string): Promise<PaneState>;
  /**
   * Optional: the liveness of every session on this host in one call (what `inspect` would say of
   * each). A session missing from the map does not exist. `list`/`prune` use it when present.
   */
  inspectAll?(): Promise<ReadonlyMap<string, PaneState>>;
  /** The visible screen (plus scrollback up to `lines`), for people and evidence only. */
  capture(session: string, options?: { readonly lines?: number }): Promise<string>;
  /** Deliver text as a bracketed paste (exact bytes, newlines kept, nothing submitted). */
  pasteText(session: string, text: string): Promise<void>;
  /**
   * Optional: `pasteText`, then `sendKeys(keys)`, in one call to the host with nothing between
   * them (one round trip where two were). The engine submits a prompt with it when the provider
   * wants no delay before its Enter; without it, it makes the two calls.
   */
  pasteAndPress?(session: string, text: string, keys: readonly string[]): Promise<void>;
  /** Type text literally, key by key (nothing submitted). */
  typeText(session: string, text: string): Promise<void>;
  /** Press keys, by tmux key name: `Enter`, `Escape`, `Up`, `Down`, `C-c`, `Tab`, `BSpace`, … */
  sendKeys(session: string, keys: readonly string[]): Promise<void>;
  /** End the session and every process it started. Idempotent. */
  kill(session: string): Promise<void>;
  /** Names of every session on this host (only umbel's own host, never the user's). */
  list(): Promise<string[]>;
  /** Pids of the session's process tree (for evidence and orphan checks). */
  processTree(session: string): Promise<number[]>;
  /** The command that attaches a terminal to the session. */
  attachCommand(session: string): AttachCommand;
}
