/**
 * A permission request from a hook payload, as facts (the kit's `payload.needsInput`): which event
 * means the CLI asks, the fields naming the tool and what it would do, and its message. Pure.
 */
import type { HookEvent, ProviderV1EventInfo } from '../spec.js';
import { stringField } from './json.js';
import { valueAt } from './records.js';

/** Where a CLI's hook payloads say it asks for a permission (dotted fields; the first non-empty one of a list wins). */
export interface PermissionFacts {
  /** A `notify` event asks only with this notification type (its field and value); a `permission` event always asks. */
  readonly notify?: { readonly field: string; readonly value: string };
  /** Fields naming the tool. */
  readonly tool: readonly string[];
  /** Fields naming what it would do (a command, a path; a list of strings is joined with `, `), appended to the message as `: <it>`. */
  readonly what?: readonly string[];
  /** The field holding the CLI's own message. */
  readonly message?: string;
  /** The message when the payload has none: `{tool}` becomes the tool's name, or `a tool`; `''` leaves what it would do alone. */
  readonly fallback: string;
}

/** A field's text: a non-empty string, or the strings of a list joined with `, `. */
function textAt(payload: Record<string, unknown>, field: string): string | undefined {
  const value = valueAt(payload, field.split('.'));
  if (!Array.isArray(value)) return stringField(payload, field);
  return value.filter((v): v is string => typeof v === 'string').join(', ') || undefined;
}

const first = (payload: Record<string, unknown>, fields: readonly string[]) => fields.map((f) => textAt(payload, f)).find((v) => v !== undefined);

/** The payload fact `needsInput` of these facts. */
export function permissionInput(facts: PermissionFacts): (event: HookEvent, payload: Record<string, unknown>) => ProviderV1EventInfo['needsInput'] {
  return (event, payload) => {
    const notified = event.kind === 'notify' && facts.notify !== undefined && stringField(payload, facts.notify.field) === facts.notify.value;
    if (event.kind !== 'permission' && !notified) return undefined;
    const tool = first(payload, facts.tool);
    const what = first(payload, facts.what ?? []);
    const own = facts.message === undefined ? undefined : stringField(payload, facts.message);
    const said = own ?? facts.fallback.replace('{tool}', tool ?? 'a tool');
    const message = said && what ? `${said}: ${what}` : said || what;
    return { kind: 'permission', ...(message ? { message } : {}), ...(tool ? { tool } : {}) };
  };
}
