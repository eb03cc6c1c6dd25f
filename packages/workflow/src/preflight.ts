/**
 * Checks that need the engine or the disk, before anything is spawned: providers known, worker
 * cwds exist, schema files are readable JSON Schemas. They add to the same issue list as the
 * file's own checks, so `umbel run` reports every problem at once.
 */
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { ajvValidator, type Umbel } from '@umbel/core';
import type { IssueList } from './issues.js';
import { analyzeWorkflow, type ParseWorkflowOptions, type Workflow } from './parse.js';

/** What the preflight reads: a validated spec or an outline of a partly valid file. */
export interface PreflightSource {
  readonly workers?: Readonly<Record<string, { readonly provider?: string; readonly cwd?: string }>>;
  readonly steps: readonly { readonly id?: string; readonly worker?: string; readonly schema?: string }[];
}

/** The absolute cwd of a worker: its `cwd:` relative to the workflow's directory, or that directory. */
export function workerCwdOf(dir: string, cwd: string | undefined): string {
  return cwd === undefined ? dir : isAbsolute(cwd) ? cwd : resolvePath(dir, cwd);
}

/** Add an issue for each unknown provider, missing worker cwd, and unusable schema file. */
export async function addPreflightIssues(engine: Pick<Umbel, 'providerIds'>, source: PreflightSource, dir: string, issues: IssueList): Promise<void> {
  const used = new Set(source.steps.map((s) => s.worker));
  for (const [key, worker] of Object.entries(source.workers ?? {})) {
    if (!used.has(key)) continue;
    if (worker.provider !== undefined && !engine.providerIds.includes(worker.provider)) {
      issues.add(['workers', key, 'provider'], `worker '${key}': unknown provider '${worker.provider}' (known: ${engine.providerIds.join(', ') || 'none'})`);
    }
    const cwd = workerCwdOf(dir, worker.cwd);
    const isDir = await stat(cwd).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDir) issues.add(['workers', key, worker.cwd ? 'cwd' : 'provider'], `worker '${key}': working directory does not exist: ${cwd}`);
  }
  for (const [i, step] of source.steps.entries()) {
    if (step.schema !== undefined) await checkSchemaFile(resolvePath(dir, step.schema), `step '${step.id}'`, ['steps', i, 'schema'], issues);
  }
}

async function checkSchemaFile(path: string, what: string, at: readonly (string | number)[], issues: IssueList): Promise<void> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    issues.add(at, `${what}: cannot read the schema file ${path}`);
    return;
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    issues.add(at, `${what}: the schema file ${path} is not JSON (${(error as Error).message})`);
    return;
  }
  try {
    ajvValidator(schema, null);
  } catch (error) {
    issues.add(at, `${what}: the schema file ${path} is not a usable JSON Schema (${(error as Error).message})`);
  }
}

/**
 * Parse a workflow and check it against the engine and the disk in one pass: everything
 * `parseWorkflow` checks (with `vars`/`env`, their values too) plus the preflight.
 * @throws WorkflowInvalidError listing every problem found.
 */
export async function loadWorkflow(engine: Pick<Umbel, 'providerIds'>, text: string, options: ParseWorkflowOptions = {}): Promise<Workflow> {
  const analysis = analyzeWorkflow(text, options);
  await addPreflightIssues(engine, analysis.outline, analysis.dir, analysis.issues);
  analysis.issues.throwIfAny();
  return analysis.workflow as Workflow;
}
