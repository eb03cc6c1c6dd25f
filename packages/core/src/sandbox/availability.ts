/**
 * Whether `--sandbox` can be had here, checked before anything is created: the OS, the sandbox
 * runtime (`@anthropic-ai/sandbox-runtime`'s `srt`), and on Linux bubblewrap and socat on the
 * worker's PATH and user namespaces. Cheap (file lookups only); `probeSandbox` (doctor) runs srt once.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { SandboxUnavailableError } from '../contract/errors.js';

const LINUX_HINT = 'install bubblewrap and socat (apt-get install bubblewrap socat; dnf install bubblewrap socat) and allow unprivileged user namespaces';

/** What a check may look at (injectable for tests). */
export interface SandboxHostFacts {
  readonly platform: NodeJS.Platform;
  readonly isRoot: boolean;
  /** The sysctl files that turn user namespaces off: their value, undefined when absent. */
  readonly readSysctl: (path: string) => string | undefined;
  readonly srtCli: () => string | undefined;
}

function onPath(command: string, pathValue: string | undefined): boolean {
  for (const dir of (pathValue ?? '').split(':')) {
    if (!dir) continue;
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      // next
    }
  }
  return false;
}

/** The srt CLI of the installed `@anthropic-ai/sandbox-runtime` (a dependency of this package), or undefined. */
export function findSrtCli(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const manifest = require.resolve('@anthropic-ai/sandbox-runtime/package.json');
    const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: Record<string, string> }).bin?.srt;
    return bin ? join(dirname(manifest), bin) : undefined;
  } catch {
    return undefined;
  }
}

function readSysctl(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** The machine as it is. */
export function hostFacts(): SandboxHostFacts {
  return { platform: process.platform, isRoot: typeof process.getuid === 'function' && process.getuid() === 0, readSysctl, srtCli: findSrtCli };
}

function linuxProblem(env: Readonly<Record<string, string | undefined>>, facts: SandboxHostFacts): string | undefined {
  const missing = ['bwrap', 'socat'].filter((c) => !onPath(c, env.PATH));
  if (missing.length) return `${missing.join(' and ')} not found on the worker's PATH`;
  if (facts.isRoot) return undefined;
  if (facts.readSysctl('/proc/sys/user/max_user_namespaces') === '0') return 'user namespaces are turned off (user.max_user_namespaces = 0)';
  if (facts.readSysctl('/proc/sys/kernel/unprivileged_userns_clone') === '0')
    return 'unprivileged user namespaces are turned off (kernel.unprivileged_userns_clone = 0)';
  return undefined;
}

/** The srt CLI to wrap a launch in; SandboxUnavailableError (exit 116) with the install hint otherwise. */
export function requireSandbox(env: Readonly<Record<string, string | undefined>>, facts: SandboxHostFacts = hostFacts()): string {
  if (facts.platform !== 'linux' && facts.platform !== 'darwin')
    throw new SandboxUnavailableError(
      `${facts.platform} is not supported (Linux and macOS are)`,
      'run the worker without --sandbox, or on a Linux or macOS host (--host)',
    );
  if (facts.platform === 'linux') {
    const problem = linuxProblem(env, facts);
    if (problem) throw new SandboxUnavailableError(problem, LINUX_HINT);
  } else if (!onPath('sandbox-exec', '/usr/bin:/bin:/usr/sbin:/sbin')) {
    throw new SandboxUnavailableError('sandbox-exec not found', 'macOS ships /usr/bin/sandbox-exec; check the system is intact');
  }
  const cli = facts.srtCli();
  if (!cli)
    throw new SandboxUnavailableError(
      '@anthropic-ai/sandbox-runtime is not installed',
      'reinstall umbel (npm install -g umbel): it depends on @anthropic-ai/sandbox-runtime',
    );
  return cli;
}

/** Doctor: run srt once on `true` with no writes and no network. Resolves to undefined when it works, else why not. */
export function probeSandbox(
  env: Readonly<Record<string, string | undefined>>,
  settingsPath: string,
  facts: SandboxHostFacts = hostFacts(),
): Promise<string | undefined> {
  let cli: string;
  try {
    cli = requireSandbox(env, facts);
  } catch (error) {
    return Promise.resolve((error as SandboxUnavailableError).reason ?? String(error));
  }
  // srt leaves its proxy socket in its TMPDIR even on a clean exit: the probe's private dir takes it.
  // Its own process group: srt SIGTERMs its socat bridges and exits without waiting for them, so
  // the group is killed once srt has exited; bwrap runs the bridges inside in a session of their
  // own, out of that group, and each names its socket in the probe's dir: those are killed too,
  // and the probe leaves no process behind.
  const child = spawn(process.execPath, [cli, '--settings', settingsPath, '--', 'true'], {
    env: { PATH: env.PATH ?? '', HOME: env.HOME ?? '', TMPDIR: dirname(settingsPath) },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((done) => {
    const finish = (problem: string | undefined) => {
      clearTimeout(timer);
      void killGroup(child.pid)
        .then(() => killNaming(dirname(settingsPath)))
        .then(() => done(problem));
    };
    const why = (detail: string) => `srt failed: ${(stderr || detail).trim().split('\n').slice(-2).join(' ')}`;
    child.on('error', (error) => finish(why(error.message)));
    child.on('close', (code, signal) => finish(code === 0 ? undefined : why(`exited ${code ?? signal}`)));
  });
}

/** SIGKILL what is left of process group `pid`, and wait (at most 2 s) until none of it runs. */
async function killGroup(pid: number | undefined): Promise<void> {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    return; // the group is empty
  }
  await waitUntil(() => runningPids((stat) => Number(stat[2]) === pid).length === 0);
}

/** SIGKILL every process whose command line names `text` (a private dir of this probe), until none runs (at most 2 s). */
async function killNaming(text: string): Promise<void> {
  const named = (_stat: readonly string[], pid: string) => pid !== String(process.pid) && readText(`/proc/${pid}/cmdline`).includes(text);
  await waitUntil(() => {
    const pids = runningPids(named);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    return pids.length === 0;
  });
}

async function waitUntil(done: () => boolean): Promise<void> {
  for (const end = Date.now() + 2_000; Date.now() < end && !done(); ) await new Promise((r) => setTimeout(r, 10));
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return ''; // gone meanwhile
  }
}

/** Pids of the running processes (zombies are not) whose `/proc/<pid>/stat` fields after the name pass `test`; none without /proc (macOS). */
function runningPids(test: (stat: readonly string[], pid: string) => boolean): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  return names
    .filter((name) => {
      if (!/^\d+$/.test(name)) return false;
      const fields = readText(`/proc/${name}/stat`).split(') ').at(-1)?.split(' ') ?? [];
      return fields.length > 2 && fields[0] !== 'Z' && test(fields, name);
    })
    .map(Number);
}
