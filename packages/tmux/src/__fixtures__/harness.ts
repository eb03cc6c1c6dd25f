/**
 * Test harness for @umbel/tmux: a temp state root per test (so a private socket per test), cleanup that
 * kills that socket's server, and helpers to read /proc. Never touches the default tmux socket.
 */
import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vi } from 'vitest';
import { createTmuxSubstrate, type TmuxSubstrate, type TmuxSubstrateSettings } from '../index.js';

/** umbel's env for tests: the runner's env without any TMUX pointer, plus overrides. */
export function baseEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  delete env['TMUX'];
  delete env['TMUX_PANE'];
  delete env['UMBEL_TMUX_SOCKET'];
  return { ...env, ...extra };
}

/** A temp dir, removed by the returned cleanup list. */
export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** One test's substrate, home and cleanup. */
export interface Rig {
  readonly home: string;
  readonly substrate: TmuxSubstrate;
  readonly env: Record<string, string | undefined>;
  /** Run tmux on this rig's socket (tests only; argv array, minimal env). */
  tmux(...args: string[]): { status: number | null; stdout: string; stderr: string };
  cleanup(): Promise<void>;
}

/**
 * Make a rig: a temp home and a substrate over it. Unless the caller's env names one, the rig gets its
 * own TMUX_TMPDIR too (tmux leaves socket files behind after kill-server; they go with the rig).
 */
export async function makeRig(options: { env?: Record<string, string | undefined>; settings?: Partial<TmuxSubstrateSettings> } = {}): Promise<Rig> {
  const home = await tempDir('umbel-tmux-home-');
  const ownTmp = options.env?.['TMUX_TMPDIR'] === undefined ? await tempDir('umbel-tmux-sock-') : undefined;
  const env = { ...(options.env ?? baseEnv()), ...(ownTmp ? { TMUX_TMPDIR: ownTmp } : {}) };
  const substrate = createTmuxSubstrate({ home, env, callTimeoutMs: 15_000, ...options.settings });
  const clientEnv = substrate.attachCommand('probe').env;
  const tmux = (...args: string[]) => {
    const r = spawnSync('tmux', ['-L', substrate.socket, '-f', '/dev/null', ...args], { env: { ...clientEnv }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 15_000 });
    return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
  };
  return {
    home,
    substrate,
    env,
    tmux,
    async cleanup() {
      // Kill every session through the substrate first (it also ends processes that ignore SIGHUP).
      try {
        for (const session of await substrate.list()) await substrate.kill(session);
      } catch {
        /* a test may have broken the server on purpose */
      }
      tmux('kill-server');
      // Last resort (a test may plant a defect in kill): nothing marked with this socket outlives it.
      await reapMarked(substrate.socket);
      await rm(home, { recursive: true, force: true });
      // tmux leaves the socket file behind: ours goes (the whole dir when it is the rig's own).
      if (ownTmp) await rm(ownTmp, { recursive: true, force: true });
      else await rm(join(env['TMUX_TMPDIR'] ?? '/tmp', `tmux-${process.getuid?.() ?? ''}`, substrate.socket), { force: true });
    },
  };
}

/** Wait (event-free condition wait with a generous bound) until `check` returns a value. */
export async function until<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeout = 30_000): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await check();
      if (value === undefined || value === false) throw new Error('not yet');
      return value;
    },
    { timeout, interval: 50 },
  );
}

/** True while `pid` is a running (non-zombie) process. */
export async function alive(pid: number): Promise<boolean> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8');
    const state = text.slice(text.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Every regular file under `dir`, recursively. */
export async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(full)));
    else if ((await stat(full)).isFile()) out.push(full);
  }
  return out;
}

/** Exit records (`*-exit.json`) in `dir`, parsed, oldest first. */
export async function exitRecords(dir: string): Promise<{ name: string; body: unknown }[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('-exit.json')).sort();
  return Promise.all(names.map(async (name) => ({ name, body: JSON.parse(await readFile(join(dir, name), 'utf8')) as unknown })));
}

/** Pids of every running process whose environ holds an `UMBEL_TMUX_SESSION` value accepted by `match`. */
async function pidsMarkedWhere(match: (value: string) => boolean): Promise<number[]> {
  const out: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const entries = (await readFile(`/proc/${name}/environ`, 'utf8')).split('\0');
      const hit = entries.some((entry) => entry.startsWith('UMBEL_TMUX_SESSION=') && match(entry.slice('UMBEL_TMUX_SESSION='.length)));
      if (hit && (await alive(Number(name)))) out.push(Number(name));
    } catch {
      /* gone */
    }
  }
  return out;
}

/** SIGKILL every process marked with a session of the socket named `socket` (the test's own). */
export async function reapMarked(socket: string): Promise<void> {
  for (const pid of await pidsMarkedWhere((value) => value.includes(`/${socket}/`))) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

/**
 * Pids of every process whose environ holds `UMBEL_TMUX_SESSION=<mark>` (read here, independently of
 * the substrate's own scan, so a bug there cannot hide a survivor). Zombies are not counted.
 */
export function markedPids(mark: string): Promise<number[]> {
  return pidsMarkedWhere((value) => value === mark);
}

/** The session mark of `session` on this rig's server: its socket's path (as tmux spells it in $TMUX), `/`, the session. */
export function markOf(rig: Rig, session: string): string {
  const dir = join(realpathSync(rig.env['TMUX_TMPDIR'] ?? '/tmp'), `tmux-${process.getuid?.() ?? 'user'}`);
  return `${dir}/${rig.substrate.socket}/${session}`;
}

/** The fault-injection tmux of the test suite (test-fixtures/bin/tmux-stall). */
export const STALL_SHIM = join(import.meta.dirname, '..', '..', '..', '..', 'test-fixtures', 'bin', 'tmux-stall');
