/**
 * A control-mode client (`tmux -C attach -t =<session>`) on umbel's socket: one tmux process that
 * stays, so a command costs a line on its stdin instead of a new client, and that says when the
 * pane prints (`%output`). Control clients have no size of their own: attaching one never resizes
 * the worker's window. Closing its stdin detaches it; so does the death of the process holding the
 * pipe, so it never outlives umbel.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { SubstrateError, UmbelErrorCode } from '@umbel/core';
import { type ControlReply, controlCommandLine, controlParser } from './control-protocol.js';
import { killProcessGroup, resolveTmuxBinary } from './run-tmux.js';
import { windowTarget } from './tmux-answers.js';

/** Where the control client runs and what it tells. */
export interface ControlClientSettings {
  readonly tmuxBin: string;
  readonly socket: string;
  readonly clientEnv: Readonly<Record<string, string>>;
  readonly session: string;
  /** Bound of each command, in ms. */
  readonly timeoutMs: number;
  /** Called on every `%output` of the session's panes. */
  readonly onOutput: () => void;
}

/** A live control client. */
export interface ControlClient {
  /** Run one command (an argv of umbel's own words); resolves with its reply, rejects if the client is gone or late. */
  command(argv: readonly string[]): Promise<ControlReply>;
  /** Detach and end the client. Idempotent. */
  close(): Promise<void>;
}

interface Pending {
  readonly resolve: (reply: ControlReply) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/** How long a closing client may take to exit before it is killed. */
const CLOSE_GRACE_MS = 500;

function gone(message: string): SubstrateError {
  return new SubstrateError({ code: UmbelErrorCode.TmuxFailed, message });
}

/** Attach a control client to `session`; resolves once tmux answered the attach. */
export async function openControlClient(settings: ControlClientSettings): Promise<ControlClient> {
  const bin = resolveTmuxBinary(settings.tmuxBin, settings.clientEnv['PATH']);
  const args = ['-u', '-L', settings.socket, '-f', '/dev/null', '-C', 'attach-session', '-t', windowTarget(settings.session)];
  // its own process group, so a kill takes whatever it runs too (a wrapper's children)
  const child: ChildProcess = spawn(bin, args, { env: { ...settings.clientEnv }, stdio: ['pipe', 'pipe', 'ignore'], detached: true, windowsHide: true });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  /** Replies awaited, oldest first: the attach's, then one per line written. */
  const pending: Pending[] = [];
  let ended: Error | undefined;
  let attached = false;

  const end = (error: Error): void => {
    if (ended) return;
    ended = error;
    for (const p of pending.splice(0)) {
      clearTimeout(p.timer);
      p.reject(error);
    }
  };
  const expectReply = (what: string): Promise<ControlReply> => {
    if (ended) return Promise.reject(ended);
    return new Promise<ControlReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        // a late reply would be taken for the next command's: the client is no use any more
        end(new SubstrateError({ code: UmbelErrorCode.TmuxTimeout, message: `tmux did not answer ${what} within ${settings.timeoutMs} ms (control client)` }));
        killProcessGroup(child);
      }, settings.timeoutMs);
      pending.push({ resolve, reject, timer });
    });
  };
  const feed = controlParser({
    reply: (reply) => {
      // The first block answers the attach (the command the client started with, flag 0); a later
      // block of a command not ours is nobody's.
      if (attached && !reply.mine) return;
      attached = true;
      const p = pending.shift();
      if (!p) return;
      clearTimeout(p.timer);
      p.resolve(reply);
    },
    output: () => settings.onOutput(),
    exit: (reason) => end(gone(`the tmux control client left${reason ? ` (${reason})` : ''}`)),
  });
  child.stdout?.setEncoding('utf8').on('data', feed);
  child.stdin?.on('error', () => end(gone('the tmux control client closed its input')));
  child.on('error', (error) =>
    end(new SubstrateError({ code: UmbelErrorCode.TmuxUnavailable, message: `could not run tmux (${bin}): ${error.message}`, cause: error })),
  );
  child.on('close', () => end(gone('the tmux control client exited')));

  const client: ControlClient = {
    async command(argv) {
      const line = `${controlCommandLine(argv)}\n`;
      const reply = expectReply(argv[0] ?? 'a command');
      if (!ended) child.stdin?.write(line);
      return reply;
    },
    async close() {
      end(gone('the tmux control client was closed'));
      child.stdin?.end();
      if (child.exitCode !== null || child.signalCode !== null) return;
      const grace = setTimeout(() => killProcessGroup(child), CLOSE_GRACE_MS);
      await exited;
      clearTimeout(grace);
    },
  };
  // tmux may run stdin's lines before the attach it was started with: nothing is written until the
  // attach is answered.
  const attach = await expectReply('the attach').catch(async (error: unknown) => {
    await client.close();
    throw error;
  });
  if (!attach.ok) {
    await client.close();
    throw gone(`tmux refused to attach a control client to '${settings.session}': ${attach.text.trim() || 'no reason given'}`);
  }
  return client;
}
