/**
 * The one way umbel runs git: bounded, without a shell, with umbel's own environment for it (none
 * of the caller's GIT_* — a GIT_DIR or GIT_INDEX_FILE would redirect it — a fixed locale, never a
 * prompt). A failure is a value (`error`, or a non-zero `code` with git's stderr), never a throw.
 */
import { spawn } from 'node:child_process';

/** Largest output kept from one git call. */
const MAX_OUTPUT = 16 * 1024 * 1024;

/** The environment umbel reads git's location and settings from. */
export type GitEnv = Readonly<Record<string, string | undefined>>;

export interface GitOptions {
  readonly cwd: string;
  readonly env: GitEnv;
  readonly indexFile?: string;
  readonly timeoutMs: number;
  /** `-c` settings for this call (`core.fsync=none`, …). */
  readonly config?: readonly string[];
}

export interface GitRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** git could not be run or did not finish (not on PATH, timed out). */
  readonly error?: string;
}

/** The message of a git run that was not found on PATH. */
export const GIT_MISSING = 'git is not installed (not on PATH)';

/** umbel's env for git: no GIT_* of the caller's, fixed locale, no prompts. */
function gitEnv(env: GitEnv, indexFile?: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined && !key.startsWith('GIT_')) out[key] = value;
  return { ...out, LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', ...(indexFile ? { GIT_INDEX_FILE: indexFile } : {}) };
}

/** Run `git args…` in `options.cwd`. */
export function git(args: readonly string[], options: GitOptions): Promise<GitRun> {
  return new Promise((resolve) => {
    const config = (options.config ?? []).flatMap((setting) => ['-c', setting]);
    const child = spawn('git', ['-c', 'core.quotepath=off', ...config, ...args], {
      cwd: options.cwd,
      env: gitEnv(options.env, options.indexFile),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_OUTPUT) out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ code: null, stdout: '', stderr: '', error: `git ${args[0]} took longer than ${Math.round(options.timeoutMs / 1000)}s` });
    }, options.timeoutMs);
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ code: null, stdout: '', stderr: '', error: error.code === 'ENOENT' ? GIT_MISSING : error.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

/** Why a run failed (its last stderr line), or undefined when it succeeded. */
export function failure(run: GitRun, what: string): string | undefined {
  if (run.error) return run.error;
  if (run.code === 0) return undefined;
  const line = run.stderr.trim().split('\n').pop() ?? '';
  return `${what} failed${line ? `: ${line}` : ` (exit ${run.code})`}`;
}
