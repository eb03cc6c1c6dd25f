/** The persisted state of a run (`status.json`): a leaf module, read by the run, its steps, workers and journal. */
import type { Attempt, ErrorBody, Outcome } from '@umbel/core';

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
  /** A thrown error that failed the step (spawn, send, output file): core's error body. */
  error?: ErrorBody;
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
