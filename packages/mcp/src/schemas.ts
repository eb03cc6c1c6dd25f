/**
 * Tool input and output schemas of the MCP face. Inputs are @umbel/core's option schemas, with
 * two face-specific additions: a worker reference (`{name}`, for status and logs) and the wait
 * tool's shorter default timeout. Outputs are core's result schemas (one schema per concept).
 */
import {
  ActionsResultSchema,
  CaptureResultSchema,
  DiffResultSchema,
  DurationSchema,
  KeysResultSchema,
  KillResultSchema,
  LogEntrySchema,
  OutcomeSchema,
  PruneResultSchema,
  ReadResultSchema,
  SendResultSchema,
  VERBS,
  WorkerNameSchema,
  WorkerRefSchema,
  WorkerStatusSchema,
} from '@umbel/core';
import * as z from 'zod';
import { HELP_TOPICS } from './help.js';

/**
 * Default `timeout` of the `umbel_wait` tool: 50 s, below the 60 s request timeout of the MCP
 * SDK's client and of Codex (`tool_timeout_sec`), so a wait returns `timeout` before a host gives
 * up on the call. The caller loops on `timeout`.
 */
export const MCP_WAIT_TIMEOUT_MS = 50_000;

/** Input of tools that take only a worker: status, logs (core's schema). */
export { WorkerRefSchema };

/** Input of tools that take nothing: list. */
export const EmptyInputSchema = z.object({}).strict();

/**
 * Input of `umbel_wait`: core's WaitOptionsSchema with an MCP-sized default timeout (it bounds the
 * whole call, guardrail retries included) and `full` (the answer is shortened otherwise).
 */
export function mcpWaitOptionsSchema(defaultTimeoutMs: number = MCP_WAIT_TIMEOUT_MS) {
  return VERBS.wait.options.extend({
    timeout: DurationSchema.default(defaultTimeoutMs).describe(
      `Return outcome timeout after this long (default ${Math.round(defaultTimeoutMs / 1000)}s, below common MCP client request timeouts), guardrail retries included; on timeout the worker keeps going, so call umbel_wait again as next says. A longer value only helps if your client's request timeout is longer.`,
    ),
    full: z.boolean().optional().describe('The whole answer, never shortened (answers over ~2000 tokens come back as head and tail otherwise)'),
  });
}

/** What to do after each outcome (a one-line hint in the wait result). */
export const NEXT_STEP = {
  completed: 'Done: result holds the answer (umbel_read returns it again). Send the next prompt or kill the worker.',
  file: 'The file appeared (match holds its path); the turn may still be running: umbel_wait again for its answer, or umbel_actions / umbel_diff to see what it did.',
  pattern: 'The screen matched (match holds the line); the turn may still be running: umbel_wait again for its answer, or umbel_capture to look.',
  'needs-input': 'The worker is blocked on a prompt: inspect it with umbel_capture, answer with umbel_keys (then umbel_wait again), or umbel_kill it.',
  'provider-error': 'The model API failed for this turn; the worker is alive. Retry with umbel_send, or check umbel_logs.',
  'rate-limited':
    'The account hit a rate or usage limit (HTTP 429) and the CLI recorded no reset time (with one, next says when); the worker is alive. Wait (minutes for a rate limit, hours for a plan limit), then retry with umbel_send.',
  'auth-failed':
    "The account's login was refused (401/403: expired, revoked or invalid); the worker is alive but every turn will fail. The user must sign in again (the CLI's own login, or a valid key), then spawn a new worker; do not retry as is.",
  idle: 'The turn stopped without an answer; inspect with umbel_capture, then umbel_send or umbel_keys.',
  timeout: 'Still working: call umbel_wait again (same worker) to keep waiting.',
  dead: 'The CLI process ended: check umbel_logs and umbel_capture for the cause, then spawn a new worker.',
  aborted: 'The wait was cancelled; the worker keeps running. Call umbel_wait again when ready.',
  'guardrail-halted': 'The check kept rejecting the answer; see attempts. Fix the task, send again, or kill the worker.',
  'host-unreachable':
    "The worker's host stopped answering during the wait; the worker may still be running there. Call umbel_wait again (same worker and turn) once the host is back.",
  unknown: 'The turn ended without an answer anywhere (transcript or stop hook); see message, inspect with umbel_capture and umbel_logs, then send again.',
} as const satisfies Record<z.infer<typeof OutcomeSchema>['reason'], string>;

/** Output of `umbel_wait`: the Outcome plus a next-step hint. */
export const WaitOutputSchema = OutcomeSchema.extend({
  next: z.string().describe('What to do next, for this outcome'),
  elidedTokens: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('About this many tokens of result were left out (an answer over ~2000 tokens); umbel_read with full=true returns it whole'),
});

/** Input of `umbel_actions` (core's schema). */
export { ActionsOptionsSchema as ActionsInputSchema } from '@umbel/core';
/** Output of `umbel_actions`. */
export const ActionsOutputSchema = ActionsResultSchema;
/** Input of `umbel_diff` (core's schema). */
export { DiffOptionsSchema as DiffInputSchema } from '@umbel/core';
/** Output of `umbel_diff`. */
export const DiffOutputSchema = DiffResultSchema;

/** Output of `umbel_send`. */
export const SendOutputSchema = SendResultSchema;

/** Output of `umbel_keys`. */
export const KeysOutputSchema = KeysResultSchema;

/** Output of `umbel_read`. */
export const ReadOutputSchema = ReadResultSchema;

/** Output of `umbel_kill`. */
export const KillOutputSchema = KillResultSchema;

/** Output of `umbel_prune`. */
export const PruneOutputSchema = PruneResultSchema;

/** Output of `umbel_capture`. */
export const CaptureOutputSchema = CaptureResultSchema;

/** Output of `umbel_logs`. */
export const LogsOutputSchema = z.object({
  worker: WorkerNameSchema,
  entries: z.array(LogEntrySchema),
});

/** Output of `umbel_list`. */
export const ListOutputSchema = z.object({ workers: z.array(WorkerStatusSchema) });

/** Input of `umbel_help`. The topic is a plain string so an unknown one is answered (not found), not rejected. */
export const HelpInputSchema = z
  .object({
    topic: z
      .string()
      .optional()
      .describe(`Help topic: ${HELP_TOPICS.join(', ')}; omit it for the index of topics`),
  })
  .strict();

/** Output of `umbel_help`. */
export const HelpOutputSchema = z.object({
  topic: z.string().optional().describe('The topic asked for; absent for the index'),
  found: z.boolean().describe('False when the topic does not exist (text then lists the available ones)'),
  text: z.string().describe('The help, as markdown'),
  topics: z.array(z.enum(HELP_TOPICS)).describe('Every help topic'),
});
