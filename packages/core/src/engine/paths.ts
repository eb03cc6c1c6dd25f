/** Where umbel keeps its state. Pure path arithmetic; no I/O. */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Resolve the state root: `UMBEL_HOME`, else `$XDG_STATE_HOME/umbel`, else `~/.local/state/umbel`. */
export function resolveHome(env: Readonly<Record<string, string | undefined>>, explicit?: string): string {
  if (explicit) return resolve(explicit);
  if (env.UMBEL_HOME) return resolve(env.UMBEL_HOME);
  if (env.XDG_STATE_HOME) return join(resolve(env.XDG_STATE_HOME), 'umbel');
  return join(env.HOME || homedir(), '.local', 'state', 'umbel');
}

/** The files of one state root. */
export interface StatePaths {
  readonly home: string;
  readonly hooksDir: string;
  readonly hookSink: string;
  readonly workersDir: string;
  readonly runsDir: string;
  worker(name: string): WorkerPaths;
  providerShared(providerId: string): string;
}

/** The files of one worker. */
export interface WorkerPaths {
  readonly dir: string;
  readonly meta: string;
  readonly events: string;
  readonly provider: string;
  readonly sendLock: string;
}

/** Path layout of a state root (see docs/architecture.md §state). */
export function statePaths(home: string): StatePaths {
  const workersDir = join(home, 'workers');
  return {
    home,
    hooksDir: join(home, 'hooks'),
    hookSink: join(home, 'hooks', 'umbel-hook'),
    workersDir,
    runsDir: join(home, 'runs'),
    worker(name) {
      const dir = join(workersDir, name);
      return { dir, meta: join(dir, 'meta.json'), events: join(dir, 'events'), provider: join(dir, 'provider'), sendLock: join(dir, 'send.lock') };
    },
    providerShared(providerId) {
      return join(home, 'providers', providerId);
    },
  };
}

/** The substrate session name of a worker. */
export function sessionName(worker: string): string {
  return `umbel-${worker}`;
}
