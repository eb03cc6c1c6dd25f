/**
 * A managed config home: the directory a provider keeps for its CLI beside the user's own config
 * dir, which it only ever reads. Entries it does not manage (credentials, instructions) are
 * symlinks to the user's, so no secret is copied and a token refresh is shared; the files it does
 * manage start as the user's copy and are then only edited, written atomically (0600) and only when
 * they change. A home shared by concurrent spawns is prepared under a directory lock.
 */
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readTextIfExists, symlinkIfAbsent, writeIfChanged } from './files.js';
import { withDirLock } from './lock.js';

/** What {@link prepareHome} keeps in a managed home. */
export interface ManagedHomeFacts {
  /** The user's own config dir (only read). */
  readonly user: string;
  /** The managed dir (created 0700). */
  readonly home: string;
  /** Entries of `user` linked into `home` when nothing is there yet: their names, or a test over every entry of `user`. */
  readonly link?: readonly string[] | ((name: string) => boolean);
  /**
   * The files umbel manages in `home`, in order: each one's text from its current text (the managed
   * copy, else the user's file of that name, else undefined). Pure; applied to its own output it
   * should change nothing.
   */
  readonly files?: Readonly<Record<string, (current: string | undefined) => string>>;
  /** Hold the lock `<home>.lock` while preparing (a home every spawn of one state root shares). */
  readonly lock?: boolean;
}

async function linkEntries(user: string, home: string, link: NonNullable<ManagedHomeFacts['link']>): Promise<void> {
  const names = typeof link === 'function' ? (await readdir(user).catch(() => [] as string[])).filter(link) : link;
  for (const name of names) await symlinkIfAbsent(join(user, name), join(home, name));
}

async function writeFiles(user: string, home: string, files: NonNullable<ManagedHomeFacts['files']>): Promise<Record<string, string>> {
  const texts: Record<string, string> = {};
  for (const [name, render] of Object.entries(files)) {
    const path = join(home, name);
    const current = (await readTextIfExists(path)) ?? (user !== home ? await readTextIfExists(join(user, name)) : undefined);
    texts[name] = render(current);
    await writeIfChanged(path, texts[name]);
  }
  return texts;
}

/** Create or update the managed home (see the module comment); the managed files' texts by name. */
export async function prepareHome(facts: ManagedHomeFacts): Promise<Record<string, string>> {
  const { user, home } = facts;
  await mkdir(home, { recursive: true, mode: 0o700 });
  const prepare = async () => {
    const texts = await writeFiles(user, home, facts.files ?? {});
    if (facts.link && user !== home) await linkEntries(user, home, facts.link);
    return texts;
  };
  return facts.lock ? withDirLock(`${home}.lock`, prepare) : prepare();
}
