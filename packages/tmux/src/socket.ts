import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The private tmux socket name (`-L`) for a state root: `umbel-<first 12 hex of sha256(path)>`, where
 * path is the realpath of `home` when it exists, else its resolved absolute form. Two state roots never
 * share a socket, so a test under a temp home can neither see nor reap real workers.
 */
export function socketNameFor(home: string): string {
  let path: string;
  try {
    path = realpathSync(home);
  } catch {
    path = resolve(home);
  }
  return `umbel-${createHash('sha256').update(path).digest('hex').slice(0, 12)}`;
}

/** The socket for these settings: `UMBEL_TMUX_SOCKET` from `env` when set and non-empty, else {@link socketNameFor}. */
export function resolveSocketName(home: string, env: Readonly<Record<string, string | undefined>>): string {
  const override = env['UMBEL_TMUX_SOCKET'];
  return override !== undefined && override !== '' ? override : socketNameFor(home);
}
