/**
 * The workflow file's zod schema, built from @umbel/core's schemas so a worker spec means exactly
 * what `umbel spawn` flags and the MCP `spawn` tool mean, and a step's guardrail fields mean what
 * `umbel wait` flags mean. One schema per concept; types are inferred, never written twice.
 */
import { isAbsolute, normalize, sep } from 'node:path';
import { DurationSchema, refineWaitOptions, SpawnOptionsSchema, WaitOptionsSchema } from '@umbel/core';
import * as z from 'zod';

/** Longest worker key, so that `<run-id>-<worker>` stays a valid worker name (63 chars). */
export const MAX_WORKER_KEY_LENGTH = 40;

/** A run id: `wf-` plus 6 base36 characters by default; any worker-name-like id up to 22 chars. */
export const RunIdSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,21}$/, 'a run id is 1-22 characters of a-z, 0-9 and -, starting with a letter or digit')
  .describe('Run id: names the run folder and prefixes the worker names');

/** Key of an entry under `workers:`; the worker runs as `<run-id>-<key>`. */
export const WorkerKeySchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'a worker key is lowercase letters, digits and -, starting with a letter or digit')
  .max(MAX_WORKER_KEY_LENGTH, `a worker key is at most ${MAX_WORKER_KEY_LENGTH} characters`);

/** Id of a step (used in `needs:` and `{{ steps.ID.… }}`). */
export const StepIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_][A-Za-z0-9_-]{0,62}$/, 'a step id is letters, digits, _ and -, starting with a letter, digit or _ (at most 63 characters)');

/** Key of an entry under a step's `outputs:` (used in `{{ steps.ID.outputs.KEY }}` and as a file name). */
export const OutputKeySchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]{0,62}$/, 'an output key is letters, digits, _ and -, starting with a letter or _');

/**
 * A worker: the spawn options of `umbel spawn` / MCP `spawn` (provider, model, env,
 * unattended, permissionMode, allowedTools, host, billing, worktree, sandbox), except that `cwd` is relative to the workflow
 * file's directory (default: that directory) and the name comes from the run. On a `host`, `cwd`
 * is a path there, as written (default: the host's home directory).
 */
export const WorkflowWorkerSchema = SpawnOptionsSchema.pick({
  provider: true,
  cwd: true,
  model: true,
  env: true,
  unattended: true,
  permissionMode: true,
  allowedTools: true,
  host: true,
  billing: true,
  worktree: true,
  sandbox: true,
})
  .extend({
    cwd: z
      .string()
      .min(1)
      .optional()
      .describe("Working directory, relative to the workflow file's directory (default: that directory); on a host, a path there"),
  })
  .strict();
export type WorkflowWorker = z.output<typeof WorkflowWorkerSchema>;

/** Whether a relative path stays inside the directory it is relative to (no absolute path, no `..` out of it). */
export function staysInside(path: string): boolean {
  if (isAbsolute(path)) return false;
  const normal = normalize(path);
  return normal !== '..' && !normal.startsWith(`..${sep}`);
}

/**
 * One output of a step: `answer` (the accepted answer) or `file:<path relative to the worker cwd>`.
 * The path may not leave the cwd; at run time the file's real path (symlinks resolved) must be
 * inside the cwd's real path too.
 */
export const OutputSourceSchema = z
  .string()
  .superRefine((value, ctx) => {
    if (value === 'answer') return;
    const path = value.startsWith('file:') ? value.slice('file:'.length) : '';
    if (path === '') ctx.addIssue({ code: 'custom', message: 'an output is "answer" or "file:<path relative to the worker cwd>"' });
    else if (!staysInside(path)) {
      ctx.addIssue({ code: 'custom', message: `a file output is a path inside the worker's cwd (no absolute path, no '..' out of it): '${path}'` });
    }
  })
  .describe('"answer", or "file:<path relative to the worker cwd>"');

/**
 * A duration as the YAML face takes it: a string with its unit (`500ms`, `30s`, `5m`, `1.5h`),
 * then core's DurationSchema. A bare number is refused with a hint, because in YAML `timeout: 10`
 * looks like seconds while the library reads numbers as milliseconds.
 */
const DurationTextSchema = z
  .string({
    error: (issue) =>
      typeof issue.input === 'number' && Number.isFinite(issue.input) && issue.input >= 0
        ? `${issue.input} has no unit; write ${issue.input}s or ${issue.input}ms`
        : 'a duration is a string such as 500ms, 30s, 5m or 1.5h',
  })
  .transform((text, ctx) => {
    const parsed = DurationSchema.safeParse(text);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message });
    return z.NEVER;
  });

const wait = WaitOptionsSchema.shape;
/** A duration field of a step: core's field (its default and description), written as text. */
function durationField(field: typeof wait.timeout | typeof wait.checkTimeout) {
  return DurationTextSchema.default(field.parse(undefined)).describe(field.description ?? '');
}

/**
 * A step: a prompt sent to a worker, then `wait` with the step's wait fields (timeout,
 * idleTimeout, check, schema, retries, checkTimeout, until, file, pattern — the `umbel wait`
 * options, with its rules). `schema` is relative to the workflow file's directory; `check` runs in
 * the worker's cwd, and so is `file` relative to it; durations are strings with a unit.
 */
export const WorkflowStepSchema = WaitOptionsSchema.pick({
  timeout: true,
  idleTimeout: true,
  check: true,
  schema: true,
  retries: true,
  checkTimeout: true,
  until: true,
  file: true,
  pattern: true,
})
  .extend({
    id: StepIdSchema,
    worker: z.string().min(1).describe('Key of an entry under workers:'),
    prompt: z
      .string()
      .min(1, 'the prompt is empty')
      .describe('Prompt text; may use {{ steps.ID.output }}, {{ steps.ID.outputs.KEY }}, {{ vars.K }}, {{ env.X }}'),
    needs: z.array(StepIdSchema).default([]).describe('Steps that must be accepted before this one starts'),
    outputs: z.record(OutputKeySchema, OutputSourceSchema).default({}).describe('Named outputs: KEY → "answer" | "file:<path>"'),
    schema: z.string().min(1).optional().describe("Guardrail: JSON Schema file, relative to the workflow file's directory"),
    timeout: durationField(wait.timeout),
    idleTimeout: DurationTextSchema.optional().describe(wait.idleTimeout.description ?? ''),
    checkTimeout: durationField(wait.checkTimeout),
  })
  .strict()
  .superRefine(refineWaitOptions);
export type WorkflowStep = z.output<typeof WorkflowStepSchema>;

/** A workflow file. */
export const WorkflowSchema = z
  .object({
    name: z.string().min(1).optional().describe('Human name of the workflow'),
    description: z.string().optional(),
    workers: z.record(WorkerKeySchema, WorkflowWorkerSchema).refine((workers) => Object.keys(workers).length > 0, { message: 'declare at least one worker' }),
    steps: z.array(WorkflowStepSchema).min(1, 'declare at least one step'),
  })
  .strict();
/** A validated workflow (defaults applied, durations in milliseconds). */
export type WorkflowSpec = z.output<typeof WorkflowSchema>;
/** A workflow as written. */
export type WorkflowInput = z.input<typeof WorkflowSchema>;
