/**
 * `watchScreen` on tmux: a control client attached to the session reports each `%output` and runs
 * the same `capture-pane` as `capture`, one stdin line per look instead of one tmux client.
 */
import { type ScreenWatch, SubstrateError, UmbelErrorCode } from '@umbel/core';
import { checkSession, windowTarget } from './tmux-answers.js';
import { openControlClient } from './tmux-control.js';

/** Where the watch's client runs. */
export interface ScreenWatchSettings {
  readonly tmuxBin: string;
  readonly socket: string;
  readonly clientEnv: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

/** The `capture-pane` command of `capture` (and of a watch's captures). */
export function captureCommand(target: string, lines: number | undefined): string[] {
  const command = ['capture-pane', '-p', '-J', '-t', target];
  if (lines !== undefined && lines > 0) command.push('-S', `-${Math.floor(lines)}`);
  return command;
}

/** Attach a control client to `session` and wrap it as a `ScreenWatch`. */
export async function watchScreen(settings: ScreenWatchSettings, session: string, onOutput: () => void): Promise<ScreenWatch> {
  checkSession(session);
  const control = await openControlClient({ ...settings, session, onOutput });
  return {
    async capture(options) {
      const reply = await control.command(captureCommand(windowTarget(session), options?.lines));
      if (!reply.ok) throw new SubstrateError({ code: UmbelErrorCode.TmuxFailed, message: `capture-pane failed on '${session}': ${reply.text.trim()}` });
      return reply.text;
    },
    close: () => control.close(),
  };
}
