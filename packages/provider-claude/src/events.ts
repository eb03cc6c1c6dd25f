import type { HookEvent, ProviderV1EventInfo } from '@umbel/core';
import { asRecord, describeToolCall, oneLine, stringField, toolArgument } from './util.js';

type NeedsInput = NonNullable<ProviderV1EventInfo['needsInput']>;

/** Classify a Claude Code `Notification` payload; undefined = informational. */
function classifyNotification(payload: Record<string, unknown>): NeedsInput | undefined {
  const type = stringField(payload, 'notification_type');
  const message = stringField(payload, 'message');
  const withMessage = <T extends NeedsInput>(value: T): T => (message === undefined ? value : { ...value, message });
  switch (type) {
    case 'permission_prompt':
      return withMessage({ kind: 'permission' });
    case 'worker_permission_prompt': {
      const tool = message === undefined ? undefined : /needs permission for (\S+)/.exec(message)?.[1];
      return withMessage(tool === undefined ? { kind: 'permission' } : { kind: 'permission', tool });
    }
    case 'idle_prompt':
      return withMessage({ kind: 'idle' });
    case 'elicitation_dialog':
      return withMessage({ kind: 'question' });
    default:
      return undefined;
  }
}

/**
 * What one Claude Code hook payload says (claude-code.md §3). `session_id`, `transcript_path` and
 * `prompt_id` are read from every payload; the rest depends on the event kind. Pure.
 */
export function parseClaudeEvent(event: HookEvent): ProviderV1EventInfo {
  const payload = asRecord(event.payload);
  if (!payload) return {};
  const info: {
    sessionId?: string;
    transcriptPath?: string;
    turnKey?: string;
    needsInput?: NeedsInput;
    error?: string;
    lastMessage?: string;
    activity?: string;
  } = {};
  const sessionId = stringField(payload, 'session_id');
  if (sessionId !== undefined) info.sessionId = sessionId;
  const transcriptPath = stringField(payload, 'transcript_path');
  if (transcriptPath !== undefined) info.transcriptPath = transcriptPath;
  const turnKey = stringField(payload, 'prompt_id');
  if (turnKey !== undefined) info.turnKey = turnKey;

  switch (event.kind) {
    case 'permission': {
      const tool = stringField(payload, 'tool_name');
      const argument = toolArgument(payload.tool_input);
      const needsInput: NeedsInput = { kind: 'permission' };
      info.needsInput = tool === undefined ? needsInput : { ...needsInput, tool, message: argument === undefined ? tool : `${tool}: ${argument}` };
      break;
    }
    case 'notify': {
      const needsInput = classifyNotification(payload);
      if (needsInput !== undefined) info.needsInput = needsInput;
      break;
    }
    case 'stop-failure': {
      const error = stringField(payload, 'last_assistant_message') ?? stringField(payload, 'error');
      info.error = error ?? 'Claude Code reported an API error';
      break;
    }
    case 'stop': {
      const last = payload.last_assistant_message;
      if (typeof last === 'string') info.lastMessage = last;
      break;
    }
    case 'tool': {
      const tool = stringField(payload, 'tool_name');
      if (tool !== undefined) info.activity = oneLine(describeToolCall(tool, payload.tool_input), 120);
      break;
    }
    default:
      break;
  }
  return info;
}
