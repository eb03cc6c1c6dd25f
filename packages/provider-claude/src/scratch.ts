/** Forgetting a scratch session (`umbel doctor`) in Claude Code's own state: CLAUDE-FACTS.md "Scratch state" says what and why. */
import { join } from 'node:path';
import type { ProviderV1ScratchSession } from '@umbel/provider';
import { editQuietly, removeSessionState, statePath, withoutJsonLines, withoutJsonMember } from '@umbel/provider';
import { CLAUDE_CONFIG, CLAUDE_STATE_FILE } from './facts.js';

/** `.claude.json` without the folder's project entry (2-space JSON, as Claude writes it). */
export const withoutProject = (text: string, folder: string) => withoutJsonMember(text, ['projects', folder]);

/** `history.jsonl` without the lines of the folder or of those sessions. */
export const withoutHistory = (text: string, folder: string, sessionIds: readonly string[]) =>
  withoutJsonLines(text, (entry) => entry.project === folder || sessionIds.includes(String(entry.sessionId)));

/** Forget the scratch session in Claude's own state: the shared files edited only when they hold some of it. Best effort: never throws. */
export async function forgetClaudeScratch({ folder, sessionIds, env }: ProviderV1ScratchSession): Promise<void> {
  const root = statePath(CLAUDE_CONFIG, env);
  await editQuietly(env.CLAUDE_CONFIG_DIR ? join(env.CLAUDE_CONFIG_DIR, '.claude.json') : statePath(CLAUDE_STATE_FILE, env), (text) =>
    withoutProject(text, folder),
  );
  if (!root) return;
  await editQuietly(join(root, 'history.jsonl'), (text) => withoutHistory(text, folder, sessionIds));
  await removeSessionState(root, sessionIds, { dirs: ['session-env'], namedFiles: ['telemetry'] });
}
