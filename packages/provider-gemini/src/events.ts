/**
 * Hook payloads of Gemini CLI (reference gemini.md §4). Every payload carries `session_id`,
 * `transcript_path`, `cwd`, `hook_event_name` and `timestamp`.
 */
import type { HookEvent, ProviderV1EventInfo } from '@umbel/core';

/** AfterAgent's `prompt_response` when the turn produced no text (API error, cancel). */
export const NO_RESPONSE_TEXT = '[no response text]';

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * Extract what a Gemini hook payload says.
 * - BeforeAgent (`prompt`): the payload `timestamp` becomes the turn key (the prompt's transcript
 *   record is written after it; see readGeminiTurn's `acceptedAt`).
 * - AfterAgent (`stop`): `prompt_response` as a fallback answer, unless it is `[no response text]`.
 * - Notification (`notify`): `ToolPermission` means the approval dialog is up (needs input).
 * - BeforeTool (`tool`): activity.
 */
export function parseGeminiEvent(event: HookEvent): ProviderV1EventInfo {
  const p = record(event.payload);
  const base: { sessionId?: string; transcriptPath?: string } = {};
  const sessionId = str(p.session_id);
  const transcriptPath = str(p.transcript_path);
  if (sessionId) base.sessionId = sessionId;
  if (transcriptPath) base.transcriptPath = transcriptPath;
  switch (event.kind) {
    case 'prompt': {
      const at = str(p.timestamp);
      return { ...base, ...(at ? { turnKey: at } : {}) };
    }
    case 'stop': {
      const response = typeof p.prompt_response === 'string' ? p.prompt_response : undefined;
      return { ...base, ...(response !== undefined && response !== NO_RESPONSE_TEXT ? { lastMessage: response } : {}) };
    }
    case 'notify':
    case 'permission': {
      const type = str(p.notification_type);
      if (type !== 'ToolPermission' && !(event.kind === 'permission' && type === undefined)) return base;
      const details = record(p.details);
      const tool = str(details.rootCommand) ?? str(details.title) ?? str(p.tool_name);
      const command = str(details.command);
      const message = str(p.message) ?? 'Gemini is asking for permission';
      return {
        ...base,
        needsInput: { kind: 'permission', message: command ? `${message}: ${command}` : message, ...(tool ? { tool } : {}) },
      };
    }
    case 'tool': {
      const name = str(p.tool_name);
      const input = record(p.tool_input);
      const arg = str(input.command) ?? str(input.file_path) ?? str(input.dir_path) ?? str(input.pattern) ?? '';
      return { ...base, ...(name ? { activity: arg ? `${name}(${arg})` : name } : {}) };
    }
    default:
      return base;
  }
}
