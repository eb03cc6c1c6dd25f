/**
 * The `ssh` command lines of a host (pure): `ssh -o BatchMode=yes`, the connection-sharing options
 * (one master connection per host, its socket under the local state root), the host's `sshArgs`,
 * the destination and the remote command — the configured `umbel` command and a verb. Nothing else
 * is ever on them: env values and prompts travel on the connection's stdin.
 */
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type HostConfig, shellQuote } from '@umbel/core';
import type { RemoteEnv } from './env.js';

/** How long a master connection outlives its last use. */
export const CONTROL_PERSIST = '60s';

/**
 * A unix socket path holds at most 107 bytes, and ssh creates the master's socket as
 * `<ControlPath>.<16 random characters>` first: with `%C` (40 hex digits) the folder may be 49
 * characters at most.
 */
const MAX_CONTROL_DIR = 49;

/** Where the master connections' sockets live: `<home>/ssh`, or a short private folder in /tmp when that path is too long for a socket. */
export function controlDir(home: string, tmp: string = tmpdir()): string {
  const preferred = join(home, 'ssh');
  if (preferred.length <= MAX_CONTROL_DIR) return preferred;
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const short = `umbel-ssh-${uid}-${createHash('sha256').update(home).digest('hex').slice(0, 12)}`;
  return join(tmp.length + short.length + 1 <= MAX_CONTROL_DIR ? tmp : '/tmp', short);
}

/** The remote command: the host's umbel command (shell text, as configured) and the verb's words, quoted. */
export function remoteCommand(host: HostConfig, words: readonly string[]): string {
  return [host.umbel ?? 'umbel', ...words.map((w) => shellQuote(w))].join(' ');
}

/** Options of {@link sshArgv}. */
export interface SshArgvOptions {
  /** The folder of the control sockets ({@link controlDir}). */
  readonly controlDir: string;
  /** The words after the umbel command (`rpc`, or `attach NAME`). */
  readonly words: readonly string[];
  /** A terminal on the remote side (`attach`): `-t`. */
  readonly tty?: boolean;
}

/**
 * The arguments of `ssh` (without the program name). Ours come first where they must hold (ssh
 * keeps the first value of an option): BatchMode (never a password prompt) and the connection
 * sharing; the keep-alives come after the host's `sshArgs`, so a host may set its own.
 */
export function sshArgv(host: HostConfig, options: SshArgvOptions): string[] {
  return [
    '-o',
    'BatchMode=yes',
    '-o',
    'ControlMaster=auto',
    '-o',
    `ControlPath=${join(options.controlDir, '%C')}`,
    '-o',
    `ControlPersist=${CONTROL_PERSIST}`,
    ...(host.sshArgs ?? []),
    '-o',
    'ConnectTimeout=15',
    '-o',
    'ServerAliveInterval=10',
    '-o',
    'ServerAliveCountMax=3',
    ...(options.tty ? ['-t'] : ['-T']),
    '--',
    host.ssh,
    remoteCommand(host, options.words),
  ];
}

/** The variables ssh itself needs from umbel's environment; nothing else reaches it (no secret can be sent by a SendEnv). */
const SSH_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SSH_AUTH_SOCK', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TERM', 'TMPDIR', 'KRB5CCNAME', 'XDG_RUNTIME_DIR'];

/** The environment ssh runs with. */
export function sshEnv(env: RemoteEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of SSH_ENV) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  if (out.PATH === undefined) out.PATH = '/usr/local/bin:/usr/bin:/bin';
  return out;
}
