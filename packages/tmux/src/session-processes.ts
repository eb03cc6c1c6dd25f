/** The processes of a session: its live panes' trees, and every process that carries its mark. */
import { FIELD_SEPARATOR } from './constants.js';
import { descendantsOf, type ProcessEntry, readProcessTable } from './proc-tree.js';
import { processesMarked, sessionMark } from './session-mark.js';
import { terminate, unionByPid } from './terminate.js';
import { failed, isAbsent, windowTarget } from './tmux-answers.js';
import type { TmuxClient } from './tmux-client.js';

/** How many times `killProcesses` looks again for marked processes forked while it ended the others. */
const KILL_SWEEPS = 3;

export interface SessionProcesses {
  /** The live panes' process trees (empty when the session is absent or tmux does not answer). */
  treeOf(session: string): Promise<ProcessEntry[]>;
  /** The live panes' trees, then every other process that still carries the session's mark. */
  all(session: string): Promise<ProcessEntry[]>;
  /** End `found` (what the kill found before it ended the session), then sweep for marked processes forked meanwhile. */
  end(session: string, found: readonly ProcessEntry[]): Promise<void>;
  /** The processes that carry the session's mark now. */
  marked(session: string): Promise<ProcessEntry[]>;
}

export function sessionProcesses(client: TmuxClient, clientEnv: Readonly<Record<string, string>>, socket: string): SessionProcesses {
  /** Live pane pids of the session (all windows); undefined when the session is absent. */
  const livePanePids = async (session: string): Promise<number[] | undefined> => {
    const result = await client.call([['list-panes', '-s', '-t', windowTarget(session), '-F', `#{pane_dead}${FIELD_SEPARATOR}#{pane_pid}`]], { retry: true });
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
  const marked = (session: string) => processesMarked(sessionMark(clientEnv, socket, session));
  const treeOf = async (session: string): Promise<ProcessEntry[]> => {
    const roots = await livePanePids(session);
    if (!roots || roots.length === 0) return [];
    return descendantsOf(await readProcessTable(), roots);
  };
  return {
    treeOf,
    marked,
    async all(session) {
      const tree = await treeOf(session);
      return unionByPid(tree, await marked(session));
    },
    async end(session, found) {
      await terminate(found);
      // What was forked while the rest was ended still carries the mark: a few more sweeps.
      for (let sweep = 0; sweep < KILL_SWEEPS; sweep += 1) {
        const left = await marked(session);
        if (left.length === 0) break;
        await terminate(left);
      }
    },
  };
}
