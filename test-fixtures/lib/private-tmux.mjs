// A private tmux server for the fake-CLI tests (test-fixtures/fake-*.test.ts), the only tests that drive
// tmux by hand instead of through @umbel/tmux. Every call of one server uses the same socket (-L), the
// same config (private-tmux.conf, never the user's) and the same minimal environment, so a setting of the
// runner (TMUX_TMPDIR, TMUX, HOME, the cwd) can never send one call to another server than the next.
// The server outlives its last session (exit-empty off): one exiting as the next call connects answers it
// "server exited unexpectedly"; dispose() ends it:
//
//   const tmux = privateTmux('fake-codex');
//   tmux.run('new-session', '-d', '-s', 'a', 'sleep', '100');   // stdout; throws on a non-zero exit
//   tmux.run({ input: 'text' }, 'load-buffer', '-b', 'b', '-'); // stdin for load-buffer -
//   tmux.attempt('kill-session', '-t', 'a');                    // never throws: { status, stdout, stderr }
//   afterAll(() => tmux.dispose());                              // kill-server, wait for the panes' processes
//
// The socket lives in the runner's TMUX_TMPDIR when it has one, else in a temp dir of its own; dispose()
// removes the socket file (tmux leaves it behind) or that dir.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CALL_TIMEOUT_MS = 15_000;
const CONFIG = fileURLToPath(new URL('./private-tmux.conf', import.meta.url));

/** Parent pid and kernel state of `pid`, or undefined once it is gone. */
function procStat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], ppid: Number(fields[1]) };
  } catch {
    return undefined;
  }
}

/** Whether `pid` runs (a zombie does not). */
export const running = (pid) => {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';
};

/** `roots` and every descendant of theirs, from /proc. */
function withDescendants(roots) {
  const children = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = procStat(Number(name));
    if (!stat) continue;
    const list = children.get(stat.ppid) ?? [];
    list.push(Number(name));
    children.set(stat.ppid, list);
  }
  const out = [];
  const queue = [...roots];
  while (queue.length > 0) {
    const pid = queue.shift();
    if (out.includes(pid)) continue;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** Wait (polling, bounded) until none of `pids` runs; the ones still running. */
async function waitGone(pids, ms) {
  const deadline = Date.now() + ms;
  let left = pids.filter(running);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = left.filter(running);
  }
  return left;
}

/**
 * A private tmux server named `<prefix>-<pid>-<random>`.
 * @param {string} prefix
 */
export function privateTmux(prefix) {
  const socket = `${prefix}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const ownDir = process.env.TMUX_TMPDIR ? undefined : mkdtempSync(join(tmpdir(), 'umbel-fx-tmux-'));
  const env = {
    PATH: process.env.PATH || '/usr/bin:/bin',
    HOME: process.env.HOME || tmpdir(),
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    TMUX_TMPDIR: process.env.TMUX_TMPDIR || ownDir,
  };
  const argv = (args) => ['-L', socket, '-f', CONFIG, ...args];
  const split = (args) => (typeof args[0] === 'object' && args[0] !== null ? [args[0], args.slice(1)] : [{}, args]);

  return {
    socket,
    env,
    /** Run tmux; its stdout. Throws (with stderr) on a non-zero exit. An optional first argument `{ input }` feeds stdin. */
    run(...args) {
      const [options, rest] = split(args);
      return execFileSync('tmux', argv(rest), {
        env,
        encoding: 'utf8',
        input: options.input,
        stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        timeout: CALL_TIMEOUT_MS,
      });
    },
    /** Run tmux, never throwing: `{ status, stdout, stderr }`. */
    attempt(...args) {
      const [options, rest] = split(args);
      const r = spawnSync('tmux', argv(rest), {
        env,
        encoding: 'utf8',
        input: options.input,
        stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        timeout: CALL_TIMEOUT_MS,
      });
      return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
    },
    /**
     * Kill the server, then wait until every process of its panes (as they were just before) has gone,
     * SIGKILL what is left after `graceMs`, and remove the socket dir of our own.
     */
    async dispose({ graceMs = 10_000 } = {}) {
      const panes = this.attempt('list-panes', '-a', '-F', '#{pane_pid}')
        .stdout.split('\n')
        .map(Number)
        .filter((pid) => pid > 0);
      const tree = withDescendants(panes);
      this.attempt('kill-server');
      const left = await waitGone(tree, graceMs);
      for (const pid of left) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
      await waitGone(left, 5_000);
      // tmux leaves its socket file behind: ours goes too (the whole dir when it is our own).
      if (ownDir) rmSync(ownDir, { recursive: true, force: true });
      else rmSync(join(env.TMUX_TMPDIR, `tmux-${process.getuid?.() ?? ''}`, socket), { force: true });
    },
  };
}
