/** Liveness on tmux: `inspect` of one session and `inspectAll` in one `list-panes -a`. */
import type { PaneState } from '@umbel/core';
import { FIELD_SEPARATOR } from './constants.js';
import { failed, isAbsent, PANE_FORMAT, paneStateOf, SESSION_NAME, checkSession, windowTarget } from './tmux-answers.js';
import type { TmuxClient } from './tmux-client.js';

/** How long `inspect()` waits for tmux to record the status of a pane it already reports dead. */
const DEAD_STATUS_SETTLE_MS = 1000;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `inspect` and `inspectAll` over one client. */
export function tmuxLiveness(client: TmuxClient) {
  /**
   * One `list-panes` liveness probe of the session's first pane. With `nudge`, a `run-shell true` runs
   * first in the same invocation: tmux 3.3a sometimes leaves a dead pane's process an unreaped zombie
   * (pane_dead=1, no status) until its next SIGCHLD; the job's exit makes it reap every child.
   */
  const probe = async (session: string, nudge: boolean): Promise<PaneState> => {
    const listPanes = ['list-panes', '-s', '-t', windowTarget(session), '-F', PANE_FORMAT];
    const result = await client.call(nudge ? [['run-shell', 'true'], listPanes] : [listPanes], { retry: true });
    if (result.code !== 0) {
      if (isAbsent(result)) return { exists: false, dead: true };
      throw failed('list-panes', result);
    }
    const state = paneStateOf(result.stdout.split('\n')[0] ?? '');
    if (!state) throw failed('list-panes (unexpected answer)', result);
    return state;
  };

  const inspect = async (session: string): Promise<PaneState> => {
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
  };

  const inspectAll = async (): Promise<ReadonlyMap<string, PaneState>> => {
    // One `list-panes -a` for every session; the first pane of each session speaks for it (as in
    // inspect). A dead pane without a status yet gets inspect's bounded settle.
    const result = await client.call([['list-panes', '-a', '-F', `#{session_name}${FIELD_SEPARATOR}${PANE_FORMAT}`]], { retry: true });
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
        states.set(session, await inspect(session));
      }
    }
    return states;
  };

  return { inspect, inspectAll };
}
