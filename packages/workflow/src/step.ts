/**
 * One attempt at a step: render its prompt from the accepted steps, send it to its worker, wait with
 * the step's guardrail fields, then accept it (its answer and declared outputs recorded) or fail the
 * run with the outcome or the error. A step cancelled because another failed first says so.
 */
import { join, resolve as resolvePath } from 'node:path';
import { type Attempt, type ErrorBody, errorBody, errorExitCode, type Outcome, type Umbel, UmbelError, UmbelErrorCode, writeFileAtomic } from '@umbel/core';
import type { RunJournal } from './journal.js';
import { readOutputFile } from './output-file.js';
import type { Workflow } from './parse.js';
import type { StepEvent } from './progress.js';
import type { RunStatus, StepRecord } from './run-status.js';
import type { WorkflowStep } from './schema.js';
import { renderTemplate, type TemplateContext } from './template.js';
import { type RunWorkers, workerCwd } from './workers.js';

/** Why a run failed: the first step that did, with its outcome or its error. */
export interface Failure {
  readonly step: StepRecord;
  readonly outcome?: Outcome;
  readonly error?: ErrorBody;
  readonly exitCode: number;
  readonly reason: string;
  readonly message?: string;
}

/** What a step attempt works with: the run around it. */
export interface StepContext {
  readonly engine: Umbel;
  readonly workflow: Workflow;
  readonly state: RunStatus;
  readonly runDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborted when the run is cancelled or has failed. */
  readonly signal: AbortSignal;
  readonly journal: RunJournal;
  readonly workers: RunWorkers;
  /** What templates see of the accepted steps. */
  readonly accepted: TemplateContext['steps'];
  accept(rec: StepRecord): void;
  /** Fail the run (the first failure wins and cancels the rest). */
  fail(rec: StepRecord, failure: Omit<Failure, 'step'>): void;
  /** Whether the run has failed already (a later step that ends is cancelled, not failed). */
  failed(): boolean;
  stepEvent(rec: StepRecord, extra: Omit<StepEvent, 'kind' | 'runId' | 'step' | 'worker' | 'workerName'>): StepEvent;
}

/** The step's wait ended as asked: the turn completed, or (`until: file|pattern`) the file appeared or the screen matched. */
export function conditionMet(reason: string): boolean {
  return reason === 'completed' || reason === 'file' || reason === 'pattern';
}

/** Run one attempt at `step`; true when it was accepted. */
export async function attemptStep(ctx: StepContext, step: WorkflowStep, rec: StepRecord): Promise<boolean> {
  const started = Date.now();
  delete rec.error;
  delete rec.outcome;
  delete rec.attempts;
  rec.startedAt = new Date(started).toISOString();
  try {
    const name = await ctx.workers.workerFor(step.worker, rec);
    if (ctx.signal.aborted) throw new UmbelError({ code: UmbelErrorCode.Aborted, message: 'aborted before the prompt was sent' });
    const outcome = await sendAndWait(ctx, step, rec, name, started);
    recordOutcome(rec, outcome, started);
    if (!conditionMet(outcome.reason)) return await rejected(ctx, rec, outcome);
    await acceptOutputs(ctx, step, rec, outcome);
    return true;
  } catch (error) {
    return failedWith(ctx, rec, started, error);
  }
}

/** Send the rendered prompt, then wait for its turn with the step's guardrail fields. */
async function sendAndWait(ctx: StepContext, step: WorkflowStep, rec: StepRecord, name: string, started: number): Promise<Outcome> {
  const rendered = renderTemplate(step.prompt, { steps: ctx.accepted, vars: ctx.state.vars, env: ctx.env });
  if (!rendered.ok) throw new UmbelError({ code: UmbelErrorCode.WorkflowFailed, message: `step '${step.id}': ${rendered.missing} has no value` });
  rec.status = 'running';
  await ctx.journal.persist();
  const sent = await ctx.engine.send({ name, prompt: rendered.text }, { signal: ctx.signal });
  rec.turn = sent.turn;
  let attempt = 1;
  ctx.journal.emit(ctx.stepEvent(rec, { state: 'running', attempt, turn: sent.turn, elapsedMs: Date.now() - started }));
  return ctx.engine.wait(
    {
      name,
      turn: sent.turn,
      timeout: step.timeout,
      retries: step.retries,
      checkTimeout: step.checkTimeout,
      ...(step.idleTimeout !== undefined ? { idleTimeout: step.idleTimeout } : {}),
      ...(step.until !== 'stop' ? { until: step.until, file: step.file, pattern: step.pattern } : {}),
      ...(step.check !== undefined ? { check: step.check } : {}),
      ...(step.schema !== undefined ? { schema: resolvePath(ctx.workflow.dir, step.schema) } : {}),
    },
    {
      signal: ctx.signal,
      onProgress: (progress) => {
        if (progress.attempt === undefined || progress.attempt === attempt) return;
        attempt = progress.attempt;
        ctx.journal.emit(ctx.stepEvent(rec, { state: 'running', attempt, ...(progress.turn ? { turn: progress.turn } : {}), elapsedMs: Date.now() - started }));
      },
    },
  );
}

/** The outcome and its attempts on the record (one attempt when no guardrail ran). */
function recordOutcome(rec: StepRecord, outcome: Outcome, started: number): void {
  rec.outcome = outcome;
  rec.turn = outcome.turn;
  const single: Attempt = {
    attempt: 1,
    turn: outcome.turn,
    reason: outcome.reason,
    accepted: conditionMet(outcome.reason),
    durationMs: outcome.durationMs,
    ...(outcome.result !== undefined ? { answer: outcome.result } : {}),
  };
  rec.attempts = outcome.attempts ? [...outcome.attempts] : [single];
  rec.endedAt = new Date().toISOString();
  rec.elapsedMs = Date.now() - started;
}

/** A wait that did not end as asked fails the run (or is cancelled, when another step failed first). */
async function rejected(ctx: StepContext, rec: StepRecord, outcome: Outcome): Promise<false> {
  const cancelled = outcome.reason === 'aborted' && ctx.failed();
  rec.status = cancelled ? 'cancelled' : 'failed';
  const elapsedMs = rec.elapsedMs ?? 0;
  if (cancelled) ctx.journal.emit(ctx.stepEvent(rec, { state: 'cancelled', elapsedMs }));
  else {
    const message = outcome.message !== undefined ? { message: outcome.message } : {};
    ctx.fail(rec, { outcome, exitCode: outcome.exitCode, reason: outcome.reason, ...message });
    const attempt = rec.attempts?.length ?? 1;
    ctx.journal.emit(ctx.stepEvent(rec, { state: 'failed', attempt, elapsedMs, reason: outcome.reason, exitCode: outcome.exitCode, ...message }));
  }
  await ctx.journal.persist();
  return false;
}

/** Accept the step: its answer and declared outputs (answer or file:) recorded and written under outputs/. */
async function acceptOutputs(ctx: StepContext, step: WorkflowStep, rec: StepRecord, outcome: Outcome): Promise<void> {
  const answer = outcome.result ?? '';
  const outputs: Record<string, string> = {};
  // A worker in its own worktree writes its files there: its cwd is the engine's, not the workflow's.
  const cwd = ctx.workflow.spec.workers[step.worker]?.worktree ? (await ctx.engine.status({ name: outcome.worker })).cwd : workerCwd(ctx.workflow, step.worker);
  for (const [key, source] of Object.entries(step.outputs)) {
    if (source === 'answer') outputs[key] = answer;
    else outputs[key] = await readOutputFile(cwd, source.slice('file:'.length), { step: step.id, key });
  }
  for (const [key, text] of Object.entries(outputs)) await writeFileAtomic(join(ctx.runDir, 'outputs', step.id, key), text);
  rec.output = answer;
  rec.outputs = outputs;
  rec.status = 'accepted';
  ctx.accept(rec);
  ctx.journal.emit(ctx.stepEvent(rec, { state: 'done', attempt: rec.attempts?.length ?? 1, turn: outcome.turn, elapsedMs: rec.elapsedMs ?? 0 }));
  await ctx.journal.persist();
}

/** A thrown error (spawn, send, template, output file) fails the step (or cancels it after another failure). */
async function failedWith(ctx: StepContext, rec: StepRecord, started: number, error: unknown): Promise<false> {
  const described = errorBody(error);
  const cancelled = ctx.failed();
  rec.status = cancelled ? 'cancelled' : 'failed';
  rec.error = described;
  rec.endedAt = new Date().toISOString();
  rec.elapsedMs = Date.now() - started;
  if (cancelled) ctx.journal.emit(ctx.stepEvent(rec, { state: 'cancelled', elapsedMs: rec.elapsedMs }));
  else {
    const exitCode = errorExitCode(error);
    ctx.fail(rec, { error: described, exitCode, reason: described.code, message: described.message });
    ctx.journal.emit(ctx.stepEvent(rec, { state: 'failed', elapsedMs: rec.elapsedMs, reason: described.code, exitCode, message: described.message }));
  }
  await ctx.journal.persist();
  return false;
}
