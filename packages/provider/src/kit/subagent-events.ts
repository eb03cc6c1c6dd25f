/**
 * A subagent's hook events, fired into the worker's sink by a CLI that runs subagents in sessions
 * of their own: they name no session or transcript of the worker's (else the worker's would move
 * to the subagent's), and the subagent's prompt is one umbel never sent (self-started), so its
 * stop, keyed like that prompt, ends no turn of the worker's. Pure.
 */
import type { HookEvent, ProviderV1EventInfo } from '../spec.js';
import { stringField } from './json.js';

/** How a subagent's events are told apart. */
export interface SubagentFacts {
  /** The payload field set (non-empty) on a subagent's events only (dotted for a nested one). */
  readonly field: string;
  /** Its prompt's and stop's turn key from that field's value; default the key the payload facts read. */
  readonly turnKey?: (value: string) => string;
}

/** The payload fact `refine` of these facts: a subagent's event info without the worker's session and transcript. */
export function subagentEvents(facts: SubagentFacts): (event: HookEvent, payload: Record<string, unknown>, info: ProviderV1EventInfo) => ProviderV1EventInfo {
  return (event, payload, info) => {
    const value = stringField(payload, facts.field);
    if (!value) return info;
    const { sessionId: _s, transcriptPath: _t, ...own } = info;
    const keyed = facts.turnKey && (event.kind === 'prompt' || event.kind === 'stop') ? { ...own, turnKey: facts.turnKey(value) } : own;
    return event.kind === 'prompt' ? { ...keyed, selfStarted: true } : keyed;
  };
}
