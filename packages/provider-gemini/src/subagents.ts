/**
 * Where Gemini CLI's subagents (`invoke_agent`) record their work while they run
 * (test-fixtures/real/BACKGROUND-FACTS.md §8): each its own chat, `chats/<main session id>/<its id>.jsonl`,
 * beside the main chat `chats/session-<time>-<first 8 of the id>.jsonl`. Pure.
 */

/** A main chat's path: `<project temp dir>/chats/session-<…>.jsonl`. */
const MAIN_CHAT = /^(.*\/chats)\/session-[^/]+\.jsonl$/;

/** The session id as the CLI makes it a directory name (its `sanitizeFilenamePart`). */
const fileNamePart = (id: string) => id.replace(/[^a-zA-Z0-9_-]/g, '_');

/** The directory of the subagents' chats of the main chat at `transcriptPath` (session `sessionId`); none without the id. */
export function geminiActivityDirs(transcriptPath: string, sessionId?: string): readonly string[] {
  const m = MAIN_CHAT.exec(transcriptPath);
  return m && sessionId ? [`${m[1]}/${fileNamePart(sessionId)}`] : [];
}
