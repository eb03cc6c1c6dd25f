/**
 * Background terminals in codex's rollout (BACKGROUND-FACTS.md §3, verified on 0.171.0): an
 * `exec_command` (or `write_stdin`) output `Process running with session ID <id>` is a command that
 * outlives its call (unified exec); it ended once an output of a `write_stdin` to that session says
 * `Process exited with code N`, or codex recorded its `item_completed` CommandExecution
 * (`process_id`), which it appends when the process exits — after the turn's `task_complete` when
 * the turn ended first. Pure.
 */
import type { ProviderV1BackgroundTask } from '@umbel/provider';
import { asRecord, parseJson } from '@umbel/provider';

/** A rollout record as far as this reader needs it. */
type Rec = { readonly type: string; readonly payload: Record<string, unknown> };

const RUNNING = /^Process running with session ID (\d+)$/m;
const EXITED = /^Process exited with code -?\d+$/m;

/** The session a `write_stdin` call writes to. */
function stdinSession(p: Record<string, unknown>): string | undefined {
  if (p.type !== 'function_call' || p.name !== 'write_stdin' || typeof p.arguments !== 'string') return undefined;
  const id = asRecord(parseJson(p.arguments))?.session_id;
  return typeof id === 'number' || typeof id === 'string' ? String(id) : undefined;
}

/** The terminals still running at the end of a turn, from its records (those after its `task_complete` left out). */
export function runningTerminals(records: readonly Rec[]): ProviderV1BackgroundTask[] {
  const running = new Set<string>();
  const writes = new Map<unknown, string>();
  for (const { type, payload: p } of records) {
    if (type === 'event_msg' && (p.type === 'task_complete' || p.type === 'turn_aborted')) break;
    const session = type === 'response_item' ? stdinSession(p) : undefined;
    if (session) writes.set(p.call_id, session);
    const output = type === 'response_item' && p.type === 'function_call_output' && typeof p.output === 'string' ? p.output : '';
    const started = RUNNING.exec(output)?.[1];
    if (started) running.add(started);
    else if (EXITED.test(output) && writes.has(p.call_id)) running.delete(writes.get(p.call_id) as string);
    const item = type === 'event_msg' && p.type === 'item_completed' ? asRecord(p.item) : undefined;
    if (item?.type === 'CommandExecution' && item.process_id !== undefined) running.delete(String(item.process_id));
  }
  return [...running].map((id) => ({ kind: 'terminal', id, running: true }));
}
