/**
 * Parse and validate a workflow file. Every problem is reported before anything is spawned, as a
 * `WorkflowInvalidError` whose message names the file, line and column and says what is wrong.
 */
import { dirname, resolve as resolvePath } from 'node:path';
import { WorkflowInvalidError } from '@umbel/core';
import { IssueList, type Locate, makeLocator } from './issues.js';
import { WorkflowSchema, type WorkflowSpec } from './schema.js';
import { loadYaml } from './source.js';
import { checkStructure, type Outline, outlineOf } from './structure.js';
import { scanTemplates } from './template.js';

export { IssueList, type SpecPath, type WorkflowIssue } from './issues.js';

/** A parsed, validated workflow and where it came from. */
export interface Workflow {
  readonly spec: WorkflowSpec;
  /** The YAML text as given. */
  readonly text: string;
  /** The file name as given (used in messages), when there is one. */
  readonly file?: string;
  /** Directory that `cwd:` and `schema:` are relative to (the file's directory, else the process cwd). */
  readonly dir: string;
  /** Line and column (1-based) of a path in the document; the closest existing node when the path is missing. */
  readonly locate: Locate;
}

/** Options of `parseWorkflow`. */
export interface ParseWorkflowOptions {
  /** File name, for messages; also the base of relative paths unless `dir` is given. */
  readonly file?: string;
  /** Base directory of relative `cwd:` and `schema:` paths. */
  readonly dir?: string;
  /** When given, `{{ vars.K }}` must name one of these. */
  readonly vars?: Readonly<Record<string, string>>;
  /** When given, `{{ env.X }}` and workers' `{fromEnv: X}` must name a variable set here. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

function friendlyZodMessage(issue: { code?: string; message: string; path: readonly PropertyKey[]; keys?: readonly string[] }): string {
  const field = issue.path.length ? String(issue.path[issue.path.length - 1]) : 'the document';
  if (issue.code === 'invalid_type' && /received undefined/.test(issue.message)) return `missing required field '${field}'`;
  if (issue.code === 'unrecognized_keys')
    return `unknown field${(issue.keys?.length ?? 0) > 1 ? 's' : ''} ${(issue.keys ?? []).map((k) => `'${k}'`).join(', ')}`;
  if (issue.code === 'invalid_union' && issue.path.includes('env')) return `'${field}': an env value is a string or {fromEnv: NAME}`;
  return `${field}: ${issue.message}`;
}

/** Everything validation found: the workflow when the schema accepted it, and every problem so far. */
export interface WorkflowAnalysis {
  readonly workflow?: Workflow;
  readonly outline: Outline;
  readonly issues: IssueList;
  readonly dir: string;
}

/**
 * Validate a workflow's YAML text in one pass and collect every problem: schema, worker
 * references, duplicate step ids, unknown or cyclic `needs`, template references and, with
 * `vars`/`env` given, their values.
 * @throws WorkflowInvalidError only for a file that is not YAML at all (syntax, size, aliases).
 */
export function analyzeWorkflow(text: string, options: ParseWorkflowOptions = {}): WorkflowAnalysis {
  const where = options.file ?? 'workflow';
  const { doc, lineCounter, value } = loadYaml(text, where);
  const locate = makeLocator(doc, text, lineCounter);
  const issues = new IssueList(options.file, locate);
  const dir = options.dir ?? (options.file !== undefined ? dirname(resolvePath(options.file)) : process.cwd());
  if (value === null || value === undefined) {
    throw new WorkflowInvalidError(`invalid workflow: ${where}:1:1: the file is empty (it needs workers: and steps:)`);
  }
  const parsed = WorkflowSchema.safeParse(value);
  if (!parsed.success) for (const issue of parsed.error.issues) addZodIssue(issues, issue);
  const outline = outlineOf(value);
  checkStructure(outline, issues);
  if (options.vars !== undefined || options.env !== undefined) collectBindingIssues(outline, options, issues);
  const workflow: Workflow | undefined = parsed.success
    ? { spec: parsed.data, text, ...(options.file !== undefined ? { file: options.file } : {}), dir, locate }
    : undefined;
  return { ...(workflow ? { workflow } : {}), outline, issues, dir };
}

/**
 * Parse a workflow's YAML text and validate it (see `analyzeWorkflow`).
 * @throws WorkflowInvalidError listing every problem, each as `file:line:col: what is wrong`.
 */
export function parseWorkflow(text: string, options: ParseWorkflowOptions = {}): Workflow {
  const analysis = analyzeWorkflow(text, options);
  analysis.issues.throwIfAny();
  return analysis.workflow as Workflow;
}

type ZodIssue = { code?: string; message: string; path: readonly PropertyKey[]; keys?: readonly string[] };

function addZodIssue(issues: IssueList, issue: ZodIssue): void {
  const path = issue.path as (string | number)[];
  if (issue.code === 'unrecognized_keys' && issue.keys?.length) {
    for (const key of issue.keys) issues.add([...path, key], `unknown field '${key}'${hintFor(issue.path, key)}`, { key: true });
  } else if (issue.code === 'invalid_key') {
    issues.add(path, `${String(issue.path[issue.path.length - 1])}: ${(issue as { issues?: { message: string }[] }).issues?.[0]?.message ?? issue.message}`, {
      key: true,
    });
  } else {
    issues.add(path, friendlyZodMessage(issue));
  }
}

function hintFor(path: readonly PropertyKey[], key: string): string {
  if (path[0] === 'steps' && path.length === 2) {
    if (key === 'run' || key === 'session') return " (use 'worker:')";
    if (key === 'wait' || key === 'until') return " (use 'timeout:', 'check:' or 'schema:')";
    return ' (a step has id, worker, prompt, needs, timeout, idleTimeout, check, schema, retries, checkTimeout, outputs)';
  }
  if (path[0] === 'workers' && path.length === 2) {
    if (key === 'allowed-tools' || key === 'allowed_tools') return " (use 'allowedTools:')";
    if (key === 'permission-mode' || key === 'permission_mode') return " (use 'permissionMode:')";
    return ' (a worker has provider, cwd, model, env, unattended, permissionMode, allowedTools)';
  }
  if (path.length === 0) return ' (a workflow has name, description, workers, steps)';
  return '';
}

/** The shape the binding checks read: a validated spec or an outline. */
interface BindingSource {
  readonly steps: readonly { readonly prompt?: string }[];
  readonly workers?: Readonly<Record<string, { readonly env?: Readonly<Record<string, unknown>> }>>;
}

/** Add an issue for every `{{ vars.K }}` not given, `{{ env.X }}` not set and worker `{fromEnv: X}` not set (only the kinds passed). */
function collectBindingIssues(
  source: BindingSource,
  bindings: { readonly vars?: Readonly<Record<string, string>>; readonly env?: Readonly<Record<string, string | undefined>> },
  issues: IssueList,
): void {
  const { vars, env } = bindings;
  const given = vars ? Object.keys(vars) : [];
  source.steps.forEach((step, i) => {
    if (step.prompt === undefined) return;
    const seen = new Map<string, number>();
    for (const ref of scanTemplates(step.prompt).refs) {
      const occurrence = seen.get(ref.raw) ?? 0;
      seen.set(ref.raw, occurrence + 1);
      const at = { needle: ref.raw, occurrence };
      if (ref.kind === 'vars' && vars !== undefined && !Object.hasOwn(vars, ref.name)) {
        const hint = given.length ? `; given: ${given.slice(0, 10).join(', ')}${given.length > 10 ? ', …' : ''}` : '';
        issues.add(['steps', i, 'prompt'], `${ref.raw}: no value for var '${ref.name}' (pass --var ${ref.name}=VALUE${hint})`, at);
      }
      if (ref.kind === 'env' && env !== undefined && env[ref.name] === undefined) {
        issues.add(['steps', i, 'prompt'], `${ref.raw}: environment variable ${ref.name} is not set`, at);
      }
    }
  });
  if (env === undefined) return;
  for (const [key, worker] of Object.entries(source.workers ?? {})) {
    for (const [name, value] of Object.entries(worker.env ?? {})) {
      const from = (value as { fromEnv?: unknown } | null)?.fromEnv;
      if (typeof value === 'object' && typeof from === 'string' && env[from] === undefined) {
        issues.add(['workers', key, 'env', name], `worker '${key}': env ${name} takes {fromEnv: ${from}}, but ${from} is not set`);
      }
    }
  }
}

/**
 * Check that every `{{ vars.K }}` is given, every `{{ env.X }}` and worker `{fromEnv: X}` is set.
 * Only the kinds whose source is passed are checked.
 * @throws WorkflowInvalidError located at the reference.
 */
export function checkBindings(
  workflow: Workflow,
  bindings: { readonly vars?: Readonly<Record<string, string>>; readonly env?: Readonly<Record<string, string | undefined>> },
): void {
  const issues = new IssueList(workflow.file, workflow.locate);
  collectBindingIssues(workflow.spec, bindings, issues);
  issues.throwIfAny();
}

/** Add the binding issues of a validated workflow to `issues` (the run's one-pass check). */
export function addBindingIssues(
  workflow: Workflow,
  bindings: { readonly vars?: Readonly<Record<string, string>>; readonly env?: Readonly<Record<string, string | undefined>> },
  issues: IssueList,
): void {
  collectBindingIssues(workflow.spec, bindings, issues);
}
