/**
 * Run a validated workflow over an engine passed in by value. Each worker is spawned once (named
 * `<run-id>-<worker>`) and keeps its conversation across its steps; independent steps run in
 * parallel; each step is `send` + `wait` with the step's guardrail fields. The run folder
 * `<home>/runs/<run-id>/` holds the YAML as run, `status.json` (atomic) and the outputs.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve as resolvePath } from 'node:path';
import { type Attempt, type Outcome, type Umbel, UmbelError, UmbelErrorCode, UsageError, WorkerNotFoundError, writeFileAtomic } from '@umbel/core';
import { describeError, exitCodeOfError } from './exit-code.js';
import { dependencies, topologicalOrder } from './graph.js';
import { IssueList } from './issues.js';
import { readOutputFile } from './output-file.js';
import { addBindingIssues, type Workflow } from './parse.js';
import { addPreflightIssues, loadWorkflow, workerCwdOf } from './preflight.js';
import type { StepEvent, WorkflowEvent } from './progress.js';
import { RunIdSchema, type WorkflowStep } from './schema.js';
import { renderTemplate, type TemplateContext } from './template.js';

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
}

/** Persisted state of one step (in `status.json`). */
export interface StepRecord {
  id: string;
  worker: string;
  workerName: string;
  status: 'pending' | 'running' | 'accepted' | 'failed' | 'cancelled';
  startedAt?: string;
  endedAt?: string;
  elapsedMs?: number;
  turn?: number;
  attempts?: Attempt[];
  /** The wait's Outcome (attempts included). */
  outcome?: Outcome;
  /** A thrown error that failed the step (spawn, send, output file). */
  error?: { code: string; message: string };
  /** The accepted answer (`{{ steps.ID.output }}`). */
  output?: string;
  /** Declared outputs (`{{ steps.ID.outputs.KEY }}`), also in `outputs/<step>/<KEY>`. */
  outputs?: Record<string, string>;
}

/** `status.json` of a run. */
export interface RunStatus {
  version: 1;
  runId: string;
  status: 'running' | 'completed' | 'failed';
  /** The workflow file as given, when there was one. */
  file?: string;
  /** Base directory of relative `cwd:`/`schema:` paths. */
  dir: string;
  createdAt: string;
  updatedAt: string;
  resumedAt: string[];
  /** Values of `{{ vars.K }}` (never env values). */
  vars: Record<string, string>;
  /** Worker key → engine worker name. */
  workers: Record<string, string>;
  steps: StepRecord[];
  failedStep?: string;
  exitCode?: number;
}

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
  /** The failing step's error, when it threw. */
  readonly error?: { readonly code: string; readonly message: string };
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

function workerCwd(workflow: Workflow, key: string): string {
  return workerCwdOf(workflow.dir, workflow.spec.workers[key]?.cwd);
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
  await mkdir(join(engine.home, 'runs'), { recursive: true });
  try {
    await mkdir(runDir);
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
    state = JSON.parse(await readFile(join(runDir, 'status.json'), 'utf8')) as RunStatus;
    text = await readFile(join(runDir, 'workflow.yaml'), 'utf8');
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

interface Failure {
  readonly step: StepRecord;
  readonly outcome?: Outcome;
  readonly error?: { code: string; message: string };
  readonly exitCode: number;
  readonly reason: string;
  readonly message?: string;
}

async function execute(
  engine: Umbel,
  workflow: Workflow,
  state: RunStatus,
  options: RunWorkflowOptions & { env: Readonly<Record<string, string | undefined>> },
  resumed: boolean,
): Promise<WorkflowSummary> {
  const t0 = Date.now();
  const runId = state.runId;
  const runDir = runDirOf(engine.home, runId);
  const spec = workflow.spec;
  const emit = (event: WorkflowEvent): void => {
    try {
      options.onEvent?.(event);
    } catch {
      // a progress listener never breaks a run
    }
  };

  // status.json: one write at a time; calls made while a write waits join it (it serialises the
  // state when it starts), so a burst of changes costs one write, not one each.
  let writing: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;
  const persist = (): Promise<void> => {
    state.updatedAt = new Date().toISOString();
    if (queued) return queued;
    const write = writing.then(() => {
      queued = undefined;
      return writeFileAtomic(join(runDir, 'status.json'), `${JSON.stringify(state, null, 2)}\n`);
    });
    queued = write;
    writing = write.catch(() => undefined);
    return write;
  };
  await persist();
  emit({ kind: 'run', runId, state: 'started', elapsedMs: 0, resumed, runDir });

  const controller = new AbortController();
  const onAbort = (): void => controller.abort();
  if (options.signal?.aborted) controller.abort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  let failure: Failure | undefined;

  // --- workers: spawned once, lazily, by the first step that needs them ---
  const spawned = new Set<string>();
  const workerPromises = new Map<string, Promise<string>>();
  const workerFor = (key: string, rec: StepRecord): Promise<string> => {
    let p = workerPromises.get(key);
    if (!p) {
      p = (async () => {
        const name = state.workers[key] ?? `${runId}-${key}`;
        const w = spec.workers[key];
        if (!w) throw new UmbelError({ code: UmbelErrorCode.Internal, message: `no worker '${key}'` });
        if (resumed) {
          const existing = await engine.status(name).catch((error: unknown) => {
            if (UmbelError.isInstance(error) && error.code === UmbelErrorCode.WorkerNotFound) return undefined;
            throw error;
          });
          if (existing?.alive) {
            spawned.add(name);
            return name;
          }
          if (existing) await engine.kill({ name, purge: true });
        }
        emit({ kind: 'step', runId, step: rec.id, worker: key, workerName: name, state: 'spawning', elapsedMs: 0 });
        await engine.spawn(
          {
            name,
            provider: w.provider,
            // On a host the cwd is a path there, as written (default: the host's home).
            ...(w.host !== undefined ? { host: w.host, ...(w.cwd !== undefined ? { cwd: w.cwd } : {}) } : { cwd: workerCwd(workflow, key) }),
            unattended: w.unattended,
            billing: w.billing,
            ...(w.model !== undefined ? { model: w.model } : {}),
            ...(w.env !== undefined ? { env: w.env } : {}),
            ...(w.permissionMode !== undefined ? { permissionMode: w.permissionMode } : {}),
            ...(w.allowedTools !== undefined ? { allowedTools: w.allowedTools } : {}),
          },
          { signal: controller.signal },
        );
        spawned.add(name);
        return name;
      })();
      workerPromises.set(key, p);
    }
    return p;
  };

  const deps = dependencies(spec);
  const byId = new Map(spec.steps.map((s) => [s.id, s]));
  const records = new Map(state.steps.map((r) => [r.id, r]));
  const recOf = (id: string): StepRecord => records.get(id) as StepRecord;
  // What templates see of accepted steps, kept up to date as steps are accepted.
  const accepted: Record<string, TemplateContext['steps'][string]> = {};
  const accept = (r: StepRecord): void => {
    accepted[r.id] = { ...(r.output !== undefined ? { output: r.output } : {}), outputs: r.outputs ?? {} };
  };
  for (const r of state.steps) if (r.status === 'accepted') accept(r);
  const running = new Map<string, Promise<boolean>>();

  const fail = (rec: StepRecord, f: Omit<Failure, 'step'>): void => {
    if (!failure) {
      failure = { step: rec, ...f };
      controller.abort();
    }
  };

  const stepEvent = (rec: StepRecord, extra: Omit<StepEvent, 'kind' | 'runId' | 'step' | 'worker' | 'workerName'>): StepEvent => ({
    kind: 'step',
    runId,
    step: rec.id,
    worker: rec.worker,
    workerName: rec.workerName,
    ...extra,
  });

  const runStep = (step: WorkflowStep): Promise<boolean> => {
    const known = running.get(step.id);
    if (known) return known;
    const p = (async (): Promise<boolean> => {
      const rec = recOf(step.id);
      if (rec.status === 'accepted') {
        emit(stepEvent(rec, { state: 'reused', elapsedMs: rec.elapsedMs ?? 0, ...(rec.attempts ? { attempt: rec.attempts.length } : {}) }));
        return true;
      }
      const depIds = (deps.get(step.id) ?? []).map((d) => d.step);
      const pending = depIds.filter((id) => recOf(id).status !== 'accepted');
      if (pending.length) emit(stepEvent(rec, { state: 'waiting', waitingFor: pending, elapsedMs: Date.now() - t0 }));
      const ok = (await Promise.all(depIds.map((id) => runStep(byId.get(id) as WorkflowStep)))).every(Boolean);
      if (!ok || controller.signal.aborted) return false;
      return attemptStep(step, rec);
    })();
    running.set(step.id, p);
    return p;
  };

  const attemptStep = async (step: WorkflowStep, rec: StepRecord): Promise<boolean> => {
    const started = Date.now();
    delete rec.error;
    delete rec.outcome;
    delete rec.attempts;
    rec.startedAt = new Date(started).toISOString();
    const finishWithError = async (error: unknown): Promise<boolean> => {
      const described = describeError(error);
      const cancelled = failure !== undefined;
      rec.status = cancelled ? 'cancelled' : 'failed';
      rec.error = described;
      rec.endedAt = new Date().toISOString();
      rec.elapsedMs = Date.now() - started;
      if (cancelled) emit(stepEvent(rec, { state: 'cancelled', elapsedMs: rec.elapsedMs }));
      else {
        const exitCode = exitCodeOfError(error);
        fail(rec, { error: described, exitCode, reason: described.code, message: described.message });
        emit(stepEvent(rec, { state: 'failed', elapsedMs: rec.elapsedMs, reason: described.code, exitCode, message: described.message }));
      }
      await persist();
      return false;
    };
    try {
      const name = await workerFor(step.worker, rec);
      if (controller.signal.aborted)
        return await finishWithError(new UmbelError({ code: UmbelErrorCode.Aborted, message: 'aborted before the prompt was sent' }));
      const rendered = renderTemplate(step.prompt, {
        steps: accepted,
        vars: state.vars,
        env: options.env,
      });
      if (!rendered.ok) throw new UmbelError({ code: UmbelErrorCode.WorkflowFailed, message: `step '${step.id}': ${rendered.missing} has no value` });
      rec.status = 'running';
      await persist();
      const sent = await engine.send({ name, prompt: rendered.text }, { signal: controller.signal });
      rec.turn = sent.turn;
      let attempt = 1;
      emit(stepEvent(rec, { state: 'running', attempt, turn: sent.turn, elapsedMs: Date.now() - started }));
      const outcome = await engine.wait(
        {
          name,
          turn: sent.turn,
          timeout: step.timeout,
          retries: step.retries,
          checkTimeout: step.checkTimeout,
          ...(step.idleTimeout !== undefined ? { idleTimeout: step.idleTimeout } : {}),
          ...(step.until !== 'stop' ? { until: step.until, file: step.file, pattern: step.pattern } : {}),
          ...(step.check !== undefined ? { check: step.check } : {}),
          ...(step.schema !== undefined ? { schema: resolvePath(workflow.dir, step.schema) } : {}),
        },
        {
          signal: controller.signal,
          onProgress: (progress) => {
            if (progress.attempt !== undefined && progress.attempt !== attempt) {
              attempt = progress.attempt;
              emit(stepEvent(rec, { state: 'running', attempt, ...(progress.turn ? { turn: progress.turn } : {}), elapsedMs: Date.now() - started }));
            }
          },
        },
      );
      rec.outcome = outcome;
      rec.turn = outcome.turn;
      rec.attempts = outcome.attempts
        ? [...outcome.attempts]
        : [
            {
              attempt: 1,
              turn: outcome.turn,
              reason: outcome.reason,
              accepted: conditionMet(outcome.reason),
              durationMs: outcome.durationMs,
              ...(outcome.result !== undefined ? { answer: outcome.result } : {}),
            },
          ];
      rec.endedAt = new Date().toISOString();
      rec.elapsedMs = Date.now() - started;
      const attempts = rec.attempts.length;
      if (!conditionMet(outcome.reason)) {
        const cancelled = outcome.reason === 'aborted' && failure !== undefined;
        rec.status = cancelled ? 'cancelled' : 'failed';
        if (cancelled) emit(stepEvent(rec, { state: 'cancelled', elapsedMs: rec.elapsedMs }));
        else {
          fail(rec, { outcome, exitCode: outcome.exitCode, reason: outcome.reason, ...(outcome.message !== undefined ? { message: outcome.message } : {}) });
          emit(
            stepEvent(rec, {
              state: 'failed',
              attempt: attempts,
              elapsedMs: rec.elapsedMs,
              reason: outcome.reason,
              exitCode: outcome.exitCode,
              ...(outcome.message !== undefined ? { message: outcome.message } : {}),
            }),
          );
        }
        await persist();
        return false;
      }
      const answer = outcome.result ?? '';
      const outputs: Record<string, string> = {};
      for (const [key, source] of Object.entries(step.outputs)) {
        if (source === 'answer') outputs[key] = answer;
        else outputs[key] = await readOutputFile(workerCwd(workflow, step.worker), source.slice('file:'.length), { step: step.id, key });
      }
      for (const [key, text] of Object.entries(outputs)) await writeFileAtomic(join(runDir, 'outputs', step.id, key), text);
      rec.output = answer;
      rec.outputs = outputs;
      rec.status = 'accepted';
      accept(rec);
      emit(stepEvent(rec, { state: 'done', attempt: attempts, turn: outcome.turn, elapsedMs: rec.elapsedMs }));
      await persist();
      return true;
    } catch (error) {
      return finishWithError(error);
    }
  };

  // Start steps in topological order: each step's dependencies are started before it, so
  // runStep never recurses through a chain (a 10,000-step file listed in reverse included).
  await Promise.all(topologicalOrder(deps).order.map((id) => runStep(byId.get(id) as WorkflowStep)));
  await Promise.allSettled([...workerPromises.values()]);
  options.signal?.removeEventListener('abort', onAbort);

  // Steps that never started because the run failed.
  for (const rec of state.steps) {
    if (rec.status === 'pending' && failure) {
      rec.status = 'cancelled';
      emit(stepEvent(rec, { state: 'cancelled', elapsedMs: 0 }));
    }
  }
  if (!options.keepWorkers) {
    await Promise.allSettled(
      [...spawned].map((name) =>
        engine.kill({ name }).catch((error: unknown) => {
          if (!(error instanceof WorkerNotFoundError) && !(UmbelError.isInstance(error) && error.code === UmbelErrorCode.WorkerNotFound)) throw error;
        }),
      ),
    );
  }
  const durationMs = Date.now() - t0;
  const f = failure as Failure | undefined;
  state.status = f ? 'failed' : 'completed';
  if (f) {
    state.failedStep = f.step.id;
    state.exitCode = f.exitCode;
  } else state.exitCode = 0;
  await persist();
  emit({ kind: 'run', runId, state: f ? 'failed' : 'completed', elapsedMs: durationMs, runDir, ...(f ? { failedStep: f.step.id, exitCode: f.exitCode } : {}) });
  return {
    runId,
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

/** The step's wait ended as asked: the turn completed, or (`until: file|pattern`) the file appeared or the screen matched. */
function conditionMet(reason: string): boolean {
  return reason === 'completed' || reason === 'file' || reason === 'pattern';
}
