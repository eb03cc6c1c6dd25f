/**
 * A session's launch: the worker environment goes to tmux as a buffer on stdin (never on a command
 * line, never in tmux's environment), the launch wrapper reads and deletes it, then runs the argv.
 * The server options and the session are made in the same invocation.
 */
import { stat } from 'node:fs/promises';
import { CwdMissingError, type PaneState, SubstrateError, type SubstrateLaunchOptions, UmbelErrorCode, UsageError } from '@umbel/core';
import { DEFAULT_HEIGHT, DEFAULT_WIDTH, TMUX_HISTORY_LIMIT } from './constants.js';
import { renderEnvExports } from './env-exports.js';
import { ensureLaunchScript } from './launch-script.js';
import { resolveTmuxBinary, type TmuxResult } from './run-tmux.js';
import { SESSION_MARK_VARIABLE, sessionMark } from './session-mark.js';
import { checkSession, DUPLICATE, escapeFormat, failed, uniqueSuffix } from './tmux-answers.js';
import type { TmuxClient } from './tmux-client.js';

/** What a launch runs on: the client, the state root (its wrapper), and how to ask for the pane. */
export interface LaunchHost {
  readonly client: TmuxClient;
  readonly home: string;
  readonly tmuxBin: string;
  readonly socket: string;
  readonly clientEnv: Readonly<Record<string, string>>;
  inspect(session: string): Promise<PaneState>;
}

/** The commands of one launch: server options, then the session running the wrapper. */
function launchCommands(options: SubstrateLaunchOptions, wrapper: { script: string; bin: string; buffer: string }): string[][] {
  return [
    ['load-buffer', '-b', wrapper.buffer, '-'],
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
      String(options.width ?? DEFAULT_WIDTH),
      '-y',
      String(options.height ?? DEFAULT_HEIGHT),
      '-c',
      escapeFormat(options.cwd),
      '--',
      '/bin/sh',
      wrapper.script,
      wrapper.bin,
      wrapper.buffer,
      options.exitRecordDir,
      ...options.argv,
    ],
  ];
}

/**
 * tmux's answers when the server exited while the client spoke to it: the kill of the server's
 * last session ends the server, and a client that connected just then is told this (tmux 3.3a, 2 in
 * 200 launches racing such a kill). That server made no session (one with a session does not exit),
 * so the launch is made again, on the server the next client starts.
 */
const SERVER_WENT_AWAY = /server exited unexpectedly|lost server/;
const LAUNCH_ATTEMPTS = 3;

/** Run the launch invocation, again while the server it met went away under it. */
async function callLaunch(host: LaunchHost, commands: string[][], env: string): Promise<TmuxResult> {
  for (let attempt = 1; ; attempt += 1) {
    const result = await host.client.call(commands, { input: env });
    if (result.code === 0 || attempt >= LAUNCH_ATTEMPTS || !SERVER_WENT_AWAY.test(result.stderr)) return result;
  }
}

/** Launch a session (the `Substrate.launch` contract: a duplicate name is refused with `sessionExists`). */
export async function launchSession(host: LaunchHost, options: SubstrateLaunchOptions): Promise<void> {
  checkSession(options.session);
  if (options.argv.length === 0 || options.argv[0] === '') throw new UsageError('launch needs a command (argv is empty)');
  const cwdInfo = await stat(options.cwd).catch(() => undefined);
  if (!cwdInfo?.isDirectory()) throw new CwdMissingError(options.cwd);
  const script = await ensureLaunchScript(host.home);
  const bin = resolveTmuxBinary(host.tmuxBin, host.clientEnv['PATH']);
  const buffer = `umbel-env-${options.session}-${uniqueSuffix()}`;
  const env = renderEnvExports({ ...options.env, [SESSION_MARK_VARIABLE]: sessionMark(host.clientEnv, host.socket, options.session) });
  try {
    const result = await callLaunch(host, launchCommands(options, { script, bin, buffer }), env);
    if (result.code !== 0) throw failed(`new-session ${options.session}`, result, { sessionExists: DUPLICATE.test(result.stderr) });
    // tmux may exit 0 while the server it just started dies (upstream #54): check for the pane.
    const state = await host.inspect(options.session);
    if (!state.exists) {
      throw new SubstrateError({
        code: UmbelErrorCode.TmuxFailed,
        message: `tmux accepted new-session ${options.session} but no such session exists (the tmux server may have died)`,
      });
    }
  } catch (error) {
    // The wrapper deletes the buffer once it has read it; after a failure nobody will.
    await host.client.deleteBuffer(buffer);
    throw error;
  }
}
