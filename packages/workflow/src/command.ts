/**
 * `umbel run FILE [--var K=V]… [--json] [--keep-workers] [--resume RUN_ID]` — parse, run, print.
 * The CLI wires argv to `runWorkflowCommand` and exits with the code it returns.
 */
import { OUTCOME_EXIT_CODES, type Umbel, UmbelError, UsageError } from '@umbel/core';
import { exitCodeOfError } from './exit-code.js';
import { loadWorkflow } from './preflight.js';
import { renderProgressLine, type WorkflowEvent } from './progress.js';
import { resumeWorkflow, runWorkflow, type WorkflowSummary } from './run.js';
import { readWorkflowFile } from './source.js';

/** Something text can be written to (process.stdout, a test buffer). */
export interface TextSink {
  write(chunk: string): unknown;
}

/** Options of `runWorkflowCommand`. */
export interface RunWorkflowCommandOptions {
  readonly engine: Umbel;
  /** The workflow file (required unless `resume`). */
  readonly file?: string;
  /** Run id to resume instead of starting a new run. */
  readonly resume?: string;
  /** `--var K=V` arguments, or a ready map. */
  readonly vars?: readonly string[] | Readonly<Record<string, string>>;
  /** Source of `{{ env.X }}` (the CLI passes `process.env`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Print one summary object on stdout. */
  readonly json?: boolean;
  readonly keepWorkers?: boolean;
  /** Print progress lines on stderr (only without `json`). */
  readonly isTTY?: boolean;
  readonly stdout: TextSink;
  readonly stderr: TextSink;
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

/** The first line of a run that did not complete: interrupted (exit 130, the steps not accepted named), or failed. */
function headline(summary: WorkflowSummary): string {
  const f = summary.failedStep;
  if (summary.exitCode === OUTCOME_EXIT_CODES.aborted) {
    const notAccepted = summary.steps.filter((s) => s.status !== 'accepted').map((s) => s.id);
    return `umbel: workflow ${summary.runId} interrupted at step '${f?.id}' (worker ${f?.workerName})${f?.message ? ` — ${f.message}` : ''}; not accepted: ${notAccepted.join(', ')}`;
  }
  return `umbel: workflow ${summary.runId} failed at step '${f?.id}' (worker ${f?.workerName}): ${f?.reason}${f?.message ? ` — ${f.message}` : ''}`;
}

function summaryLines(summary: WorkflowSummary): string[] {
  if (summary.ok) return [];
  const f = summary.failedStep;
  const lines = [headline(summary)];
  const attempts = summary.outcome?.attempts;
  const last = attempts?.[attempts.length - 1];
  if (last?.checkOutput) lines.push(`  last check output:\n${last.checkOutput.replace(/^/gm, '    ')}`);
  if (last?.schemaErrors?.length) lines.push(`  schema errors: ${last.schemaErrors.join('; ')}`);
  if (summary.outcome?.paneTail) lines.push(`--- last screen of ${f?.workerName} ---\n${summary.outcome.paneTail}`);
  lines.push(`  run folder: ${summary.runDir}`, `  resume with: umbel run --resume ${summary.runId}`);
  return lines;
}

/**
 * Parse + run (or resume) + print. Returns the exit code: 0 when every step was accepted, the
 * failing step's outcome exit code otherwise (e.g. 127 guardrail-halted, 124 timeout), 2 for an
 * invalid file or arguments.
 */
export async function runWorkflowCommand(options: RunWorkflowCommandOptions): Promise<number> {
  const { engine, json = false, stdout, stderr } = options;
  const progress = !json && options.isTTY === true;
  const onEvent = progress ? (event: WorkflowEvent) => void stderr.write(`${renderProgressLine(event)}\n`) : undefined;
  try {
    const vars = parseVarArgs(options.vars);
    let summary: WorkflowSummary;
    if (options.resume !== undefined) {
      if (options.file !== undefined) throw new UsageError('give either a workflow file or --resume RUN_ID, not both');
      summary = await resumeWorkflow(engine, options.resume, {
        vars,
        env: options.env,
        keepWorkers: options.keepWorkers ?? false,
        ...(options.maxWorkers !== undefined ? { maxWorkers: options.maxWorkers } : {}),
        ...(onEvent ? { onEvent } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } else {
      if (options.file === undefined) throw new UsageError('umbel run needs a workflow file (or --resume RUN_ID)');
      const text = await readWorkflowFile(options.file);
      // The file, its vars and env, and the engine and disk checks: every problem in one error.
      const workflow = await loadWorkflow(engine, text, { file: options.file, vars, env: options.env });
      summary = await runWorkflow(engine, workflow, {
        vars,
        env: options.env,
        keepWorkers: options.keepWorkers ?? false,
        ...(options.runId !== undefined ? { runId: options.runId } : {}),
        ...(options.maxWorkers !== undefined ? { maxWorkers: options.maxWorkers } : {}),
        ...(onEvent ? { onEvent } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    }
    if (json) stdout.write(`${JSON.stringify(summary)}\n`);
    else if (summary.ok) stdout.write(`workflow completed: runId=${summary.runId} (${summary.runDir})\n`);
    else stderr.write(`${summaryLines(summary).join('\n')}\n`);
    return summary.exitCode;
  } catch (error) {
    const code = exitCodeOfError(error);
    if (json) {
      // A usage error carries every validation problem in `issues` (the message lists the first 100).
      const issues = error instanceof UsageError && error.issues.length > 0 ? { issues: error.issues } : {};
      const body = UmbelError.isInstance(error)
        ? { ...error.toJSON(), ...issues }
        : { code: 'UMBEL_INTERNAL', message: error instanceof Error ? error.message : String(error) };
      stdout.write(`${JSON.stringify({ ok: false, exitCode: code, error: body })}\n`);
    }
    if (UmbelError.isInstance(error)) {
      stderr.write(`umbel: ${error.message}\n`);
      if (error.hint) stderr.write(`  hint: ${error.hint}\n`);
    } else {
      stderr.write(`umbel: internal error (this is a bug, please report it):\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    }
    return code;
  }
}
