/** Forgetting a scratch session (`umbel doctor`) in Claude Code's own state: CLAUDE-FACTS.md "Scratch state" says what and why. */
import { join } from 'node:path';
import type { ProviderV1ScratchSession, ScratchFacts } from '@umbel/provider';
import { statePath, withoutJsonLines, withoutJsonMember } from '@umbel/provider';
import { CLAUDE_CONFIG, CLAUDE_STATE_FILE } from './facts.js';

/** `.claude.json` without the folder's project entry (2-space JSON, as Claude writes it). */
export const withoutProject = (text: string, folder: string) => withoutJsonMember(text, ['projects', folder]);

/** `history.jsonl` without the lines of the folder or of those sessions. */
export const withoutHistory = (text: string, folder: string, sessionIds: readonly string[]) =>
  withoutJsonLines(text, (entry) => entry.project === folder || sessionIds.includes(String(entry.sessionId)));

/** What forgetting a scratch session edits and removes in Claude's own state (the kit does it, best effort). Pure. */
export function claudeScratch({ folder, sessionIds, env }: ProviderV1ScratchSession): ScratchFacts {
  const root = statePath(CLAUDE_CONFIG, env);
  const state = env.CLAUDE_CONFIG_DIR ? join(env.CLAUDE_CONFIG_DIR, '.claude.json') : statePath(CLAUDE_STATE_FILE, env);
  return {
    edits: [
      { path: state, edit: (text) => withoutProject(text, folder) },
      { path: root && join(root, 'history.jsonl'), edit: (text) => withoutHistory(text, folder, sessionIds) },
    ],
    sessionState: { root, sessionIds, dirs: ['session-env'], namedFiles: ['telemetry'] },
  };
}
