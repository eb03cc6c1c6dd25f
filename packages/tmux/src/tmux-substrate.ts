import { resolve } from 'node:path';
import { type AttachCommand, type PaneState, type Substrate, SubstrateError, UmbelErrorCode, UsageError } from '@umbel/core';
import { tmuxClientEnv } from './client-env.js';
import { TMUX_CALL_TIMEOUT_MS, TMUX_MAX_CONCURRENT_CALLS, TMUX_TIMEOUT_RETRIES } from './constants.js';
import type { ProcessEntry } from './proc-tree.js';
import type { TmuxResult } from './run-tmux.js';
import { sessionProcesses } from './session-processes.js';
import { resolveSocketName } from './socket.js';
import { unionByPid } from './terminate.js';
import { checkSession, failed, isAbsent, uniqueSuffix, windowTarget } from './tmux-answers.js';
import { createTmuxClient, type TmuxClient } from './tmux-client.js';
import { launchSession } from './tmux-launch.js';
import { tmuxLiveness } from './tmux-liveness.js';

export { escapeTmuxArgument } from './tmux-answers.js';

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
 * Paste `text` into the session as one bracketed paste (a private buffer, deleted by the paste), then
 * press `keys`: one tmux client, whose commands tmux runs in order with nothing between them.
 */
async function pasteInto(client: TmuxClient, session: string, text: string, keys: readonly string[] = []): Promise<void> {
  checkSession(session);
  if (text === '') return;
  const press = keys.length ? [['send-keys', '-t', windowTarget(session), '--', ...keys]] : [];
  const buffer = `umbel-paste-${uniqueSuffix()}`;
  let result: TmuxResult;
  try {
    result = await client.call([['load-buffer', '-b', buffer, '-'], ['paste-buffer', '-p', '-d', '-b', buffer, '-t', windowTarget(session)], ...press], {
      input: text,
    });
  } catch (error) {
    await client.deleteBuffer(buffer);
    throw error;
  }
  if (result.code !== 0) {
    await client.deleteBuffer(buffer);
    throw failed(press.length ? 'paste-buffer + send-keys' : 'paste-buffer', result);
  }
}

/** End the session and every process it started (the panes' trees and every marked process). */
async function killSession(client: TmuxClient, processes: ReturnType<typeof sessionProcesses>, session: string): Promise<void> {
  checkSession(session);
  // The panes' trees first (tmux may not answer: the marked processes are ended all the same).
  const panes = await processes.treeOf(session).catch(() => [] as ProcessEntry[]);
  const marked = await processes.marked(session);
  let failure: unknown;
  try {
    const result = await client.call([['kill-session', '-t', `=${session}`]], { retry: true });
    if (result.code !== 0 && !isAbsent(result)) failure = failed('kill-session', result);
  } catch (error) {
    failure = error;
  }
  await processes.end(session, unionByPid(panes, marked));
  if (failure !== undefined) throw failure;
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
  const maxConcurrentCalls = settings.maxConcurrentCalls ?? TMUX_MAX_CONCURRENT_CALLS;
  const client = createTmuxClient({ tmuxBin, socket, clientEnv, timeoutMs, retries, maxConcurrentCalls });
  const { call } = client;
  const processes = sessionProcesses(client, clientEnv, socket);

  const { inspect, inspectAll } = tmuxLiveness(client);

  const substrate: TmuxSubstrate = {
    substrateId: 'tmux',
    home,
    socket,

    launch: (options) => launchSession({ client, home, tmuxBin, socket, clientEnv, inspect }, options),

    inspect,
    inspectAll,

    async capture(session: string, options?: { readonly lines?: number }): Promise<string> {
      checkSession(session);
      const command = ['capture-pane', '-p', '-J', '-t', windowTarget(session)];
      const lines = options?.lines ?? 0;
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

    pasteText: (session, text) => pasteInto(client, session, text),
    pasteAndPress: (session, text, keys) => (text === '' ? substrate.sendKeys(session, keys) : pasteInto(client, session, text, keys)),

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

    kill: (session) => killSession(client, processes, session),

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
      return (await processes.all(session)).map((entry) => entry.pid);
    },

    attachCommand(session: string): AttachCommand {
      checkSession(session);
      return { file: tmuxBin, args: ['-u', '-L', socket, 'attach', '-t', `=${session}`], env: { ...clientEnv } };
    },
  };
  return substrate;
}
