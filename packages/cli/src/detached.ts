/**
 * A process started to outlive this one (the detached teardown of `umbel -p`, ./process-io.ts): in a
 * session of its own, stdout and stderr ignored, its input on stdin. `afterExit`: it waits, in a
 * shell that costs next to nothing, on a pipe this process holds until it exits (or `release()`s
 * it), and only then execs the command: its start and its work never compete with this process's
 * last milliseconds — the answer printed, the exit a caller waits for — on the CPU.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import type { Writable } from 'node:stream';

/** Input up to this size waits in the stdin pipe for certain (a pipe holds 16 KB or more everywhere). */
export const WAIT_INPUT_MAX_BYTES = 8192;

/** The shell: wait for the held pipe (fd 3) to close, close it, become the command. */
const WAIT_THEN_EXEC = 'read -r _ <&3; exec 3<&-; exec "$0" "$@"';

export interface StartedDetached {
  /** The pid the command runs under (the waiting shell execs it). */
  readonly pid: number;
  /** Let it start now (what this process's exit does; nothing when it did not wait). */
  release(): void;
}

/**
 * Start `file args…` detached (`afterExit`: to run once this process exits; input larger than a pipe
 * surely holds starts it at once); undefined when it could not be started.
 */
export function spawnDetached(
  file: string,
  args: readonly string[],
  input: string,
  options: { readonly cwd: string; readonly env: NodeJS.ProcessEnv; readonly afterExit: boolean },
): Promise<StartedDetached | undefined> {
  const { afterExit, ...spawnOptions } = options;
  const wait = afterExit && Buffer.byteLength(input) <= WAIT_INPUT_MAX_BYTES;
  // the waiting shell would find a missing command only when it execs it: checked here
  if (wait && !executable(file)) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const argv = wait ? ['-c', WAIT_THEN_EXEC, file, ...args] : args;
    const child = spawn(wait ? '/bin/sh' : file, argv, { detached: true, stdio: ['pipe', 'ignore', 'ignore', wait ? 'pipe' : 'ignore'], ...spawnOptions });
    const hold = child.stdio[3] as (Writable & { unref?(): void }) | null;
    hold?.on('error', () => undefined);
    hold?.unref?.();
    child.on('error', () => resolve(undefined));
    child.stdin?.on('error', () => resolve(undefined));
    child.stdin?.end(input, () => resolve(child.pid === undefined ? undefined : { pid: child.pid, release: () => hold?.destroy() }));
    child.unref();
  });
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
