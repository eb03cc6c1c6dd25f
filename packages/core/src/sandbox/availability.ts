/**
 * Whether `--sandbox` can be had here, checked before anything is created: the OS, the sandbox
 * runtime (`@anthropic-ai/sandbox-runtime`'s `srt`), and on Linux bubblewrap and socat on the
 * worker's PATH and user namespaces. Cheap (file lookups only); `probeSandbox` (doctor) runs srt once.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
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
  return new Promise((done) => {
    execFile(
      process.execPath,
      [cli, '--settings', settingsPath, '--', 'true'],
      // srt leaves its proxy socket in its TMPDIR even on a clean exit: the probe's private dir takes it.
      { env: { PATH: env.PATH ?? '', HOME: env.HOME ?? '', TMPDIR: dirname(settingsPath) }, timeout: 20_000 },
      (error, _out, stderr) => done(error ? `srt failed: ${(stderr || error.message).trim().split('\n').slice(-2).join(' ')}` : undefined),
    );
  });
}
