/** What Claude Code hook payloads say (claude-code.md §3): the field map and the few readings it needs code for. */
import type { HookEvent, ProviderV1EventInfo } from '@umbel/provider';
import { backgroundTasks, namedQuota, notificationInput, type PayloadFacts, payloadAccountError, payloadActivity, stringField } from '@umbel/provider';
import * as facts from './facts.js';

/** What the field map cannot say (CLAUDE-FACTS.md "Hooks"): turns Claude Code continues or starts by itself, its background work, the plan usage. */
function refine(event: HookEvent, payload: Record<string, unknown>, info: ProviderV1EventInfo): ProviderV1EventInfo {
  if (event.kind === 'notify' && stringField(payload, 'notification_type') === facts.CLAUDE_OWN_TURNS.autoResume) return { ...info, autoContinue: true };
  if (event.kind === 'prompt' && stringField(payload, 'prompt')?.startsWith(facts.CLAUDE_OWN_TURNS.taskNotification)) return { ...info, selfStarted: true };
  const background = event.kind === 'stop' ? backgroundTasks(payload.background_tasks, facts.CLAUDE_BACKGROUND_TASK) : undefined;
  if (background) return { ...info, background };
  if (event.kind !== facts.CLAUDE_STATUSLINE_KIND) return info;
  const quota = namedQuota(payload.rate_limits, facts.CLAUDE_QUOTA_WINDOWS, 'used_percentage');
  return quota ? { quota } : {};
}

/** The payload field map of Claude Code's hooks. */
export const CLAUDE_PAYLOAD: PayloadFacts = {
  sessionId: 'session_id',
  transcriptPath: 'transcript_path',
  turnKey: 'prompt_id',
  lastMessage: { stop: 'last_assistant_message' },
  error: { fields: ['last_assistant_message', 'error'], fallback: 'Claude Code reported an API error' },
  account: payloadAccountError('error', facts.CLAUDE_ERROR_KINDS),
  needsInput: notificationInput(facts.CLAUDE_NEEDS_INPUT),
  activity: payloadActivity({ tool: 'tool_name', input: 'tool_input', fields: facts.CLAUDE_TOOL_ARGUMENT, max: 120 }),
  refine,
};
