import { createHash } from 'node:crypto';
import { lstatSync, readlinkSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';

/** Most symlinks followed while canonicalising one path (Linux's own limit). */
const MAX_SYMLINKS = 40;

/**
 * The physical spelling of `path`, the same before and after it exists: every existing component is
 * resolved as `realpath` would (symlinks followed, `..` taken physically), a symlink whose target does
 * not exist yet is followed to that target all the same, and the missing rest is appended as written.
 * So `link/umbel` with `link → /t` (missing) is `/t/umbel` both now and once `/t/umbel` is created.
 * A symlink loop (more than 40 links) stops the walk: the rest is appended unresolved.
 */
export function canonicalPath(path: string): string {
  const pending = resolve(path)
    .split(sep)
    .filter((part) => part !== '');
  let done: string = sep;
  let links = 0;
  while (pending.length > 0) {
    const part = pending.shift() as string;
    if (part === '.') continue;
    if (part === '..') {
      done = dirname(done);
      continue;
    }
    const next = join(done, part);
    let isLink: boolean;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch {
      // Missing (or unreadable): nothing below it can be a symlink we could see.
      return resolve(next, ...pending);
    }
    if (!isLink) {
      done = next;
      continue;
    }
    links += 1;
    const target = links <= MAX_SYMLINKS ? readLink(next) : undefined;
    if (target === undefined) return resolve(next, ...pending);
    pending.unshift(...target.split(sep).filter((piece) => piece !== ''));
    if (target.startsWith(sep)) done = sep;
  }
  return done;
}

function readLink(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The private tmux socket name (`-L`) for a state root: `umbel-<first 12 hex of sha256(path)>`, where
 * path is {@link canonicalPath}(home): the realpath, also for a root (or a symlink target above it)
 * that does not exist yet. Two state roots never share a socket, so a test under a temp home can
 * neither see nor reap real workers, and one root has one socket before and after it is created.
 */
export function socketNameFor(home: string): string {
  return `umbel-${createHash('sha256').update(canonicalPath(home)).digest('hex').slice(0, 12)}`;
}

/** The socket for these settings: `UMBEL_TMUX_SOCKET` from `env` when set and non-empty, else {@link socketNameFor}. */
export function resolveSocketName(home: string, env: Readonly<Record<string, string | undefined>>): string {
  const override = env['UMBEL_TMUX_SOCKET'];
  return override !== undefined && override !== '' ? override : socketNameFor(home);
}
