/**
 * The CLI's version: `<binary> --version` run directly (never through a shell, its own process
 * group, killed at a short deadline), and how it compares with the versions a provider was
 * verified against.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** Bound of one `--version` run, doctor's and `umbel providers`' alike: a Node CLI takes seconds, more on a loaded machine. */
export const VERSION_TIMEOUT_MS = 20_000;

/** Run `path --version` (no shell, its own process group, killed at the deadline); the first output line. */
export function probeVersion(
  path: string,
  env: Readonly<Record<string, string | undefined>>,
  timeoutMs = VERSION_TIMEOUT_MS,
): Promise<{ version?: string; versionError?: string }> {
  return new Promise((resolve) => {
    const clean = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
    const child = spawn(path, ['--version'], { stdio: ['ignore', 'pipe', 'pipe'], env: clean, detached: true, shell: false });
    let out = '';
    let err = '';
    let timedOut = false;
    const cap = (text: string, chunk: Buffer) => (text.length < 64 * 1024 ? text + chunk.toString('utf8') : text);
    child.stdout.on('data', (chunk: Buffer) => (out = cap(out, chunk)));
    child.stderr.on('data', (chunk: Buffer) => (err = cap(err, chunk)));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    const firstLine = (text: string) =>
      text
        .split(/\r?\n/)
        .find((l) => l.trim() !== '')
        ?.trim()
        .slice(0, 200);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ versionError: `could not run it: ${error.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) return resolve({ versionError: `\`--version\` did not answer within ${timeoutMs} ms` });
      const line = firstLine(out) ?? firstLine(err);
      if (code !== 0) return resolve({ versionError: `\`--version\` ${signal ? `was killed by ${signal}` : `exited ${code}`}${line ? `: ${line}` : ''}` });
      resolve(line === undefined ? { versionError: '`--version` printed nothing' } : { version: line });
    });
  });
}

/**
 * {@link probeVersion} with a temp dir of its own under `tempRoot`, removed afterwards: a CLI may
 * leave files in TMPDIR even for `--version` (opencode: `$TMPDIR/opencode`), and doctor leaves nothing.
 */
export async function probeVersionIn(
  tempRoot: string,
  path: string,
  env: Readonly<Record<string, string | undefined>>,
  timeoutMs = VERSION_TIMEOUT_MS,
): Promise<{ version?: string; versionError?: string }> {
  const temp = await mkdtemp(join(tempRoot, 'umbel-doctor-version-'));
  try {
    return await probeVersion(path, { ...env, TMPDIR: temp, TMP: temp, TEMP: temp }, timeoutMs);
  } finally {
    await rm(temp, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** The first `x.y.z` (with an optional `-pre` tag) of a `--version` line. */
export function parseVersion(line: string): string | undefined {
  return /\b(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)\b/.exec(line)?.[1];
}

/** Compare two `x.y.z[-pre]` versions numerically (a pre-release sorts before its release). */
export function compareVersions(a: string, b: string): number {
  const split = (v: string) => {
    const [core = '', pre] = v.split('-', 2);
    return { parts: core.split('.').map((n) => Number(n)), pre };
  };
  const x = split(a);
  const y = split(b);
  for (let i = 0; i < Math.max(x.parts.length, y.parts.length); i++) {
    const d = (x.parts[i] ?? 0) - (y.parts[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  return x.pre < y.pre ? -1 : 1;
}

/** Where an installed version stands against a verified list. */
export type VersionStanding = 'verified' | 'newer' | 'older' | 'between' | 'unparseable' | 'no-list';

/** Whether `version` (a `--version` line) is verified, newer than every verified one, or neither. */
export function versionStanding(line: string, verified: readonly string[]): { standing: VersionStanding; version?: string } {
  if (verified.length === 0) return { standing: 'no-list' };
  const version = parseVersion(line);
  if (version === undefined) return { standing: 'unparseable' };
  if (verified.includes(version)) return { standing: 'verified', version };
  const newest = [...verified].sort(compareVersions).at(-1) as string;
  const oldest = [...verified].sort(compareVersions)[0] as string;
  if (compareVersions(version, newest) > 0) return { standing: 'newer', version };
  if (compareVersions(version, oldest) < 0) return { standing: 'older', version };
  return { standing: 'between', version };
}
