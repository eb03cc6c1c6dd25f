/** What the earlier umbel read or took and this one does not: named to the user, never silently ignored. */
import type { CliIo } from './io.js';

/** A hint for an option the earlier umbel had, from yargs' "Unknown argument(s): …" message; else undefined. */
export function retiredOptionHint(message: string): string | undefined {
  const unknown = message.replace(/^Unknown arguments?: /, '').split(/,\s*/);
  if (unknown.includes('since')) return "--since is gone: 'umbel wait NAME --turn N' takes the turn number 'umbel send' printed (docs/migration.md)";
  return undefined;
}

/** Say on stderr that UMBEL_STATE is not read (a script that sets it would otherwise use the default root unawares). */
export function warnRetiredEnv(io: Pick<CliIo, 'env' | 'stderr'>): void {
  if (io.env.UMBEL_STATE !== undefined && io.env.UMBEL_HOME === undefined) {
    io.stderr.write('umbel: UMBEL_STATE is not read any more; set UMBEL_HOME to choose the state root (docs/migration.md)\n');
  }
}
