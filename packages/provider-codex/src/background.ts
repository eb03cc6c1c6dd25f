/** The background work a codex turn leaves running: terminals (BACKGROUND-FACTS.md §5) and subagents (§9), from its rollout records. Pure. */
import type { ProviderV1BackgroundTask } from '@umbel/provider';
import { asRecord, blockText, parseJson } from '@umbel/provider';

/** A rollout record as far as this reader needs it. */
type Rec = { readonly type: string; readonly payload: Record<string, unknown> };

const RUNNING = /^Process running with session ID (\d+)$/m;
const EXITED = /^Process exited with code -?\d+$/m;
const NOTIFICATION = /^<subagent_notification>\s*([\s\S]*?)\s*<\/subagent_notification>/;
/** The states of an agent that still works (codex's AgentStatus); any other (`{completed}`, `{errored}`, `shutdown`, …) is final. */
const WORKING = new Set(['pending_init', 'running']);

/** The session a `write_stdin` call writes to. */
function stdinSession(p: Record<string, unknown>): string | undefined {
  if (p.type !== 'function_call' || p.name !== 'write_stdin' || typeof p.arguments !== 'string') return undefined;
  const id = asRecord(parseJson(p.arguments))?.session_id;
  return typeof id === 'number' || typeof id === 'string' ? String(id) : undefined;
}

/** The agents whose state a record reports (`item`: its `item_completed` item): `[id, still working]`. */
function agentStates({ type, payload: p }: Rec, item: Record<string, unknown> | undefined): [string, boolean][] {
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

/** The terminals, then the agents, a turn started that still ran at its end (its records after `task_complete` left out). */
export function runningBackground(records: readonly Rec[]): ProviderV1BackgroundTask[] {
  const terminals = new Set<string>();
  const agents = new Set<string>();
  const writes = new Map<unknown, string>();
  for (const r of records) {
    const { type, payload: p } = r;
    if (type === 'event_msg' && (p.type === 'task_complete' || p.type === 'turn_aborted')) break;
    const session = type === 'response_item' ? stdinSession(p) : undefined;
    if (session) writes.set(p.call_id, session);
    const output = type === 'response_item' && p.type === 'function_call_output' && typeof p.output === 'string' ? p.output : '';
    const started = RUNNING.exec(output)?.[1];
    if (started) terminals.add(started);
    else if (EXITED.test(output) && writes.has(p.call_id)) terminals.delete(writes.get(p.call_id) as string);
    const item = type === 'event_msg' && p.type === 'item_completed' ? asRecord(p.item) : undefined;
    if (item?.type === 'CommandExecution' && item.process_id !== undefined) terminals.delete(String(item.process_id));
    for (const [id, working] of agentStates(r, item)) working ? agents.add(id) : agents.delete(id);
  }
  const tasks = (kind: string, ids: Set<string>) => [...ids].map((id) => ({ kind, id, running: true }));
  return [...tasks('terminal', terminals), ...tasks('subagent', agents)];
}
