/**
 * What a CLI's hooks say it waits for, as facts (the kit's `payload.needsInput`): the notification
 * types that ask for input, their message and a tool named in it; a permission request's tool. Pure.
 */
import type { HookEvent, ProviderV1EventInfo } from '../spec.js';
import { toolActivity } from './activity.js';
import { stringField } from './json.js';

type NeedsInput = NonNullable<ProviderV1EventInfo['needsInput']>;

/** Where a `notify` payload says what input is needed (Claude Code's `Notification`: `notification_type`, `message`). */
export interface NotificationFacts {
  /** The field holding the notification's type. */
  readonly type: string;
  /** Notification type → the kind of input it asks for; any other type is informational. */
  readonly kinds: Readonly<Record<string, NeedsInput['kind']>>;
  /** The field holding the CLI's message. */
  readonly message?: string;
  /** Per notification type, a pattern whose group 1 is the tool its message names. */
  readonly toolIn?: Readonly<Record<string, RegExp>>;
  /** A `permission` event: the fields of its tool and input, the message `tool: argument` ({@link toolActivity}'s `colon`). */
  readonly permission?: { readonly tool: string; readonly input: string; readonly fields: readonly string[] };
}

function permissionOf(facts: NotificationFacts, payload: Record<string, unknown>): NeedsInput | undefined {
  if (facts.permission === undefined) return undefined;
  const tool = stringField(payload, facts.permission.tool);
  if (tool === undefined) return { kind: 'permission' };
  return { kind: 'permission', tool, message: toolActivity(tool, payload[facts.permission.input], facts.permission.fields, 'colon') };
}

/** The payload fact `needsInput` of these facts (undefined for any event but `notify` and `permission`). */
export function notificationInput(facts: NotificationFacts): (event: HookEvent, payload: Record<string, unknown>) => NeedsInput | undefined {
  return (event, payload) => {
    if (event.kind === 'permission') return permissionOf(facts, payload);
    const type = stringField(payload, facts.type);
    const kind = event.kind === 'notify' && type !== undefined && Object.hasOwn(facts.kinds, type) ? facts.kinds[type] : undefined;
    if (kind === undefined || type === undefined) return undefined;
    const message = facts.message === undefined ? undefined : stringField(payload, facts.message);
    const tool = message ? facts.toolIn?.[type]?.exec(message)?.[1] : undefined;
    return { kind, ...(tool ? { tool } : {}), ...(message !== undefined ? { message } : {}) };
  };
}
