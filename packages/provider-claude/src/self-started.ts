/**
 * Turns Claude Code starts by itself (test-fixtures/real/BACKGROUND-FACTS.md §2): when a background
 * shell or subagent it started ends, it submits a `<task-notification>` prompt of its own — a
 * UserPromptSubmit with a new prompt_id, a transcript user entry with `origin.kind:
 * "task-notification"` — answers it and stops. Nobody sent it: it is no turn of umbel's.
 */
import { asRecord, stringField } from '@umbel/provider';

/** How the prompt of such a turn starts (the hook's `prompt`, the transcript entry's text). */
export const TASK_NOTIFICATION = '<task-notification>';

/** Whether a UserPromptSubmit payload is a turn Claude Code started by itself. */
export function isSelfStartedPrompt(payload: Record<string, unknown>): boolean {
  return stringField(payload, 'prompt')?.startsWith(TASK_NOTIFICATION) === true;
}

/** Whether a transcript entry is the prompt of a turn Claude Code started by itself (its origin, 2.1.332). */
export function isSelfStartedEntry(data: Record<string, unknown>): boolean {
  return data.type === 'user' && data.isSidechain !== true && (asRecord(data.origin)?.kind === 'task-notification' || data.turnOrigin === 'task_notification');
}
