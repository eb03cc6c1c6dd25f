/** What Claude Code hook payloads say (claude-code.md §3): the field map and the few readings it needs code for. */
import type { HookEvent, ProviderV1BackgroundTask, ProviderV1EventInfo, ProviderV1Quota } from '@umbel/provider';
import { asRecord, definedMembers, type PayloadFacts, payloadAccountError, payloadActivity, quotaWindow, stringField, toolArgument } from '@umbel/provider';
import { CLAUDE_ERROR_KINDS, CLAUDE_STATUSLINE_KIND, CLAUDE_TOOL_ARGUMENT, TASK_NOTIFICATION } from './facts.js';

type NeedsInput = NonNullable<ProviderV1EventInfo['needsInput']>;

/** Notification types that mean input is needed, and of which kind. */
const NOTIFICATION_KINDS: Readonly<Record<string, NeedsInput['kind']>> = {
  permission_prompt: 'permission',
  worker_permission_prompt: 'permission',
  idle_prompt: 'idle',
  elicitation_dialog: 'question',
};

function needsInput(event: HookEvent, payload: Record<string, unknown>): NeedsInput | undefined {
  if (event.kind === 'permission') {
    const tool = stringField(payload, 'tool_name');
    if (tool === undefined) return { kind: 'permission' };
    const argument = toolArgument(payload.tool_input, CLAUDE_TOOL_ARGUMENT);
    return { kind: 'permission', tool, message: argument === undefined ? tool : `${tool}: ${argument}` };
  }
  const type = stringField(payload, 'notification_type');
  const kind = type === undefined ? undefined : NOTIFICATION_KINDS[type];
  if (kind === undefined) return undefined;
  const message = stringField(payload, 'message');
  const tool = type === 'worker_permission_prompt' && message ? /needs permission for (\S+)/.exec(message)?.[1] : undefined;
  return { kind, ...(tool ? { tool } : {}), ...(message !== undefined ? { message } : {}) };
}

/** The statusLine input's `rate_limits` (ACCOUNT-FACTS §1.4): subscriptions only, absent otherwise. */
export function quotaOfStatusLine(payload: Record<string, unknown>): ProviderV1Quota | undefined {
  const limits = asRecord(payload.rate_limits);
  const quota = definedMembers({ fiveHour: quotaWindow(limits?.five_hour, 'used_percentage'), sevenDay: quotaWindow(limits?.seven_day, 'used_percentage') });
  return Object.keys(quota).length > 0 ? quota : undefined;
}

/** The Stop payload's `background_tasks` (REVIVE-FACTS.md §4): each task's type, id and whether it still runs; none when empty. */
export function backgroundOfStop(payload: Record<string, unknown>): ProviderV1BackgroundTask[] | undefined {
  const tasks = Array.isArray(payload.background_tasks) ? payload.background_tasks : [];
  const background = tasks.flatMap((value: unknown) => {
    const task = asRecord(value);
    const id = stringField(task, 'id');
    return id === undefined ? [] : [{ kind: stringField(task, 'type') ?? 'task', id, running: stringField(task, 'status') === 'running' }];
  });
  return background.length > 0 ? background : undefined;
}

/** The Notification type of Claude Code's automatic continue at a plan limit's reset. */
const AUTO_RESUME = 'quota_auto_resume_fired';

/** What the field map cannot say: turns Claude Code continues or starts by itself, its background work, the plan usage. */
function refine(event: HookEvent, payload: Record<string, unknown>, info: ProviderV1EventInfo): ProviderV1EventInfo {
  // At a plan limit's reset Claude Code continues the limited turn by itself: this notification,
  // then a UserPromptSubmit umbel never sent (ACCOUNT-FACTS §1.3).
  if (event.kind === 'notify' && stringField(payload, 'notification_type') === AUTO_RESUME) return { ...info, autoContinue: true };
  // When background work ends Claude Code starts a turn by itself (a <task-notification> prompt).
  if (event.kind === 'prompt' && stringField(payload, 'prompt')?.startsWith(TASK_NOTIFICATION)) return { ...info, selfStarted: true };
  // The background work still going when Claude Code stopped (a background shell, …).
  const background = event.kind === 'stop' ? backgroundOfStop(payload) : undefined;
  if (background) return { ...info, background };
  if (event.kind !== CLAUDE_STATUSLINE_KIND) return info;
  // The statusLine input is not a hook: only its plan usage counts (its prompt_id must not credit a turn).
  const quota = quotaOfStatusLine(payload);
  return quota ? { quota } : {};
}

/** The payload field map of Claude Code's hooks. */
export const CLAUDE_PAYLOAD: PayloadFacts = {
  sessionId: 'session_id',
  transcriptPath: 'transcript_path',
  turnKey: 'prompt_id',
  lastMessage: { stop: 'last_assistant_message' },
  error: { fields: ['last_assistant_message', 'error'], fallback: 'Claude Code reported an API error' },
  account: payloadAccountError('error', CLAUDE_ERROR_KINDS),
  needsInput,
  activity: payloadActivity({ tool: 'tool_name', input: 'tool_input', fields: CLAUDE_TOOL_ARGUMENT, max: 120 }),
  refine,
};
