/**
 * How opencode continues its own session (`umbel revive`), verified on the pinned 1.18.33
 * (test-fixtures/real/REVIVE-FACTS.md §3): the TUI's `--session <ses_…>` opens that stored session in
 * the same worker config dir, and the next request carries its earlier turns.
 */

/** The arguments that continue opencode session `sessionId`. */
export function opencodeResumeArgs(sessionId: string): readonly string[] {
  return ['--session', sessionId];
}
