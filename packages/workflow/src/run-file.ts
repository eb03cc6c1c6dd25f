/**
 * `umbel run FILE [--var K=V]… [--resume RUN_ID]` as a typed call: parse the arguments, load and
 * run the file (or resume a run), return the run's summary. Printing is the CLI's (@umbel/cli).
 */
import { type Umbel, UsageError } from '@umbel/core';
import { loadWorkflow } from './preflight.js';
import type { WorkflowEvent } from './progress.js';
import { resumeWorkflow, runWorkflow, type WorkflowSummary } from './run.js';
import { readWorkflowFile } from './source.js';

/** Options of `runWorkflowFile`. */
export interface RunWorkflowFileOptions {
  readonly engine: Umbel;
  /** The workflow file (required unless `resume`). */
  readonly file?: string;
  /** Run id to resume instead of starting a new run. */
  readonly resume?: string;
  /** `--var K=V` arguments, or a ready map. */
  readonly vars?: readonly string[] | Readonly<Record<string, string>>;
  /** Source of `{{ env.X }}` (the CLI passes `process.env`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly keepWorkers?: boolean;
  /** Progress of the run's steps (the CLI prints them on a terminal). */
  readonly onEvent?: (event: WorkflowEvent) => void;
  readonly signal?: AbortSignal;
  /** Run id for a new run (tests; default random). */
  readonly runId?: string;
  /** `--max-workers`: this run's fleet limit. */
  readonly maxWorkers?: number;
}

/** Parse `--var K=V` arguments (later ones win). @throws UsageError on a malformed one. */
export function parseVarArgs(args: readonly string[] | Readonly<Record<string, string>> | undefined): Record<string, string> {
  if (args === undefined) return {};
  if (!Array.isArray(args)) return { ...(args as Readonly<Record<string, string>>) };
  const out: Record<string, string> = {};
  for (const arg of args as readonly string[]) {
    const eq = arg.indexOf('=');
    const key = eq === -1 ? arg : arg.slice(0, eq);
    if (eq === -1 || !/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key)) {
      throw new UsageError(`--var '${arg}': use --var NAME=VALUE (NAME: letters, digits, _ and -)`);
    }
    out[key] = arg.slice(eq + 1);
  }
  return out;
}

/**
 * Parse the arguments, then run the file (or resume the run). The summary tells a failed or
 * interrupted run (`ok: false`, the failing step's outcome exit code). @throws UsageError (or
 * WorkflowInvalidError, every problem of the file at once) for an invalid file or arguments,
 * before anything is spawned.
 */
export async function runWorkflowFile(options: RunWorkflowFileOptions): Promise<WorkflowSummary> {
  const { engine } = options;
  const vars = parseVarArgs(options.vars);
  const common = {
    vars,
    env: options.env,
    keepWorkers: options.keepWorkers ?? false,
    ...(options.maxWorkers !== undefined ? { maxWorkers: options.maxWorkers } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  if (options.resume !== undefined) {
    if (options.file !== undefined) throw new UsageError('give either a workflow file or --resume RUN_ID, not both');
    return await resumeWorkflow(engine, options.resume, common);
  }
  if (options.file === undefined) throw new UsageError('umbel run needs a workflow file (or --resume RUN_ID)');
  const text = await readWorkflowFile(options.file);
  // The file, its vars and env, and the engine and disk checks: every problem in one error.
  const workflow = await loadWorkflow(engine, text, { file: options.file, vars, env: options.env });
  return await runWorkflow(engine, workflow, { ...common, ...(options.runId !== undefined ? { runId: options.runId } : {}) });
}
