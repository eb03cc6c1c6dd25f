import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseProcStat, type ProcessEntry } from './proc-tree.js';
import { canonicalPath } from './socket.js';

/**
 * The variable the substrate adds to every worker's environment (through the env buffer, never on a
 * command line): `<socket dir>/<socket>/<session>`. Every process the worker starts inherits it, also
 * after the worker dies and its children are re-parented to pid 1, so `kill` and `processTree` find
 * them by it.
 */
export const SESSION_MARK_VARIABLE = 'UMBEL_TMUX_SESSION';

/**
 * The value of {@link SESSION_MARK_VARIABLE} for one session on one server: the server is named by the
 * directory tmux keeps its sockets in (`$TMUX_TMPDIR` or `/tmp`, then `tmux-<uid>`) and the socket
 * name, so one `-L` name under two `TMUX_TMPDIR`s is two servers here as it is for tmux.
 */
export function sessionMark(clientEnv: Readonly<Record<string, string>>, socket: string, session: string): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return `${canonicalPath(join(clientEnv['TMUX_TMPDIR'] || '/tmp', `tmux-${uid}`))}/${socket}/${session}`;
}

/** The effective uid of this process (undefined where the platform has none). */
function ownUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

/** True when the NUL-separated environ text holds exactly `entry`. */
function environHolds(environ: string, entry: string): boolean {
  return environ.split('\0').includes(entry);
}

/**
 * Every process of the current user (this process excepted) whose initial environment holds
 * `<SESSION_MARK_VARIABLE>=<mark>`, read from `/proc/<pid>/environ`. Empty where there is no `/proc`
 * (on such systems only the live pane's tree is found). A process that dropped the variable from its
 * environment before exec is not found.
 */
export async function processesMarked(mark: string): Promise<ProcessEntry[]> {
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return [];
  }
  const uid = ownUid();
  const entry = `${SESSION_MARK_VARIABLE}=${mark}`;
  const found = await Promise.all(
    names
      .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
      .map(async (name): Promise<ProcessEntry | undefined> => {
        try {
          if (uid !== undefined && (await stat(`/proc/${name}`)).uid !== uid) return undefined;
          const before = parseProcStat(await readFile(`/proc/${name}/stat`, 'utf8'));
          if (!before || before.state === 'Z' || before.state === 'X') return undefined;
          if (!environHolds(await readFile(`/proc/${name}/environ`, 'utf8'), entry)) return undefined;
          return before;
        } catch {
          return undefined; // gone, or not ours to read
        }
      }),
  );
  return found.filter((e): e is ProcessEntry => e !== undefined);
}
