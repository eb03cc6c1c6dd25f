/**
 * Run a validated workflow over an engine passed in by value. Each worker is spawned once (named
 * `<run-id>-<worker>`) and keeps its conversation across its steps; independent steps run in
 * parallel; each step is `send` + `wait` with the step's guardrail fields. The run folder
 * `<home>/runs/<run-id>/` holds the YAML as run, `status.json` (atomic) and the outputs.
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type ErrorBody,
  mkdirPrivate,
  OUTCOME_EXIT_CODES,
  type Outcome,
  PRIVATE_DIR_MODE,
  readStateFile,
  type Umbel,
  UsageError,
  writeFileAtomic,
} from '@umbel/core';
import { dependencies, topologicalOrder } from './graph.js';
import { IssueList } from './issues.js';
import { createJournal, type RunJournal } from './journal.js';
import { addBindingIssues, type Workflow } from './parse.js';
import { addPreflightIssues, loadWorkflow } from './preflight.js';
import type { WorkflowEvent } from './progress.js';
import { RunIdSchema, type WorkflowStep } from './schema.js';
import type { RunStatus, StepRecord } from './run-status.js';
import { attemptStep, type Failure, type StepContext } from './step.js';
import type { TemplateContext } from './template.js';
import { type RunWorkers, runWorkers } from './workers.js';

/** Options of `runWorkflow` and `resumeWorkflow`. */
export interface RunWorkflowOptions {
  /** Values of `{{ vars.K }}` (`--var K=V`). On resume, merged over the vars of the first run. */
  readonly vars?: Readonly<Record<string, string>>;
  /** Source of `{{ env.X }}` and of the check for workers' `{fromEnv: X}` (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Run id (default `wf-` + 6 random characters); must not exist yet. */
  readonly runId?: string;
  /** Leave the run's workers alive at the end (success or failure). */
  readonly keepWorkers?: boolean;
  /** Progress events. Must not throw. */
  readonly onEvent?: (event: WorkflowEvent) => void;
  /** Cancels the run: running waits end `aborted` (exit 130), workers are killed unless kept. */
  readonly signal?: AbortSignal;
  /** The fleet limit of this run's spawns (`--max-workers`), over the engine's `limits.maxWorkers`. */
  readonly maxWorkers?: number;
}

export type { RunStatus, StepRecord } from './run-status.js';

/** What a run returns. */
export interface WorkflowSummary {
  readonly runId: string;
  readonly ok: boolean;
  readonly status: 'completed' | 'failed';
  /** 0 on success; else the failing step's outcome exit code (or its error's exit code). */
  readonly exitCode: number;
  readonly runDir: string;
  readonly durationMs: number;
  readonly steps: readonly {
    id: string;
    worker: string;
    workerName: string;
    status: StepRecord['status'];
    attempts: number;
    elapsedMs?: number;
    reason?: string;
  }[];
  readonly failedStep?: { readonly id: string; readonly worker: string; readonly workerName: string; readonly reason: string; readonly message?: string };
  /** The failing step's Outcome, when the failure was an outcome (not a thrown error). */
  readonly outcome?: Outcome;
  /** The failing step's error, when it threw: core's error body (code, name, message, hint, facts). */
  readonly error?: ErrorBody;
  /** Accepted answers and declared outputs, by step id. */
  readonly outputs: Readonly<Record<string, { readonly output?: string; readonly outputs?: Readonly<Record<string, string>> }>>;
}

/** The folder of a run. */
export function runDirOf(home: string, runId: string): string {
  return join(home, 'runs', runId);
}

/** A fresh run id: `wf-` + 6 base36 characters. */
export function newRunId(): string {
  const bytes = randomBytes(6);
  let id = '';
  for (const b of bytes) id += (b % 36).toString(36);
  return `wf-${id}`;
}

/** Validate `runId` (a usage error otherwise). */
function checkRunId(runId: string): string {
  const parsed = RunIdSchema.safeParse(runId);
  if (!parsed.success) throw new UsageError(`invalid run id '${runId}': ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

/** Bindings and preflight in one pass, before anything is spawned. @throws WorkflowInvalidError */
async function checkBeforeRun(
  engine: Umbel,
  workflow: Workflow,
  bindings: { vars: Record<string, string>; env: Readonly<Record<string, string | undefined>> },
) {
  const issues = new IssueList(workflow.file, workflow.locate);
  addBindingIssues(workflow, bindings, issues);
  await addPreflightIssues(engine, workflow.spec, workflow.dir, issues);
  issues.throwIfAny();
}

/**
 * Run a workflow. Invalid bindings or a failing preflight throw `WorkflowInvalidError` before
 * anything is spawned; everything after that is reported in the returned summary (never thrown).
 */
export async function runWorkflow(engine: Umbel, workflow: Workflow, options: RunWorkflowOptions = {}): Promise<WorkflowSummary> {
  const vars = { ...(options.vars ?? {}) };
  const env = options.env ?? process.env;
  await checkBeforeRun(engine, workflow, { vars, env });
  const runId = checkRunId(options.runId ?? newRunId());
  const runDir = runDirOf(engine.home, runId);
  await mkdirPrivate(join(engine.home, 'runs'));
  try {
    await mkdir(runDir, { mode: PRIVATE_DIR_MODE });
  } catch (error) {
    if ((error as { code?: string }).code === 'EEXIST')
      throw new UsageError(`run '${runId}' already exists (${runDir})`, { hint: `resume it with --resume ${runId}, or pick another run id` });
    throw error;
  }
  await writeFileAtomic(join(runDir, 'workflow.yaml'), workflow.text);
  const now = new Date().toISOString();
  const state: RunStatus = {
    version: 1,
    runId,
    status: 'running',
    ...(workflow.file !== undefined ? { file: workflow.file } : {}),
    dir: workflow.dir,
    createdAt: now,
    updatedAt: now,
    resumedAt: [],
    vars,
    workers: Object.fromEntries(Object.keys(workflow.spec.workers).map((key) => [key, `${runId}-${key}`])),
    steps: workflow.spec.steps.map((s) => ({ id: s.id, worker: s.worker, workerName: `${runId}-${s.worker}`, status: 'pending' })),
  };
  return execute(engine, workflow, state, { ...options, env }, false);
}

/**
 * Continue a failed (or interrupted) run from its first unfinished step: accepted steps keep
 * their answers and outputs; every other step runs again. Workers still alive are reused;
 * workers that are gone are spawned again (with a fresh conversation).
 */
export async function resumeWorkflow(engine: Umbel, runId: string, options: Omit<RunWorkflowOptions, 'runId'> = {}): Promise<WorkflowSummary> {
  checkRunId(runId);
  const runDir = runDirOf(engine.home, runId);
  let state: RunStatus;
  let text: string;
  try {
    state = JSON.parse(await readStateFile(join(runDir, 'status.json'))) as RunStatus;
    text = await readStateFile(join(runDir, 'workflow.yaml'));
  } catch {
    throw new UsageError(`no run '${runId}' to resume (${runDir} has no status.json and workflow.yaml)`);
  }
  if (state.version !== 1 || !Array.isArray(state.steps)) throw new UsageError(`run '${runId}': status.json is not a run status this version understands`);
  const vars = { ...state.vars, ...(options.vars ?? {}) };
  const env = options.env ?? process.env;
  const workflow = await loadWorkflow(engine, text, { ...(state.file !== undefined ? { file: state.file } : {}), dir: state.dir, vars, env });
  state.vars = vars;
  state.status = 'running';
  delete state.failedStep;
  delete state.exitCode;
  state.resumedAt = [...(state.resumedAt ?? []), new Date().toISOString()];
  const before = new Map(state.steps.map((r) => [r.id, r]));
  state.steps = workflow.spec.steps.map((s) => {
    const old = before.get(s.id);
    if (old?.status === 'accepted') return old;
    return { id: s.id, worker: s.worker, workerName: state.workers[s.worker] ?? `${runId}-${s.worker}`, status: 'pending' };
  });
  return execute(engine, workflow, state, { ...options, env }, true);
}

/** Run (or resume) `workflow` with `state` as its status: steps in dependency order, as many at once as the graph allows. */
async function execute(
  engine: Umbel,
  workflow: Workflow,
  state: RunStatus,
  options: RunWorkflowOptions & { env: Readonly<Record<string, string | undefined>> },
  resumed: boolean,
): Promise<WorkflowSummary> {
  const t0 = Date.now();
  const { runId } = state;
  const runDir = runDirOf(engine.home, runId);
  const journal = createJournal(runDir, state, options.onEvent);
  await journal.persist();
  journal.emit({ kind: 'run', runId, state: 'started', elapsedMs: 0, resumed, runDir });

  const controller = new AbortController();
  const onAbort = (): void => controller.abort();
  if (options.signal?.aborted) controller.abort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  const workers = runWorkers({ engine, workflow, state, resumed, signal: controller.signal, journal, maxWorkers: options.maxWorkers });
  const { ctx, failure } = stepContext({ engine, workflow, state, runDir, env: options.env, controller, journal, workers });

  const spec = workflow.spec;
  const deps = dependencies(spec);
  const byId = new Map(spec.steps.map((s) => [s.id, s]));
  const records = new Map(state.steps.map((r) => [r.id, r]));
  const recOf = (id: string): StepRecord => records.get(id) as StepRecord;
  const running = new Map<string, Promise<boolean>>();
  const runStep = (step: WorkflowStep): Promise<boolean> => {
    const known = running.get(step.id);
    if (known) return known;
    const p = (async (): Promise<boolean> => {
      const rec = recOf(step.id);
      if (rec.status === 'accepted') {
        journal.emit(ctx.stepEvent(rec, { state: 'reused', elapsedMs: rec.elapsedMs ?? 0, ...(rec.attempts ? { attempt: rec.attempts.length } : {}) }));
        return true;
      }
      const depIds = (deps.get(step.id) ?? []).map((d) => d.step);
      const pending = depIds.filter((id) => recOf(id).status !== 'accepted');
      if (pending.length) journal.emit(ctx.stepEvent(rec, { state: 'waiting', waitingFor: pending, elapsedMs: Date.now() - t0 }));
      const ok = (await Promise.all(depIds.map((id) => runStep(byId.get(id) as WorkflowStep)))).every(Boolean);
      if (!ok || controller.signal.aborted) return false;
      return attemptStep(ctx, step, rec);
    })();
    running.set(step.id, p);
    return p;
  };

  // Start steps in topological order: each step's dependencies are started before it, so
  // runStep never recurses through a chain (a 10,000-step file listed in reverse included).
  await Promise.all(topologicalOrder(deps).order.map((id) => runStep(byId.get(id) as WorkflowStep)));
  await workers.settle();
  options.signal?.removeEventListener('abort', onAbort);
  failIfInterrupted(ctx, state);
  return finishRun({ state, runDir, journal, ctx, failure: failure(), keepWorkers: options.keepWorkers === true, workers, durationMs: () => Date.now() - t0 });
}

/**
 * A run is completed only when every step was accepted. An interrupt that lands where no step is
 * waiting (between two steps, before the first) fails no step itself: the steps not started yet
 * just stop. Such a run is interrupted (`aborted`, 130) at its first step that was not accepted.
 */
function failIfInterrupted(ctx: StepContext, state: RunStatus): void {
  if (ctx.failed()) return;
  const first = state.steps.find((r) => r.status !== 'accepted');
  if (!first) return;
  ctx.fail(first, { exitCode: OUTCOME_EXIT_CODES.aborted, reason: 'aborted', message: 'the run was interrupted before this step started' });
}

/** The context of the run's steps, and the run's first failure. */
function stepContext(deps: Omit<StepContext, 'signal' | 'accepted' | 'accept' | 'fail' | 'failed' | 'stepEvent'> & { controller: AbortController }): {
  ctx: StepContext;
  failure: () => Failure | undefined;
} {
  const { controller, ...rest } = deps;
  let first: Failure | undefined;
  // What templates see of accepted steps, kept up to date as steps are accepted.
  const accepted: Record<string, TemplateContext['steps'][string]> = {};
  const ctx: StepContext = {
    ...rest,
    signal: controller.signal,
    accepted,
    accept: (r) => {
      accepted[r.id] = { ...(r.output !== undefined ? { output: r.output } : {}), outputs: r.outputs ?? {} };
    },
    fail: (rec, f) => {
      if (first) return;
      first = { step: rec, ...f };
      controller.abort();
    },
    failed: () => first !== undefined,
    stepEvent: (rec, extra) => ({ kind: 'step', runId: deps.state.runId, step: rec.id, worker: rec.worker, workerName: rec.workerName, ...extra }),
  };
  for (const r of deps.state.steps) if (r.status === 'accepted') ctx.accept(r);
  return { ctx, failure: () => first };
}

/** After the steps: the ones never started are cancelled, the workers killed (unless kept), the status final. */
async function finishRun(end: {
  state: RunStatus;
  runDir: string;
  journal: RunJournal;
  ctx: StepContext;
  failure: Failure | undefined;
  keepWorkers: boolean;
  workers: RunWorkers;
  durationMs: () => number;
}): Promise<WorkflowSummary> {
  const { state, journal, failure: f } = end;
  for (const rec of state.steps) {
    if (rec.status === 'pending' && f) {
      rec.status = 'cancelled';
      journal.emit(end.ctx.stepEvent(rec, { state: 'cancelled', elapsedMs: 0 }));
    }
  }
  if (!end.keepWorkers) await end.workers.killAll();
  const durationMs = end.durationMs();
  state.status = f ? 'failed' : 'completed';
  if (f) {
    state.failedStep = f.step.id;
    state.exitCode = f.exitCode;
  } else state.exitCode = 0;
  await journal.persist();
  journal.emit({
    kind: 'run',
    runId: state.runId,
    state: f ? 'failed' : 'completed',
    elapsedMs: durationMs,
    runDir: end.runDir,
    ...(f ? { failedStep: f.step.id, exitCode: f.exitCode } : {}),
  });
  return summaryOf(state, f, end.runDir, durationMs);
}

/** What the run returns. */
function summaryOf(state: RunStatus, f: Failure | undefined, runDir: string, durationMs: number): WorkflowSummary {
  return {
    runId: state.runId,
    ok: !f,
    status: f ? 'failed' : 'completed',
    exitCode: f ? f.exitCode : 0,
    runDir,
    durationMs,
    steps: state.steps.map((r) => ({
      id: r.id,
      worker: r.worker,
      workerName: r.workerName,
      status: r.status,
      attempts: r.attempts?.length ?? 0,
      ...(r.elapsedMs !== undefined ? { elapsedMs: r.elapsedMs } : {}),
      ...(r.outcome && r.outcome.reason !== 'completed' ? { reason: r.outcome.reason } : r.error ? { reason: r.error.code } : {}),
    })),
    ...(f
      ? {
          failedStep: {
            id: f.step.id,
            worker: f.step.worker,
            workerName: f.step.workerName,
            reason: f.reason,
            ...(f.message !== undefined ? { message: f.message } : {}),
          },
          ...(f.outcome ? { outcome: f.outcome } : {}),
          ...(f.error ? { error: f.error } : {}),
        }
      : {}),
    outputs: Object.fromEntries(
      state.steps
        .filter((r) => r.status === 'accepted')
        .map((r) => [r.id, { ...(r.output !== undefined ? { output: r.output } : {}), outputs: r.outputs ?? {} }]),
    ),
  };
}
