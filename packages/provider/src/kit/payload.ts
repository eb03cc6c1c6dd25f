/** Compiling a payload field map into `doParseEvent`. Pure. */
import type { HookEvent, HookKind, ProviderV1EventInfo } from '../spec.js';
import type { FieldFact, PayloadFacts } from './facts.js';
import { asRecord, stringField } from './json.js';

type Info = { -readonly [K in keyof ProviderV1EventInfo]: ProviderV1EventInfo[K] };

function turnKeyField(facts: PayloadFacts, kind: string): string | undefined {
  const key = facts.turnKey;
  return typeof key === 'string' ? key : key?.[kind as HookKind];
}

/** A string field (empty included) unless it is one of the ignored values. */
function messageField(payload: Record<string, unknown>, fact: FieldFact): string | undefined {
  const { field, except = [] } = typeof fact === 'string' ? { field: fact } : fact;
  const value = payload[field];
  return typeof value === 'string' && !except.includes(value) ? value : undefined;
}

function perKind(facts: PayloadFacts, event: HookEvent, payload: Record<string, unknown>, info: Info): void {
  const last = facts.lastMessage?.[event.kind as HookKind];
  const message = last === undefined ? undefined : messageField(payload, last);
  if (message !== undefined) info.lastMessage = message;
  if (event.kind === 'stop-failure' && facts.error) {
    info.error = facts.error.fields.map((f) => stringField(payload, f)).find((v) => v !== undefined) ?? facts.error.fallback;
  }
  if (event.kind === 'stop-failure' && facts.account) {
    const account = facts.account(payload);
    if (account) info.account = account;
  }
  if ((event.kind === 'permission' || event.kind === 'notify') && facts.needsInput) {
    const needsInput = facts.needsInput(event, payload);
    if (needsInput) info.needsInput = needsInput;
  }
  if (event.kind === 'tool' && facts.activity) {
    const activity = facts.activity(payload, event);
    if (activity !== undefined) info.activity = activity;
  }
}

/** What one hook payload says, by the field map (`{}` for a payload that is not a JSON object). */
export function parseEvent(facts: PayloadFacts, event: HookEvent): ProviderV1EventInfo {
  const payload = asRecord(event.payload);
  if (!payload) return {};
  const info: Info = {};
  const sessionId = facts.sessionId === undefined ? undefined : stringField(payload, facts.sessionId);
  if (sessionId !== undefined) info.sessionId = sessionId;
  const transcriptPath = facts.transcriptPath === undefined ? undefined : stringField(payload, facts.transcriptPath);
  if (transcriptPath !== undefined) info.transcriptPath = transcriptPath;
  const keyField = turnKeyField(facts, event.kind);
  const turnKey = keyField === undefined ? undefined : stringField(payload, keyField);
  if (turnKey !== undefined) info.turnKey = turnKey;
  perKind(facts, event, payload, info);
  return facts.refine ? facts.refine(event, payload, info) : info;
}
