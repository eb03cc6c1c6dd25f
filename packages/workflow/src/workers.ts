/**
 * A run's workers: each spawned once, lazily, by the first step that needs it (named
 * `<run-id>-<worker>`, or the name a resumed run recorded), and killed at the end unless kept. On
 * resume a recorded worker that is still alive is taken over; a dead one is purged and spawned anew.
 */
import { type Umbel, UmbelError, UmbelErrorCode, WorkerNotFoundError } from '@umbel/core';
import type { RunJournal } from './journal.js';
import type { Workflow } from './parse.js';
import { workerCwdOf } from './preflight.js';
import type { RunStatus, StepRecord } from './run-status.js';

/** The absolute cwd of worker `key`. */
export function workerCwd(workflow: Workflow, key: string): string {
  return workerCwdOf(workflow.dir, workflow.spec.workers[key]?.cwd);
}

export interface RunWorkers {
  /** The engine name of worker `key`, spawned (or taken over) the first time it is asked for. */
  workerFor(key: string, rec: StepRecord): Promise<string>;
  /** Wait for every spawn begun, however it ends. */
  settle(): Promise<void>;
  /** Kill every worker this run spawned or took over (one already gone is fine). */
  killAll(): Promise<void>;
}

interface WorkerDeps {
  readonly engine: Umbel;
  readonly workflow: Workflow;
  readonly state: RunStatus;
  readonly resumed: boolean;
  readonly signal: AbortSignal;
  readonly journal: RunJournal;
  /** The run's own fleet limit (`--max-workers`). */
  readonly maxWorkers?: number | undefined;
}

export function runWorkers(deps: WorkerDeps): RunWorkers {
  const spawned = new Set<string>();
  const starts = new Map<string, Promise<string>>();
  return {
    workerFor(key, rec) {
      let start = starts.get(key);
      if (!start) {
        start = startWorker(deps, key, rec).then((name) => {
          spawned.add(name);
          return name;
        });
        starts.set(key, start);
      }
      return start;
    },
    async settle() {
      await Promise.allSettled([...starts.values()]);
    },
    async killAll() {
      await Promise.allSettled(
        [...spawned].map((name) =>
          deps.engine.kill({ name }).catch((error: unknown) => {
            if (!(error instanceof WorkerNotFoundError) && !(UmbelError.isInstance(error) && error.code === UmbelErrorCode.WorkerNotFound)) throw error;
          }),
        ),
      );
    },
  };
}

async function startWorker(deps: WorkerDeps, key: string, rec: StepRecord): Promise<string> {
  const { engine, workflow, state } = deps;
  const name = state.workers[key] ?? `${state.runId}-${key}`;
  const w = workflow.spec.workers[key];
  if (!w) throw new UmbelError({ code: UmbelErrorCode.Internal, message: `no worker '${key}'` });
  if (deps.resumed) {
    const existing = await engine.status({ name }).catch((error: unknown) => {
      if (UmbelError.isInstance(error) && error.code === UmbelErrorCode.WorkerNotFound) return undefined;
      throw error;
    });
    if (existing?.alive) return name;
    if (existing) await engine.kill({ name, purge: true });
  }
  deps.journal.emit({ kind: 'step', runId: state.runId, step: rec.id, worker: key, workerName: name, state: 'spawning', elapsedMs: 0 });
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
      ...(deps.maxWorkers !== undefined ? { maxWorkers: deps.maxWorkers } : {}),
      ...(w.worktree !== undefined ? { worktree: w.worktree } : {}),
      ...(w.sandbox !== undefined ? { sandbox: w.sandbox } : {}),
    },
    // A run may wait for a fleet slot: with the config's limits.queue, a spawn past a limit waits.
    { signal: deps.signal, queue: true },
  );
  return name;
}
