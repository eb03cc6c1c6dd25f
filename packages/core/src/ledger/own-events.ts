/**
 * umbel's own events, one zod schema each, so an event's kind is a real union and no code casts a
 * payload. They sit in `events/` beside the CLI's hook events (whose payloads only their provider
 * reads) and are written atomically, like every event file: `<ns>-<pid>-<kind>.json`.
 *
 * - `sent`: a prompt was delivered; it opens turn `turn`.
 * - `send-failed`: that prompt never got in (refused, never confirmed); the turn is closed as not
 *   submitted, so later hook events are never credited to it.
 * - `ready`: spawn saw the ready prompt (until then the worker is `starting`), and how it bills.
 * - `keys`: keys were pressed (a pending prompt counts as answered).
 * - `ended`: a wait saw a turn end in the transcript alone (no hook fires for it).
 * - `dead`: death evidence saved by a wait or a kill (the last screen, how it ended).
 * - `exit`: the launch wrapper recorded how the CLI process ended.
 * - `quota`: a wait read plan usage in turn `turn`'s transcript (Codex's `token_count.rate_limits`);
 *   the ledger's newest reading, this or a hook's (Claude's statusLine), is the worker's quota.
 * - `snapshot`: the git tree of the worker's cwd when turn `turn` was sent (before its Enter), or
 *   why there is none; `diff` compares against it. Not written outside a git work tree.
 *
 * A `sent` with `command: true` is a CLI command sent on purpose (`send --command`); when it starts
 * no model turn, a `send-failed` with reason `command` closes its turn.
 */
import { join } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '@umbel/provider';
import { nowNs } from '../engine/clock.js';

const Turn = z.number().int().positive();

export const SentEventSchema = z.object({ turn: Turn, prompt: z.string(), command: z.boolean().optional() });
export const SendFailedEventSchema = z.object({
  turn: Turn,
  reason: z.enum(['not-submitted', 'delivery-failed', 'command']),
  message: z.string().optional(),
});
export const ReadyEventSchema = z.object({
  at: z.string().optional(),
  /** How the worker is billed, as its ready screen, env names and launch showed it. */
  billing: z.enum(['subscription', 'api', 'unknown']).optional(),
  billingEvidence: z.string().optional(),
  /** The endpoint's base URL, when a variable set one (credentials removed). */
  endpoint: z.string().optional(),
});
export const KeysEventSchema = z.object({ keys: z.array(z.string()) });
export const EndedEventSchema = z.object({ turn: Turn, reason: z.string(), message: z.string().optional() });
/**
 * `umbel revive` started the worker's CLI again, resuming conversation `sessionId`: the boundary
 * between the dead process and the new one (death, ready and session records before it are the old life's).
 */
export const RevivedEventSchema = z.object({ sessionId: z.string(), at: z.string().optional() });
export const DeadEventSchema = z.object({
  by: z.string().optional(),
  at: z.string().optional(),
  alive: z.boolean().optional(),
  status: z.number().int().optional(),
  signal: z.string().optional(),
  paneTail: z.string().optional(),
});
export const ExitEventSchema = z.object({ status: z.number().int().optional(), signal: z.string().optional() });
export const SnapshotEventSchema = z.object({
  turn: Turn,
  tree: z
    .string()
    .regex(/^[0-9a-f]{40,64}$/)
    .optional(),
  error: z.string().optional(),
  ms: z.number().nonnegative().optional(),
});

const QuotaWindowEvent = z.object({
  usedPercent: z.number().finite().min(0),
  /** Epoch seconds, as the provider read it. */
  resetsAt: z.number().finite().optional(),
});
export const QuotaEventSchema = z
  .object({ turn: Turn, fiveHour: QuotaWindowEvent.optional(), sevenDay: QuotaWindowEvent.optional() })
  .refine((q) => q.fiveHour !== undefined || q.sevenDay !== undefined, { message: 'names no window' });

/** The schema of each own kind. */
export const OWN_EVENT_SCHEMAS = {
  sent: SentEventSchema,
  'send-failed': SendFailedEventSchema,
  ready: ReadyEventSchema,
  keys: KeysEventSchema,
  ended: EndedEventSchema,
  dead: DeadEventSchema,
  exit: ExitEventSchema,
  snapshot: SnapshotEventSchema,
  quota: QuotaEventSchema,
  revived: RevivedEventSchema,
} as const;

/** One of umbel's own event kinds. */
export type OwnKind = keyof typeof OWN_EVENT_SCHEMAS;
/** An own event: its kind with its typed payload. */
export type OwnEvent = { [K in OwnKind]: { readonly kind: K; readonly data: z.infer<(typeof OWN_EVENT_SCHEMAS)[K]> } }[OwnKind];

/** True for umbel's own kinds (everything else in `events/` is a hook event). */
export function isOwnKind(kind: string): kind is OwnKind {
  return Object.hasOwn(OWN_EVENT_SCHEMAS, kind);
}

/** Validate an own event's payload; the issue text when it does not match. */
export function parseOwnEvent(kind: OwnKind, payload: unknown): { event: OwnEvent } | { problem: string } {
  const parsed = OWN_EVENT_SCHEMAS[kind].safeParse(payload);
  if (parsed.success) return { event: { kind, data: parsed.data } as OwnEvent };
  const issue = parsed.error.issues[0];
  return { problem: `not a valid '${kind}' event (${issue?.path.join('.') || 'payload'}: ${issue?.message ?? 'invalid'})` };
}

/** Write an own event atomically; returns its timestamp. */
export async function writeOwnEvent<K extends OwnKind>(eventsDir: string, kind: K, data: z.input<(typeof OWN_EVENT_SCHEMAS)[K]>): Promise<bigint> {
  const at = nowNs();
  await writeFileAtomic(join(eventsDir, `${at}-${process.pid}-${kind}.json`), `${JSON.stringify(data)}\n`);
  return at;
}
