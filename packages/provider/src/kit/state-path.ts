/**
 * Where a CLI keeps its state (config, transcripts, history) for one env: a place in the shape of
 * the sandbox's `writePaths` (`{path: '~/.acme', env: 'ACME_HOME'}`), `~/` the HOME, `env` a
 * variable that moves it. Pure.
 */
import { join } from 'node:path';

/** The place's path for `env`: its variable's value when set, else the path with `~/` as `env.HOME`; undefined without a HOME. */
export function statePath(place: { readonly path: string; readonly env?: string }, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const moved = place.env === undefined ? undefined : env[place.env];
  if (moved) return moved;
  if (!place.path.startsWith('~/')) return place.path;
  return env.HOME ? join(env.HOME, place.path.slice(2)) : undefined;
}
