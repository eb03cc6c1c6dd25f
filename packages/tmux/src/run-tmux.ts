import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { SubstrateError, UmbelErrorCode } from '@umbel/core';

/** What one tmux client call answered. */
export interface TmuxResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** How to run one tmux client. */
export interface TmuxCallOptions {
  /** Executable (absolute path). */
  readonly bin: string;
  /** Arguments after the executable (socket flags included). */
  readonly args: readonly string[];
  /** Environment of the client (already minimal). */
  readonly env: Readonly<Record<string, string>>;
  /** Bytes for the client's stdin (`load-buffer -`); stdin is /dev/null otherwise. */
  readonly input?: string;
  /** Bound of the call. */
  readonly timeoutMs: number;
}

/**
 * Find `bin` the way a shell would: as given when it contains a slash, else in the directories of
 * `pathValue`. Throws `SubstrateError(UMBEL_TMUX_UNAVAILABLE)` when nothing executable is found.
 */
export function resolveTmuxBinary(bin: string, pathValue: string | undefined): string {
  if (bin.includes('/')) {
    const full = isAbsolute(bin) ? bin : resolve(bin);
    if (isExecutableFile(full)) return full;
    throw unavailable(`tmux executable not found or not executable: ${full}`);
  }
  for (const dir of (pathValue ?? '').split(delimiter)) {
    if (dir === '') continue;
    const full = join(dir, bin);
    if (isExecutableFile(full)) return isAbsolute(full) ? full : resolve(full);
  }
  throw unavailable(`'${bin}' was not found on PATH; install tmux (3.2 or newer) or set tmuxBin`);
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function unavailable(message: string, cause?: unknown): SubstrateError {
  return new SubstrateError({ code: UmbelErrorCode.TmuxUnavailable, message, cause });
}

/** SIGKILL a child started `detached` (its own process group) and all its group; quiet when it is gone. */
export function killProcessGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    try {
      child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

/**
 * Run one tmux client with an argv array (never a shell), bounded by `timeoutMs`. The client runs in
 * its own process group; when the bound passes, the whole group is killed and the call rejects with
 * `SubstrateError(UMBEL_TMUX_TIMEOUT)` at once, without waiting for the pipes to close. A non-zero exit
 * resolves normally; the caller decides what the answer means.
 */
export function runTmux(options: TmuxCallOptions): Promise<TmuxResult> {
  return new Promise<TmuxResult>((resolvePromise, reject) => {
    let settled = false;
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(options.bin, [...options.args], {
        env: { ...options.env },
        stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        detached: true,
        windowsHide: true,
      });
    } catch (error) {
      reject(unavailable(`could not start tmux (${options.bin}): ${(error as Error).message}`, error));
      return;
    }
    const killGroup = (): void => killProcessGroup(child);
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      killGroup();
      reject(
        new SubstrateError({
          code: UmbelErrorCode.TmuxTimeout,
          message: `tmux did not answer within ${options.timeoutMs} ms (${describe(options.args)})`,
          stderr: Buffer.concat(stderr).toString('utf8') || undefined,
        }),
      );
    }, options.timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      killGroup();
      const code = error.code === 'ENOENT' || error.code === 'EACCES' ? UmbelErrorCode.TmuxUnavailable : UmbelErrorCode.TmuxFailed;
      reject(new SubstrateError({ code, message: `could not run tmux (${options.bin}): ${error.message}`, cause: error }));
    });
    child.on('close', (code, signal) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolvePromise({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
    if (options.input !== undefined && child.stdin) {
      child.stdin.on('error', () => {
        /* the client may exit before reading everything; its exit status tells */
      });
      child.stdin.end(options.input);
    }
  });
}

/** A short description of a call for error messages: the command names, never their arguments. */
function describe(args: readonly string[]): string {
  const names: string[] = [];
  let expectCommand = true;
  let skip = 0;
  for (const arg of args) {
    if (skip > 0) {
      skip -= 1;
      continue;
    }
    if (expectCommand && (arg === '-L' || arg === '-f' || arg === '-S')) {
      skip = 1;
      continue;
    }
    if (expectCommand && names.length === 0 && arg.startsWith('-')) continue; // tmux's own flags (-u): not the command
    if (arg === ';') {
      expectCommand = true;
      continue;
    }
    if (expectCommand) {
      names.push(arg);
      expectCommand = false;
    }
  }
  return names.join(' ; ') || 'tmux';
}
