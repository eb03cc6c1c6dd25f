/**
 * Where a CLI keeps its background work (subagents' transcripts) beside a transcript, as data
 * (ProviderV1's `doFindActivityDirs`): the transcript paths that have such dirs and the dirs they
 * name, from the path's groups and the session id. Pure.
 */

/** The transcript's pattern and the dirs it names. */
export interface ActivityDirFacts {
  /** The transcript paths that have activity dirs (no `g` flag); its groups fill `$1`…`$9` of `dirs`. */
  readonly transcript: RegExp;
  /** The dirs (`$1/subagents/$2`); `{session}` is the session id: a dir naming it is left out without one. */
  readonly dirs: readonly string[];
  /** The characters the CLI replaces with `_` when it makes the session id a file name (default none). */
  readonly unsafe?: RegExp;
}

/** The `activityDirs` fact of these facts. */
export function activityDirsOf(facts: ActivityDirFacts): (transcriptPath: string, sessionId?: string) => readonly string[] {
  return (transcriptPath, sessionId) => {
    const m = facts.transcript.exec(transcriptPath);
    if (!m) return [];
    const session = facts.unsafe && sessionId ? sessionId.replace(new RegExp(facts.unsafe, 'g'), '_') : sessionId;
    const named = facts.dirs.filter((dir) => session || !dir.includes('{session}'));
    return named.map((dir) => dir.replace(/\$(\d)|\{session\}/g, (_, n: string | undefined) => (n === undefined ? (session ?? '') : (m[Number(n)] ?? ''))));
  };
}
