// Types of remote-world.mjs (plain ESM), for the TypeScript tests that import it.
import type { ProcessInfo, UmbelRun, UmbelStart } from '../real/umbel-helpers.mjs';
import type { Sshd } from './sshd.mjs';

export interface RemoteWorld {
  /** The temp root holding everything (realpath). */
  readonly root: string;
  readonly sshd: Sshd;
  /** The local config file (UMBEL_CONFIG) naming the hosts loop, down, nocmd and old. */
  readonly config: string;
  /** The `umbel` command of the host `loop`. */
  readonly umbelCommand: string;
  /** Where the local side keeps its SSH control sockets. */
  readonly controlDir: string;
  /** The local state root (UMBEL_HOME here). */
  readonly localHome: string;
  /** HOME of the local umbel. */
  readonly localUser: string;
  /** The state root of the "remote machine". */
  readonly remoteHome: string;
  /** HOME of the remote umbel. */
  readonly remoteUser: string;
  /** A working directory "on the remote machine". */
  readonly remoteWork: string;
  /** The cwd of the local umbel runs. */
  readonly localWork: string;
  /** The local umbel's own environment. */
  readonly env: Record<string, string>;
  /** The local umbel bin. */
  readonly run: UmbelRun;
  readonly start: UmbelStart;
  /** The remote machine's umbel, run directly (not over SSH). */
  readonly remoteRun: UmbelRun;
  masters(): ProcessInfo[];
  drop(): Promise<void>;
  restart(): Promise<void>;
  cleanUp(): Promise<void>;
}

export function sh(value: string): string;
export function remoteWorld(options?: {
  prefix?: string;
  remoteEnv?: Record<string, string>;
  localEnv?: Record<string, string>;
  tmp?: string;
}): Promise<RemoteWorld>;
