/**
 * A config file others can write is refused, like ssh refuses such a `~/.ssh/config`: it names
 * provider packages umbel imports and `sshArgs` (a `ProxyCommand` runs on any verb), so whoever can
 * write it can run code as the user. Refused: a file writable by its group or by others, or owned by
 * another user than the one running umbel (or root).
 */
import type { Stats } from 'node:fs';

/** Why the file's permissions make it unsafe to use, or undefined when they are fine. Pure. */
export function unsafeConfigMode(stats: Pick<Stats, 'mode' | 'uid'>, uid: number | undefined): string | undefined {
  const mode = (stats.mode & 0o777).toString(8).padStart(4, '0');
  const writable = [stats.mode & 0o020 ? 'group' : '', stats.mode & 0o002 ? 'others' : ''].filter(Boolean);
  if (writable.length > 0)
    return `it is writable by ${writable.join(' and ')} (mode ${mode}): whoever can write it can run commands as you (its providers and sshArgs)`;
  if (uid !== undefined && stats.uid !== uid && stats.uid !== 0)
    return `it is owned by another user (uid ${stats.uid}): whoever owns it can run commands as you`;
  return undefined;
}
