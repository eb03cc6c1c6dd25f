/**
 * Subagents in codex's rollout (BACKGROUND-FACTS.md §9, recorded on 0.171.0): `spawn_agent`
 * (multi_agent) records an `item_completed` CollabAgentToolCall naming the new agent's thread
 * (`receiver_thread_ids`, `agents_states` {<id>: "pending_init"}) and the turn goes on without
 * waiting for it; the agent's final status comes later as a user message
 * `<subagent_notification>{"agent_path": <id>, "status": {"completed": …}}</subagent_notification>`
 * (after the turn's `task_complete` when the turn ended first), or in a later CollabAgentToolCall's
 * `agents_states` (a `wait`). Pure.
 */
import type { ProviderV1BackgroundTask } from '@umbel/provider';
import { asRecord, blockText, parseJson } from '@umbel/provider';

/** A rollout record as far as this reader needs it. */
type Rec = { readonly type: string; readonly payload: Record<string, unknown> };

const NOTIFICATION = /^<subagent_notification>\s*([\s\S]*?)\s*<\/subagent_notification>/;
/** The states of an agent that still works (codex's AgentStatus); any other (`{completed}`, `{errored}`, `shutdown`, …) is final. */
const WORKING = new Set(['pending_init', 'running']);

/** The agents whose state a record reports: `[id, still working]`. */
function statesOf({ type, payload: p }: Rec): [string, boolean][] {
  const item = type === 'event_msg' && p.type === 'item_completed' ? asRecord(p.item) : undefined;
  if (item?.type === 'CollabAgentToolCall') {
    const states = Object.entries(asRecord(item.agents_states) ?? {}).map(([id, s]): [string, boolean] => [id, WORKING.has(String(s))]);
    const spawned = item.tool === 'spawn_agent' && Array.isArray(item.receiver_thread_ids) ? item.receiver_thread_ids : [];
    return [...spawned.filter((id): id is string => typeof id === 'string').map((id): [string, boolean] => [id, true]), ...states];
  }
  if (type !== 'response_item' || p.type !== 'message' || p.role !== 'user') return [];
  const body = NOTIFICATION.exec(blockText(p.content, ['input_text']))?.[1];
  const note = body === undefined ? undefined : asRecord(parseJson(body));
  return typeof note?.agent_path === 'string' ? [[note.agent_path, WORKING.has(String(note.status))]] : [];
}

/** The agents a turn spawned that still worked at its end, from its records (those after its `task_complete` left out). */
export function runningSubagents(records: readonly Rec[]): ProviderV1BackgroundTask[] {
  const running = new Set<string>();
  for (const r of records) {
    if (r.type === 'event_msg' && (r.payload.type === 'task_complete' || r.payload.type === 'turn_aborted')) break;
    for (const [id, working] of statesOf(r)) {
      if (working) running.add(id);
      else running.delete(id);
    }
  }
  return [...running].map((id) => ({ kind: 'subagent', id, running: true }));
}
