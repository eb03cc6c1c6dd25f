import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  CwdMissingError,
  SubstrateError,
  UmbelErrorCode,
  UsageError,
  type AttachCommand,
  type PaneState,
  type Substrate,
  type SubstrateLaunchOptions,
} from '@umbel/core';
import { tmuxClientEnv } from './client-env.js';
import {
  DEFAULT_HEIGHT,
  DEFAULT_WIDTH,
  FIELD_SEPARATOR,
  TMUX_CALL_TIMEOUT_MS,
  TMUX_HISTORY_LIMIT,
  TMUX_MAX_CONCURRENT_CALLS,
  TMUX_TIMEOUT_RETRIES,
} from './constants.js';
import { renderEnvExports } from './env-exports.js';
import { ensureLaunchScript } from './launch-script.js';
import { descendantsOf, readProcessTable, type ProcessEntry } from './proc-tree.js';
import { resolveTmuxBinary, runTmux, type TmuxResult } from './run-tmux.js';
import { processesMarked, SESSION_MARK_VARIABLE, sessionMark } from './session-mark.js';
import { normalizeSignal } from './signals.js';
import { resolveSocketName } from './socket.js';
import { terminate, unionByPid } from './terminate.js';

/** Settings of {@link createTmuxSubstrate}. */
export interface TmuxSubstrateSettings {
  /** umbel's state root; the socket name derives from it, and `hooks/launch.sh` lives under it. */
  readonly home: string;
  /** umbel's own environment (default `process.env`): PATH, UMBEL_TMUX_SOCKET, UMBEL_TMUX_BIN, TMUX_TMPDIR, TERM, … */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** tmux executable: a path, or a name looked up on `env.PATH` (default `env.UMBEL_TMUX_BIN`, else `tmux`). */
  readonly tmuxBin?: string;
  /** Bound of every tmux call in ms (default {@link TMUX_CALL_TIMEOUT_MS}). */
  readonly callTimeoutMs?: number;
  /**
   * How many more times a call that only reads or is idempotent (inspect, inspectAll, capture, list,
   * processTree, kill) is tried when tmux does not answer within `callTimeoutMs` (default
   * {@link TMUX_TIMEOUT_RETRIES}). Calls that type, paste or launch are never repeated: a late answer
   * may mean tmux did act.
   */
  readonly timeoutRetries?: number;
  /**
   * Most tmux clients this substrate runs at once (default {@link TMUX_MAX_CONCURRENT_CALLS}); more
   * calls queue. Many workers starting together on a small machine would otherwise start so many
   * clients that the tmux server cannot answer any within the bound. A call's bound starts when its
   * client starts.
   */
  readonly maxConcurrentCalls?: number;
}

/** A counting semaphore: `run(task)` starts `task` once fewer than `limit` run. */
function limiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const queue: (() => void)[] = [];
  return async (task) => {
    if (active >= limit) await new Promise<void>((resolve) => queue.push(resolve));
    active += 1;
    try {
      return await task();
    } finally {
      active -= 1;
      queue.shift()?.();
    }
  };
}

/** The tmux implementation of `Substrate`, plus the socket it talks to. */
export interface TmuxSubstrate extends Substrate {
  readonly substrateId: 'tmux';
  /** The state root this substrate serves (absolute): its socket and launch wrapper derive from it. */
  readonly home: string;
  /** The private socket name (`tmux -L <socket>`). */
  readonly socket: string;
  inspectAll(): Promise<ReadonlyMap<string, PaneState>>;
  /**
   * End this socket's tmux server, every session on it at once — never any other server. For fault
   * injection (a user's `tmux kill-server` on umbel's socket) and for tearing a test root down.
   */
  killServer(): Promise<void>;
}

/** How long `inspect()` waits for tmux to record the status of a pane it already reports dead. */
const DEAD_STATUS_SETTLE_MS = 1000;

/** How many times `kill()` looks again for marked processes forked while it ended the others. */
const KILL_SWEEPS = 3;

/** Session names tmux keeps verbatim (no `:` `.`, no format `#`, no leading `-`). */
const SESSION_NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,199}$/;

/**
 * tmux's answers that mean "there is no such session" (or no server at all). tmux 3.3a, found by
 * racing kills and reads against kill-session/kill-server: `no current target` (the server has no
 * session left, so it cannot even find a default: printed for any command, target or not), `server
 * exited unexpectedly` and `lost server` (it went away while answering), `no server running on …`.
 */
const ABSENT =
  /no server running|no current target|server exited unexpectedly|lost server|can't find session|can't find window|can't find pane|session not found|error connecting to .*\((?:No such file or directory|Connection refused)\)/i;

/** new-session's answer when the server already has a session of that name (tmux 3.3a: `duplicate session: NAME`). */
const DUPLICATE = /^duplicate session: /m;

/** The `list-panes` fields of a liveness probe. */
const PANE_FORMAT = ['#{pane_dead}', '#{pane_dead_status}', '#{pane_dead_signal}', '#{pane_pid}'].join(FIELD_SEPARATOR);

/** One `PANE_FORMAT` row as a PaneState, or undefined when the row is not one. */
function paneStateOf(row: string): PaneState | undefined {
  const [deadField, statusField, signalField, pidField] = row.split(FIELD_SEPARATOR);
  if (deadField === undefined || deadField === '') return undefined;
  if (deadField !== '1') {
    const pid = Number(pidField);
    return { exists: true, dead: false, ...(Number.isInteger(pid) && pid > 0 ? { pid } : {}) };
  }
  const signal = normalizeSignal(signalField);
  const status = statusField !== undefined && /^\d+$/.test(statusField) ? Number(statusField) : undefined;
  return { exists: true, dead: true, ...(signal !== undefined ? { signal } : status !== undefined ? { exitStatus: status } : {}) };
}

/**
 * tmux splits a command list at any argument that ends with `;` (and turns a trailing `\;` into `;`),
 * so every argument we did not write ourselves is escaped: a trailing `;` becomes `\;`.
 */
export function escapeTmuxArgument(arg: string): string {
  return arg.endsWith(';') ? `${arg.slice(0, -1)}\\;` : arg;
}

/** Escape `#` for options tmux expands as formats (`new-session -c`). */
function escapeFormat(value: string): string {
  return value.replaceAll('#', '##');
}

/**
 * Target of commands that take a window or pane (`list-panes`, `capture-pane`, `send-keys`,
 * `paste-buffer`): `=<s>:`. A bare `=<s>` there is read as a window name first and then matches a
 * session by prefix (tmux 3.3a: `list-panes -s -t =umbel-on` lists `umbel-one`).
 */
function windowTarget(session: string): string {
  return `=${session}:`;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function checkSession(session: string): void {
  if (!SESSION_NAME.test(session)) {
    throw new UsageError(`invalid tmux session name '${session}' (letters, digits, '_' and '-' only)`);
  }
}

function failed(what: string, result: TmuxResult, facts: { sessionExists?: boolean } = {}): SubstrateError {
  const detail = result.stderr.trim();
  return new SubstrateError({
    code: UmbelErrorCode.TmuxFailed,
    message: `tmux ${what} failed (exit ${result.code})${detail ? `: ${detail}` : ''}`,
    stderr: result.stderr,
    ...facts,
  });
}

function isAbsent(result: TmuxResult): boolean {
  return ABSENT.test(result.stderr);
}

function uniqueSuffix(): string {
  return randomBytes(6).toString('hex');
}

/** The absolute state root of the settings, or a UsageError saying what is missing (never a raw TypeError). */
function homeOf(settings: TmuxSubstrateSettings | undefined): string {
  const home: unknown = (settings as { home?: unknown } | null | undefined)?.home;
  if (typeof home !== 'string' || home.trim() === '') {
    const got = home === undefined ? 'no home' : `home ${JSON.stringify(home) ?? String(home)}`;
    throw new UsageError(`createTmuxSubstrate needs { home }: umbel's state root, a directory path (got ${got})`, {
      hint: "pass the same home to createUmbel, or leave createUmbel's home out: it takes the substrate's",
    });
  }
  return resolve(home);
}

/**
 * Create the tmux substrate for one umbel state root. Every call runs `tmux -L <socket> -f /dev/null …`
 * with an argv array and a minimal client environment, bounded by `callTimeoutMs`.
 */
export function createTmuxSubstrate(settings: TmuxSubstrateSettings): TmuxSubstrate {
  const home = homeOf(settings);
  const env = settings.env ?? process.env;
  const socket = resolveSocketName(home, env);
  const clientEnv = tmuxClientEnv(env);
  const tmuxBin = settings.tmuxBin ?? (env['UMBEL_TMUX_BIN'] || 'tmux');
  const timeoutMs = settings.callTimeoutMs ?? TMUX_CALL_TIMEOUT_MS;
  const retrySetting = settings.timeoutRetries ?? TMUX_TIMEOUT_RETRIES;
  const retries = Number.isFinite(retrySetting) ? Math.max(0, Math.floor(retrySetting)) : TMUX_TIMEOUT_RETRIES;

  /**
   * Run one invocation made of one or more commands (each an argv), chained with `;`. With `retry`
   * (reads and idempotent commands only), an unanswered attempt is repeated up to `retries` times,
   * each attempt in its own concurrency slot and with its own bound.
   */
  const slot = limiter(Math.max(1, settings.maxConcurrentCalls ?? TMUX_MAX_CONCURRENT_CALLS));
  const call = async (commands: readonly (readonly string[])[], options: { input?: string; retry?: boolean } = {}): Promise<TmuxResult> => {
    const bin = resolveTmuxBinary(tmuxBin, clientEnv['PATH']);
    // -u: the client speaks UTF-8 whatever the caller's locale, so screens (❯, ─) and our field
    // separator are never mangled into '_' by a C locale.
    const args: string[] = ['-u', '-L', socket, '-f', '/dev/null'];
    commands.forEach((command, index) => {
      if (index > 0) args.push(';');
      for (const arg of command) args.push(escapeTmuxArgument(arg));
    });
    const input = options.input;
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await slot(() => runTmux({ bin, args, env: clientEnv, timeoutMs, ...(input === undefined ? {} : { input }) }));
      } catch (error) {
        const unanswered = error instanceof SubstrateError && error.code === UmbelErrorCode.TmuxTimeout;
        if (!unanswered || !options.retry || attempt >= retries) throw error;
      }
    }
  };

  const deleteBuffer = async (buffer: string): Promise<void> => {
    try {
      await call([['delete-buffer', '-b', buffer]], { retry: true });
    } catch {
      /* best effort: the original error matters more */
    }
  };

  /** Live pane pids of the session (all windows); undefined when the session is absent. */
  const livePanePids = async (session: string): Promise<number[] | undefined> => {
    const result = await call([['list-panes', '-s', '-t', windowTarget(session), '-F', `#{pane_dead}${FIELD_SEPARATOR}#{pane_pid}`]], { retry: true });
    if (result.code !== 0) {
      if (isAbsent(result)) return undefined;
      throw failed('list-panes', result);
    }
    const pids: number[] = [];
    for (const line of result.stdout.split('\n')) {
      const [dead, pid] = line.split(FIELD_SEPARATOR);
      const n = Number(pid);
      if (dead === '0' && Number.isInteger(n) && n > 0) pids.push(n);
    }
    return pids;
  };

  /** The live panes' process trees. */
  const treeOf = async (session: string): Promise<ProcessEntry[]> => {
    const roots = await livePanePids(session);
    if (!roots || roots.length === 0) return [];
    return descendantsOf(await readProcessTable(), roots);
  };

  /** The live panes' trees, then every other process that still carries the session's mark. */
  const sessionProcesses = async (session: string): Promise<ProcessEntry[]> => {
    const tree = await treeOf(session);
    return unionByPid(tree, await processesMarked(sessionMark(clientEnv, socket, session)));
  };

  /**
   * One `list-panes` liveness probe of the session's first pane. With `nudge`, a `run-shell true` runs
   * first in the same invocation: tmux 3.3a sometimes leaves a dead pane's process an unreaped zombie
   * (pane_dead=1, no status) until its next SIGCHLD; the job's exit makes it reap every child.
   */
  const probe = async (session: string, nudge: boolean): Promise<PaneState> => {
    const listPanes = ['list-panes', '-s', '-t', windowTarget(session), '-F', PANE_FORMAT];
    const result = await call(nudge ? [['run-shell', 'true'], listPanes] : [listPanes], { retry: true });
    if (result.code !== 0) {
      if (isAbsent(result)) return { exists: false, dead: true };
      throw failed('list-panes', result);
    }
    const state = paneStateOf(result.stdout.split('\n')[0] ?? '');
    if (!state) throw failed('list-panes (unexpected answer)', result);
    return state;
  };

  const substrate: TmuxSubstrate = {
    substrateId: 'tmux',
    home,
    socket,

    async launch(options: SubstrateLaunchOptions): Promise<void> {
      checkSession(options.session);
      if (options.argv.length === 0 || options.argv[0] === '') throw new UsageError('launch needs a command (argv is empty)');
      const cwdInfo = await stat(options.cwd).catch(() => undefined);
      if (!cwdInfo?.isDirectory()) throw new CwdMissingError(options.cwd);
      const width = options.width ?? DEFAULT_WIDTH;
      const height = options.height ?? DEFAULT_HEIGHT;
      const script = await ensureLaunchScript(home);
      const bin = resolveTmuxBinary(tmuxBin, clientEnv['PATH']);
      const buffer = `umbel-env-${options.session}-${uniqueSuffix()}`;
      let result: TmuxResult;
      try {
        result = await call(
          [
            ['load-buffer', '-b', buffer, '-'],
            ['set-option', '-g', 'remain-on-exit', 'on'],
            // tmux draws "Pane is dead (status N, <time>)" at the bottom of a dead pane and scrolls the
            // screen up a line for it: the CLI's first line leaves the screen and evidence gets a tmux
            // line no CLI printed. An empty format draws nothing (-q: a tmux without the option ignores it).
            ['set-option', '-gq', 'remain-on-exit-format', ''],
            ['set-option', '-g', 'history-limit', String(TMUX_HISTORY_LIMIT)],
            [
              'new-session',
              '-d',
              '-s',
              options.session,
              '-x',
              String(width),
              '-y',
              String(height),
              '-c',
              escapeFormat(options.cwd),
              '--',
              '/bin/sh',
              script,
              bin,
              buffer,
              options.exitRecordDir,
              ...options.argv,
            ],
          ],
          { input: renderEnvExports({ ...options.env, [SESSION_MARK_VARIABLE]: sessionMark(clientEnv, socket, options.session) }) },
        );
      } catch (error) {
        await deleteBuffer(buffer);
        throw error;
      }
      if (result.code !== 0) {
        await deleteBuffer(buffer);
        throw failed(`new-session ${options.session}`, result, { sessionExists: DUPLICATE.test(result.stderr) });
      }
      // tmux may exit 0 while the server it just started dies (upstream #54): check for the pane.
      let state: PaneState;
      try {
        state = await substrate.inspect(options.session);
      } catch (error) {
        await deleteBuffer(buffer);
        throw error;
      }
      if (!state.exists) {
        await deleteBuffer(buffer);
        throw new SubstrateError({
          code: UmbelErrorCode.TmuxFailed,
          message: `tmux accepted new-session ${options.session} but no such session exists (the tmux server may have died)`,
        });
      }
    },

    async inspect(session: string): Promise<PaneState> {
      checkSession(session);
      // tmux marks a pane dead when its pty closes, which can come before it has reaped the process
      // and stored the status (upstream #91), and 3.3a sometimes does not reap it at all until its next
      // SIGCHLD: nudge and settle for a bounded moment until a status or signal shows.
      const settleUntil = Date.now() + DEAD_STATUS_SETTLE_MS;
      for (let attempt = 0; ; attempt += 1) {
        const state = await probe(session, attempt > 0);
        if (!state.exists || !state.dead || state.exitStatus !== undefined || state.signal !== undefined) return state;
        if (attempt > 0 && Date.now() >= settleUntil) return state;
        if (attempt > 0) await delay(50);
      }
    },

    async inspectAll(): Promise<ReadonlyMap<string, PaneState>> {
      // One `list-panes -a` for every session; the first pane of each session speaks for it (as in
      // inspect). A dead pane without a status yet gets inspect's bounded settle.
      const result = await call([['list-panes', '-a', '-F', `#{session_name}${FIELD_SEPARATOR}${PANE_FORMAT}`]], { retry: true });
      if (result.code !== 0) {
        if (isAbsent(result)) return new Map();
        throw failed('list-panes -a', result);
      }
      const states = new Map<string, PaneState>();
      for (const line of result.stdout.split('\n')) {
        const cut = line.indexOf(FIELD_SEPARATOR);
        if (cut <= 0) continue;
        const session = line.slice(0, cut);
        const state = paneStateOf(line.slice(cut + FIELD_SEPARATOR.length));
        if (state && !states.has(session)) states.set(session, state);
      }
      for (const [session, state] of states) {
        if (state.dead && state.exitStatus === undefined && state.signal === undefined && SESSION_NAME.test(session)) {
          states.set(session, await substrate.inspect(session));
        }
      }
      return states;
    },

    async capture(session: string, options?: { readonly lines?: number }): Promise<string> {
      checkSession(session);
      const lines = options?.lines ?? 0;
      const command = ['capture-pane', '-p', '-J', '-t', windowTarget(session)];
      if (lines > 0) command.push('-S', `-${Math.floor(lines)}`);
      const result = await call([command], { retry: true });
      if (result.code !== 0) {
        if (isAbsent(result)) {
          throw new SubstrateError({ code: UmbelErrorCode.TmuxFailed, message: `no tmux session '${session}' to capture`, stderr: result.stderr });
        }
        throw failed('capture-pane', result);
      }
      return result.stdout;
    },

    async pasteText(session: string, text: string): Promise<void> {
      checkSession(session);
      if (text === '') return;
      const buffer = `umbel-paste-${uniqueSuffix()}`;
      let result: TmuxResult;
      try {
        result = await call(
          [
            ['load-buffer', '-b', buffer, '-'],
            ['paste-buffer', '-p', '-d', '-b', buffer, '-t', windowTarget(session)],
          ],
          { input: text },
        );
      } catch (error) {
        await deleteBuffer(buffer);
        throw error;
      }
      if (result.code !== 0) {
        await deleteBuffer(buffer);
        throw failed('paste-buffer', result);
      }
    },

    async typeText(session: string, text: string): Promise<void> {
      checkSession(session);
      if (text === '') return;
      const result = await call([['send-keys', '-l', '-t', windowTarget(session), '--', text]]);
      if (result.code !== 0) throw failed('send-keys -l', result);
    },

    async sendKeys(session: string, keys: readonly string[]): Promise<void> {
      checkSession(session);
      if (keys.length === 0) return;
      const result = await call([['send-keys', '-t', windowTarget(session), '--', ...keys]]);
      if (result.code !== 0) throw failed('send-keys', result);
    },

    async kill(session: string): Promise<void> {
      checkSession(session);
      const mark = sessionMark(clientEnv, socket, session);
      // The panes' trees first (tmux may not answer: the marked processes are ended all the same).
      const panes = await treeOf(session).catch(() => [] as ProcessEntry[]);
      const marked = await processesMarked(mark);
      let failure: unknown;
      try {
        const result = await call([['kill-session', '-t', `=${session}`]], { retry: true });
        if (result.code !== 0 && !isAbsent(result)) failure = failed('kill-session', result);
      } catch (error) {
        failure = error;
      }
      await terminate(unionByPid(panes, marked));
      // What was forked while the rest was ended still carries the mark: a few more sweeps.
      for (let sweep = 0; sweep < KILL_SWEEPS; sweep += 1) {
        const left = await processesMarked(mark);
        if (left.length === 0) break;
        await terminate(left);
      }
      if (failure !== undefined) throw failure;
    },

    async list(): Promise<string[]> {
      const result = await call([['list-sessions', '-F', '#{session_name}']], { retry: true });
      if (result.code !== 0) {
        if (isAbsent(result)) return [];
        throw failed('list-sessions', result);
      }
      return result.stdout.split('\n').filter((line) => line !== '');
    },

    async killServer(): Promise<void> {
      const result = await call([['kill-server']], { retry: true });
      if (result.code !== 0 && !isAbsent(result)) throw failed('kill-server', result);
    },

    async processTree(session: string): Promise<number[]> {
      checkSession(session);
      return (await sessionProcesses(session)).map((entry) => entry.pid);
    },

    attachCommand(session: string): AttachCommand {
      checkSession(session);
      return { file: tmuxBin, args: ['-u', '-L', socket, 'attach', '-t', `=${session}`], env: { ...clientEnv } };
    },
  };
  return substrate;
}
