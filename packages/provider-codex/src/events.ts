/** What codex hook payloads (reference codex.md §6.3) tell umbel. Pure. */
import type { HookEvent, ProviderV1EventInfo } from '@umbel/core';

/** Prefix of the hidden title thread's prompt (§2.4); its notify must be ignored. */
export const TITLE_PROMPT_PREFIX = 'Generate a concise, single-line task title';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Extract session id, transcript path, turn id, needs-input and the answer from a payload. */
export function parseCodexEvent(event: HookEvent): ProviderV1EventInfo {
  const p = event.payload;
  if (!p || typeof p !== 'object') return {};
  const o = p as Record<string, unknown>;
  if (o.type === 'agent-turn-complete') {
    // legacy notify: no transcript path; the title thread fires it too
    const inputs = Array.isArray(o['input-messages']) ? (o['input-messages'] as unknown[]) : [];
    if (typeof inputs[0] === 'string' && inputs[0].startsWith(TITLE_PROMPT_PREFIX)) return {};
    const last = str(o['last-assistant-message']);
    return {
      ...(str(o['thread-id']) ? { sessionId: str(o['thread-id']) } : {}),
      ...(str(o['turn-id']) ? { turnKey: str(o['turn-id']) } : {}),
      ...(last !== undefined ? { lastMessage: last } : {}),
    };
  }
  const info: { -readonly [K in keyof ProviderV1EventInfo]: ProviderV1EventInfo[K] } = {};
  if (str(o.session_id)) info.sessionId = str(o.session_id);
  if (str(o.transcript_path)) info.transcriptPath = str(o.transcript_path);
  if (str(o.turn_id)) info.turnKey = str(o.turn_id);
  const name = str(o.hook_event_name);
  const input = (o.tool_input && typeof o.tool_input === 'object' ? o.tool_input : {}) as Record<string, unknown>;
  if (name === 'PermissionRequest' || event.kind === 'permission') {
    const tool = str(o.tool_name);
    const message = str(input.description) ?? str(input.command);
    info.needsInput = { kind: 'permission', ...(message ? { message } : {}), ...(tool ? { tool } : {}) };
  }
  if (name === 'Stop' && typeof o.last_assistant_message === 'string') info.lastMessage = o.last_assistant_message;
  if (name === 'PreToolUse' || name === 'PostToolUse') {
    const cmd = str(input.command);
    info.activity = `${str(o.tool_name) ?? 'tool'}${cmd ? `: ${cmd}` : ''}`;
  }
  return info;
}
