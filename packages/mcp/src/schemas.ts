/**
 * Tool input and output schemas of the MCP face. Inputs are @umbel/core's option schemas, with
 * two face-specific additions: a worker reference (`{name}`, for status and logs) and the wait
 * tool's shorter default timeout. Outputs are the engine's result types; core has zod schemas
 * for WorkerStatus and Outcome, the rest are written here and checked against core's interfaces
 * at compile time.
 */
import {
  DurationSchema,
  type KillResult,
  type LogEntry,
  OutcomeSchema,
  type PruneResult,
  type ReadResult,
  type SendResult,
  type CaptureResult,
  WaitOptionsSchema,
  WorkerNameSchema,
  WorkerStatusSchema,
} from '@umbel/core';
import { z } from 'zod';

/**
 * Default `timeout` of the `umbel_wait` tool: 50 s, below the 60 s request timeout of the MCP
 * SDK's client and of Codex (`tool_timeout_sec`), so a wait returns `timeout` before a host gives
 * up on the call. The caller loops on `timeout`.
 */
export const MCP_WAIT_TIMEOUT_MS = 50_000;

/** Input of tools that take only a worker: status, logs. */
export const WorkerRefSchema = z.object({ name: WorkerNameSchema.describe('Worker name') }).strict();

/** Input of tools that take nothing: list. */
export const EmptyInputSchema = z.object({}).strict();

/** Input of `umbel_wait`: core's WaitOptionsSchema with an MCP-sized default timeout. */
export function mcpWaitOptionsSchema(defaultTimeoutMs: number = MCP_WAIT_TIMEOUT_MS) {
  return WaitOptionsSchema.extend({
    timeout: DurationSchema.default(defaultTimeoutMs).describe(
      `Return outcome timeout after this long (default ${Math.round(defaultTimeoutMs / 1000)}s, below common MCP client request timeouts); on timeout the worker keeps going, so call umbel_wait again. A longer value only helps if your client's request timeout is longer.`,
    ),
  });
}

/** What to do after each outcome (a one-line hint in the wait result). */
export const NEXT_STEP = {
  completed: 'Done: result holds the answer (umbel_read returns it again). Send the next prompt or kill the worker.',
  'needs-input': 'The worker is blocked on a prompt: inspect it with umbel_capture, answer with umbel_keys (then umbel_wait again), or umbel_kill it.',
  'provider-error': 'The model API failed for this turn; the worker is alive. Retry with umbel_send, or check umbel_logs.',
  idle: 'The turn stopped without an answer; inspect with umbel_capture, then umbel_send or umbel_keys.',
  timeout: 'Still working: call umbel_wait again (same worker) to keep waiting.',
  dead: 'The CLI process ended: check umbel_logs and umbel_capture for the cause, then spawn a new worker.',
  aborted: 'The wait was cancelled; the worker keeps running. Call umbel_wait again when ready.',
  'guardrail-halted': 'The check kept rejecting the answer; see attempts. Fix the task, send again, or kill the worker.',
} as const satisfies Record<z.infer<typeof OutcomeSchema>['reason'], string>;

/** Output of `umbel_wait`: the Outcome plus a next-step hint. */
export const WaitOutputSchema = OutcomeSchema.extend({
  next: z.string().describe('What to do next, for this outcome'),
});

/** Output of `umbel_send`. */
export const SendOutputSchema = z.object({
  worker: WorkerNameSchema,
  turn: z.number().int().positive().describe('The turn this prompt opened; pass it to umbel_wait/umbel_read to be explicit'),
});

/** Output of `umbel_keys`. */
export const KeysOutputSchema = z.object({ worker: WorkerNameSchema, keys: z.array(z.string()) });

/** Output of `umbel_read`. */
export const ReadOutputSchema = z.object({
  worker: WorkerNameSchema,
  provider: z.string(),
  turn: z.number().int().nonnegative(),
  result: z.string().describe('The final answer of the turn, from the transcript'),
  complete: z.boolean().describe('False when the transcript does not (yet) show the turn as ended'),
  sessionId: z.string().optional(),
  transcriptPath: z.string().optional(),
});

/** Output of `umbel_kill`. */
export const KillOutputSchema = z.object({
  worker: WorkerNameSchema,
  killed: z.boolean().describe('A live session was ended'),
  purged: z.boolean().describe('The state was removed too'),
});

/** Output of `umbel_prune`. */
export const PruneOutputSchema = z.object({ removed: z.array(z.string()), kept: z.number().int().nonnegative() });

/** Output of `umbel_capture`. */
export const CaptureOutputSchema = z.object({
  worker: WorkerNameSchema,
  text: z.string().describe('The screen text'),
  live: z.boolean().describe('False when this is the last screen saved at death/kill'),
});

/** Output of `umbel_logs`. */
export const LogsOutputSchema = z.object({
  worker: WorkerNameSchema,
  entries: z.array(z.object({ at: z.string(), kind: z.string(), summary: z.string() })),
});

/** Output of `umbel_list`. */
export const ListOutputSchema = z.object({ workers: z.array(WorkerStatusSchema) });

// --- compile-time checks: the schemas above describe core's result types exactly ---

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
type _Mutable<T> = { -readonly [K in keyof T]: T[K] extends readonly (infer U)[] ? U[] : T[K] };
type _SchemaChecks = [
  Assert<Same<z.infer<typeof SendOutputSchema>, _Mutable<SendResult>>>,
  Assert<Same<z.infer<typeof ReadOutputSchema>, _Mutable<ReadResult>>>,
  Assert<Same<z.infer<typeof KillOutputSchema>, _Mutable<KillResult>>>,
  Assert<Same<z.infer<typeof PruneOutputSchema>, _Mutable<PruneResult>>>,
  Assert<Same<z.infer<typeof CaptureOutputSchema>, _Mutable<CaptureResult>>>,
  Assert<Same<z.infer<typeof LogsOutputSchema>['entries'][number], _Mutable<LogEntry>>>,
];
