/**
 * `umbel run FILE [--var K=V]… [--json] [--keep-workers] [--resume RUN_ID]`: @umbel/workflow runs
 * the file and returns its typed summary; this prints it (one JSON object with `--json`, progress
 * lines on a terminal, how to resume a run that did not complete) and returns the exit code.
 */
import { errorBody, errorExitCode, OUTCOME_EXIT_CODES, type Umbel } from '@umbel/core';
import type { RunWorkflowFileOptions, renderProgressLine, runWorkflowFile, WorkflowSummary } from '@umbel/workflow';
import type { Out } from './io.js';
import { errorText, printJson } from './output.js';

/** What the command needs of @umbel/workflow (loaded on demand). */
export interface WorkflowModule {
  readonly runWorkflowFile: typeof runWorkflowFile;
  readonly renderProgressLine: typeof renderProgressLine;
}

/** Options of `runWorkflowCommand`: the workflow's, and how to print. */
export interface WorkflowCommandOptions extends Omit<RunWorkflowFileOptions, 'onEvent'> {
  readonly engine: Umbel;
  /** Print one summary object on stdout. */
  readonly json?: boolean;
  /** Print progress lines on stderr (only without `json`). */
  readonly isTTY?: boolean;
  readonly stdout: Out;
  readonly stderr: Out;
}

/**
 * Run (or resume) and print. Returns the exit code: 0 when every step was accepted, the failing
 * step's outcome exit code otherwise (e.g. 127 guardrail-halted, 124 timeout), 2 for an invalid
 * file or arguments.
 */
export async function runWorkflowCommand(workflow: WorkflowModule, options: WorkflowCommandOptions): Promise<number> {
  const { json = false, isTTY, stdout, stderr, ...run } = options;
  const onEvent =
    !json && isTTY === true ? (event: Parameters<typeof renderProgressLine>[0]) => void stderr.write(`${workflow.renderProgressLine(event)}\n`) : undefined;
  try {
    const summary = await workflow.runWorkflowFile({ ...run, ...(onEvent ? { onEvent } : {}) });
    if (json) printJson(stdout, summary);
    else if (summary.ok) stdout.write(`workflow completed: runId=${summary.runId} (${summary.runDir})\n`);
    else stderr.write(`${summaryLines(summary).join('\n')}\n`);
    return summary.exitCode;
  } catch (error) {
    const exitCode = errorExitCode(error);
    if (json) printJson(stdout, { ok: false, exitCode, error: errorBody(error) });
    stderr.write(errorText(error));
    return exitCode;
  }
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
