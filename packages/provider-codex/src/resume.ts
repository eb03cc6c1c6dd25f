/**
 * How codex resumes its own conversation (`umbel revive`), verified on the pinned 0.171.0
 * (test-fixtures/real/REVIVE-FACTS.md §1): the TUI's `resume <id>` subcommand, with the same
 * options as a fresh launch after it, run in the same managed CODEX_HOME, continues thread `<id>`
 * in its rollout file (appended, same path) and sends the earlier turns to the model again.
 */

/** The arguments that resume codex thread `sessionId`: the subcommand first, umbel's options after. */
export function codexResumeArgs(sessionId: string): readonly string[] {
  return ['resume', sessionId];
}
