// Types of sshd.mjs (plain ESM), for the TypeScript tests that import it.
export interface Sshd {
  readonly dir: string;
  readonly port: number;
  /** The ssh destination of the server (an alias of the client config in `sshArgs`). */
  readonly destination: string;
  /** `-F <client config>`: port, user, key, known_hosts. */
  readonly sshArgs: string[];
  readonly clientKey: string;
  readonly knownHosts: string;
  readonly pid: number | undefined;
  /** What sshd wrote on stderr since its last start. */
  readonly log: string;
  /** The listener and its connection processes. */
  processes(): number[];
  /** The host goes away: the listener and every connection it holds are killed. */
  drop(): Promise<void>;
  /** Start again on the same port with the same keys. */
  restart(): Promise<void>;
  /** Stop it; throws when a process of it is left. */
  stop(): Promise<void>;
}

export function sshdPath(): string;
export function freePort(): Promise<number>;
export function descendantsOf(pid: number): number[];
export function startSshd(options: { dir: string }): Promise<Sshd>;
export function exitMasters(options: { controlDir: string; sshArgs: string[]; destination: string }): void;
