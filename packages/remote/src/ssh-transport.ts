/**
 * One request to a host: `ssh … <umbel> rpc` with the request on its stdin, progress and the
 * response read from its stdout. How it failed, when no response came, is read from ssh's exit:
 * 255 (ssh could not connect, or the connection dropped) → HostUnreachableError with ssh's own
 * words; 127 (the shell there found no such command) → HostCommandMissingError naming the host and
 * the command; an umbel there that does not know `rpc` → HostIncompatibleError with its version.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdir } from 'node:fs/promises';
import {
  AbortedError,
  formatMs,
  HostCommandMissingError,
  type HostConfig,
  HostIncompatibleError,
  HostUnknownError,
  HostUnreachableError,
  UmbelError,
  UmbelErrorCode,
  VERSION,
  type WaitProgress,
} from '@umbel/core';
import type { RemoteEnv } from './env.js';
import { controlDir, sshArgv, sshEnv } from './ssh.js';
import { progressOf, RemoteError, type RpcRequest, type RpcResponse, RpcLineSchema } from './wire.js';

/** Per-call options of a transport. */
export interface CallOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: WaitProgress) => void;
  /** Give up (HostUnreachableError) when no response came within this many ms. */
  readonly deadlineMs?: number;
}

/**
 * Sends one request to a host and returns the response's value, or throws: the host's typed error
 * (its code kept), HostUnreachableError, HostCommandMissingError, HostIncompatibleError or
 * AbortedError.
 */
export type Transport = (host: string, request: RpcRequest, options?: CallOptions) => Promise<unknown>;

/** Options of {@link sshTransport}. */
export interface SshTransportOptions {
  readonly hosts: Readonly<Record<string, HostConfig>>;
  /** umbel's own environment: ssh gets only what it needs of it. */
  readonly env: RemoteEnv;
  /** The local state root (the control sockets live under it). */
  readonly home: string;
  /** The ssh program (default `$UMBEL_SSH_BIN`, else `ssh` from PATH). */
  readonly bin?: string;
}

/** What one ssh run ended with. */
interface Ended {
  readonly response?: RpcResponse;
  readonly code: number | null;
  readonly stderr: string;
  /** Lines of stdout that were not ours (what a plain command printed). */
  readonly text: string;
  readonly why?: 'aborted' | 'deadline' | 'spawn';
  readonly spawnError?: string;
}

/** After the response, how long ssh may take to exit before it is ended. */
const EXIT_GRACE_MS = 5_000;
/** After ssh exited, how long its output may take to reach its end. */
const EXIT_DRAIN_MS = 2_000;
const STDERR_KEEP = 4_000;

/** The last things ssh (or the remote shell) said, as one line. */
function lastWords(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('Warning: Permanently added'));
  const text = lines.slice(-3).join(' ');
  return text.length > 400 ? `…${text.slice(-399)}` : text;
}

/** Run ssh once: write `input`, read lines until the response, collect stderr. */
function runSsh(file: string, args: readonly string[], env: Record<string, string>, input: string, options: CallOptions): Promise<Ended> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(file, [...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (error) {
      resolve({ code: null, stderr: '', text: '', why: 'spawn', spawnError: (error as Error).message });
      return;
    }
    let response: RpcResponse | undefined;
    let why: Ended['why'];
    let stderr = '';
    let text = '';
    let pending = '';
    let grace: NodeJS.Timeout | undefined;
    const stop = (reason: Ended['why']) => {
      why ??= reason;
      child.kill('SIGTERM');
    };
    const onAbort = () => stop('aborted');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const deadline = options.deadlineMs === undefined ? undefined : setTimeout(() => stop('deadline'), options.deadlineMs);
    const onLine = (line: string) => {
      if (response || line.trim() === '') return;
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch {
        text = `${text}${line}\n`.slice(-STDERR_KEEP); // not ours: a plain command's output, a login banner
        return;
      }
      const parsed = RpcLineSchema.safeParse(json);
      if (!parsed.success) return;
      if ('progress' in parsed.data) {
        const progress = progressOf(parsed.data.progress);
        if (progress) options.onProgress?.(progress);
        return;
      }
      response = parsed.data;
      child.stdin?.end();
      grace = setTimeout(() => child.kill('SIGTERM'), EXIT_GRACE_MS);
    };
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      for (let at = pending.indexOf('\n'); at !== -1; at = pending.indexOf('\n')) {
        onLine(pending.slice(0, at));
        pending = pending.slice(at + 1);
      }
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEEP);
    });
    child.stdin?.on('error', () => undefined);
    child.on('error', (error) => {
      why ??= 'spawn';
      stderr += error.message;
    });
    let finished = false;
    const finish = (code: number | null) => {
      if (finished) return;
      finished = true;
      if (pending) onLine(pending);
      clearTimeout(deadline);
      clearTimeout(grace);
      clearTimeout(drain);
      options.signal?.removeEventListener('abort', onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve({ ...(response ? { response } : {}), code, stderr, text, ...(why ? { why } : {}), ...(why === 'spawn' ? { spawnError: stderr } : {}) });
    };
    let drain: NodeJS.Timeout | undefined;
    // Normally the output is read to its end ('close'); once ssh itself exited, a process it left
    // holding the pipes (or a call we ended) must not keep the caller waiting.
    child.on('exit', (code) => {
      drain = setTimeout(() => finish(code), why ? 0 : EXIT_DRAIN_MS);
    });
    child.on('close', (code) => finish(code));
    child.stdin?.write(`${input}\n`);
    if (options.signal?.aborted) onAbort();
  });
}

/** The transport of a fleet: one `ssh` per request, over one shared connection per host. */
export function sshTransport(options: SshTransportOptions): Transport {
  const bin = options.bin ?? options.env.UMBEL_SSH_BIN ?? 'ssh';
  const dir = controlDir(options.home);
  const env = sshEnv(options.env);
  let ready: Promise<void> | undefined;
  const prepare = () =>
    (ready ??= (async () => {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await chmod(dir, 0o700);
    })());

  const config = (name: string): HostConfig => {
    const host = options.hosts[name];
    if (!host) throw new HostUnknownError(name, Object.keys(options.hosts));
    return host;
  };

  const versionOf = async (host: HostConfig): Promise<string> => {
    const ended = await runSsh(bin, sshArgv(host, { controlDir: dir, words: ['--version'] }), env, '', { deadlineMs: 30_000 });
    return ended.code === 0 ? ended.text.trim() || 'an unknown version' : `an umbel that does not answer --version (${lastWords(ended.stderr)})`;
  };

  return async (name, request, callOptions = {}) => {
    const host = config(name);
    await prepare();
    if (callOptions.signal?.aborted) throw new AbortedError();
    const ended = await runSsh(bin, sshArgv(host, { controlDir: dir, words: ['rpc'] }), env, JSON.stringify(request), callOptions);
    if (ended.response) {
      if (ended.response.ok) return ended.response.value;
      throw new RemoteError(name, ended.response.error);
    }
    throw await failure(name, host, ended, callOptions, () => versionOf(host));
  };
}

/** The typed error for an ssh run that brought no response. */
async function failure(name: string, host: HostConfig, ended: Ended, options: CallOptions, version: () => Promise<string>): Promise<UmbelError> {
  const words = lastWords(ended.stderr);
  if (ended.why === 'aborted') return new AbortedError();
  if (ended.why === 'deadline') return new HostUnreachableError(name, `no answer within ${formatMs(options.deadlineMs ?? 0)}`);
  if (ended.why === 'spawn')
    return new HostUnreachableError(name, `ssh cannot be started here (${ended.spawnError ?? words}); install OpenSSH or set UMBEL_SSH_BIN`);
  if (ended.code === 255 || ended.code === null)
    return new HostUnreachableError(name, words || `ssh ended (${ended.code === null ? 'by a signal' : 'exit 255'})`);
  const command = host.umbel ?? 'umbel';
  if (ended.code === 127) return new HostCommandMissingError(name, command, words || 'command not found');
  if (/unknown verb 'rpc'/.test(ended.stderr)) {
    return new HostIncompatibleError(
      name,
      `it runs ${(await version()).replace(/\n/g, ' ')}, which does not speak 'umbel rpc' (this machine runs umbel ${VERSION})`,
    );
  }
  return new UmbelError({
    code: UmbelErrorCode.Internal,
    name: 'HostFailedError',
    message: `host '${name}': '${command} rpc' exited ${ended.code} without an answer${words ? `: ${words}` : ''}`,
  });
}
