/**
 * A permission request as data: the payload fields that name the tool a CLI asks to use and what
 * it would do, read into the `needsInput` of a `permission` hook (PayloadFacts' `needsInput`). Pure.
 */
import type { HookEvent, ProviderV1EventInfo } from '../spec.js';
import { stringField } from './json.js';
import { valueAt } from './records.js';

/** Where a `permission` payload names the tool and what it would do (dotted keys reach into objects). */
export interface PermissionFacts {
  /** The field naming the tool. */
  readonly tool: string;
  /** Fields tried in order for what the tool would do, the first non-empty wins; a list of strings is joined with `, `. */
  readonly what: readonly string[];
  /** Who asks (`Copilot`): the message is then `<asks> asks to use <tool>: <what>`; without it, `<what>` alone (none when empty). */
  readonly asks?: string;
}

/** A field's text: a non-empty string, or the strings of a list joined with `, `. */
function textAt(payload: Record<string, unknown>, field: string): string | undefined {
  const value = valueAt(payload, field.split('.'));
  if (!Array.isArray(value)) return stringField(payload, field);
  return value.filter((v): v is string => typeof v === 'string').join(', ') || undefined;
}

/** The payload fact `needsInput` of these fields: a `permission` event's request; undefined for other kinds. */
export function permissionAsk(facts: PermissionFacts): (event: HookEvent, payload: Record<string, unknown>) => ProviderV1EventInfo['needsInput'] {
  return (event, payload) => {
    if (event.kind !== 'permission') return undefined;
    const tool = stringField(payload, facts.tool);
    const what = facts.what.map((field) => textAt(payload, field)).find((text) => text !== undefined);
    const message = facts.asks === undefined ? what : `${facts.asks} asks to use ${tool ?? 'a tool'}${what ? `: ${what}` : ''}`;
    return { kind: 'permission', ...(message ? { message } : {}), ...(tool ? { tool } : {}) };
  };
}
