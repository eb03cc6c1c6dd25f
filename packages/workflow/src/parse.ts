/**
 * Parse and validate a workflow file. Every problem is reported before anything is spawned, as a
 * `WorkflowInvalidError` whose message names the file, line and column and says what is wrong.
 */
import { dirname, resolve as resolvePath } from 'node:path';
import { WorkflowInvalidError } from '@umbel/core';
import { isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { ancestors, dependencies, findCycle } from './graph.js';
import { WorkflowSchema, type WorkflowSpec } from './schema.js';
import { scanTemplates, type TemplateRef } from './template.js';

/** A path into the workflow document (`['steps', 1, 'prompt']`). */
export type SpecPath = readonly (string | number)[];

/** One validation problem, located in the file. */
export interface WorkflowIssue {
  readonly path: string;
  readonly line: number;
  readonly col: number;
  readonly message: string;
}

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
  locate(path: SpecPath, options?: { key?: boolean; needle?: string; occurrence?: number }): { line: number; col: number };
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

/** Collects issues and throws them as one WorkflowInvalidError. */
export class IssueList {
  readonly issues: WorkflowIssue[] = [];
  readonly locate: Workflow['locate'];
  private readonly file: string | undefined;
  constructor(file: string | undefined, locate: Workflow['locate']) {
    this.file = file;
    this.locate = locate;
  }

  /** Add an issue at `path`. */
  add(path: SpecPath, message: string, options?: { key?: boolean; needle?: string; occurrence?: number }): void {
    const { line, col } = this.locate(path, options);
    this.issues.push({ path: formatPath(path), line, col, message });
  }

  /** Throw when there is any issue. */
  throwIfAny(): void {
    if (this.issues.length === 0) return;
    const sorted = [...this.issues].sort((a, b) => a.line - b.line || a.col - b.col);
    const where = this.file ?? 'workflow';
    const lines = sorted.map((i) => `${where}:${i.line}:${i.col}: ${i.message}`);
    const head = sorted.length === 1 ? 'invalid workflow' : `invalid workflow (${sorted.length} problems)`;
    throw new WorkflowInvalidError(
      `${head}: ${lines.join('\n')}`,
      sorted.map((i) => ({ path: i.path, message: `${where}:${i.line}:${i.col}: ${i.message}` })),
    );
  }
}

function formatPath(path: SpecPath): string {
  return path.map((p) => String(p)).join('.');
}

function makeLocator(doc: ReturnType<typeof parseDocument>, text: string, lineCounter: LineCounter): Workflow['locate'] {
  return (path, options = {}) => {
    let node: unknown = doc.contents;
    let offset = (doc.contents as Node | null)?.range?.[0] ?? 0;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i];
      const last = i === path.length - 1;
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
        if (!pair) break;
        const keyNode = pair.key as Node;
        if (last && options.key) {
          offset = keyNode.range?.[0] ?? offset;
          node = undefined;
          break;
        }
        const value = pair.value as Node | null;
        if (value?.range && !(isScalar(value) && value.value === null && value.range[0] === value.range[1])) {
          node = value;
          offset = value.range[0];
        } else {
          node = undefined;
          offset = keyNode.range?.[0] ?? offset;
          break;
        }
      } else if (isSeq(node)) {
        const item = node.items[Number(seg)] as Node | undefined;
        if (!item?.range) break;
        node = item;
        offset = item.range[0];
      } else {
        break;
      }
    }
    if (options.needle && node && (node as Node).range) {
      const range = (node as Node).range as [number, number, number];
      const source = text.slice(range[0], range[1]);
      let at = -1;
      for (let n = 0; n <= (options.occurrence ?? 0); n++) {
        at = source.indexOf(options.needle, at + 1);
        if (at === -1) break;
      }
      if (at !== -1) offset = range[0] + at;
    }
    return lineCounter.linePos(offset);
  };
}

function friendlyZodMessage(issue: { code?: string; message: string; path: readonly PropertyKey[]; keys?: readonly string[] }): string {
  const field = issue.path.length ? String(issue.path[issue.path.length - 1]) : 'the document';
  if (issue.code === 'invalid_type' && /received undefined/.test(issue.message)) return `missing required field '${field}'`;
  if (issue.code === 'unrecognized_keys')
    return `unknown field${(issue.keys?.length ?? 0) > 1 ? 's' : ''} ${(issue.keys ?? []).map((k) => `'${k}'`).join(', ')}`;
  if (issue.code === 'invalid_union' && issue.path.includes('env')) return `'${field}': an env value is a string or {fromEnv: NAME}`;
  return `${field}: ${issue.message}`;
}

/**
 * Parse a workflow's YAML text and validate it: schema, worker references, duplicate step ids,
 * unknown or cyclic `needs`, and every template reference. With `vars`/`env` given, also that each
 * `{{ vars.K }}`, `{{ env.X }}` and `{fromEnv: X}` has a value.
 * @throws WorkflowInvalidError with `file:line:col: what is wrong` per problem.
 */
export function parseWorkflow(text: string, options: ParseWorkflowOptions = {}): Workflow {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const locate = makeLocator(doc, text, lineCounter);
  const issues = new IssueList(options.file, locate);
  const where = options.file ?? 'workflow';
  if (doc.errors.length > 0) {
    const lines = doc.errors.map((e) => {
      const pos = lineCounter.linePos(e.pos[0]);
      return `${where}:${pos.line}:${pos.col}: ${e.message.split('\n')[0]}`;
    });
    throw new WorkflowInvalidError(
      `invalid workflow: not valid YAML: ${lines.join('\n')}`,
      lines.map((message) => ({ path: '', message })),
    );
  }
  const raw: unknown = doc.toJS({ maxAliasCount: 100 });
  if (raw === null || raw === undefined) {
    throw new WorkflowInvalidError(`invalid workflow: ${where}:1:1: the file is empty (it needs workers: and steps:)`);
  }
  const parsed = WorkflowSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const keys = (issue as { keys?: string[] }).keys;
      if (issue.code === 'unrecognized_keys' && keys?.length) {
        for (const key of keys) issues.add([...(issue.path as (string | number)[]), key], `unknown field '${key}'${hintFor(issue.path, key)}`, { key: true });
      } else if ((issue.code as string) === 'invalid_key') {
        issues.add(
          issue.path as (string | number)[],
          `${String(issue.path[issue.path.length - 1])}: ${(issue as { issues?: { message: string }[] }).issues?.[0]?.message ?? issue.message}`,
          { key: true },
        );
      } else {
        issues.add(issue.path as (string | number)[], friendlyZodMessage(issue));
      }
    }
    issues.throwIfAny();
  }
  const spec = (parsed as { data: WorkflowSpec }).data;
  checkStructure(spec, issues);
  issues.throwIfAny();
  const workflow: Workflow = {
    spec,
    text,
    ...(options.file !== undefined ? { file: options.file } : {}),
    dir: options.dir ?? (options.file !== undefined ? dirname(resolvePath(options.file)) : process.cwd()),
    locate,
  };
  if (options.vars !== undefined || options.env !== undefined) checkBindings(workflow, options);
  return workflow;
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

/** Worker references, step ids, needs, cycles and template references. */
function checkStructure(spec: WorkflowSpec, issues: IssueList): void {
  const firstIndex = new Map<string, number>();
  spec.steps.forEach((step, i) => {
    const first = firstIndex.get(step.id);
    if (first !== undefined) {
      issues.add(['steps', i, 'id'], `duplicate step id '${step.id}' (also step ${first + 1}, line ${issues.locate(['steps', first, 'id']).line})`);
    } else {
      firstIndex.set(step.id, i);
    }
    if (!Object.hasOwn(spec.workers, step.worker)) {
      const known = Object.keys(spec.workers);
      issues.add(
        ['steps', i, 'worker'],
        `step '${step.id}' uses worker '${step.worker}', which is not declared under workers: (declared: ${known.join(', ')})`,
      );
    }
    step.needs.forEach((need, j) => {
      if (need === step.id) issues.add(['steps', i, 'needs', j], `step '${step.id}' needs itself`);
      else if (!firstIndex.has(need) && !spec.steps.some((s) => s.id === need))
        issues.add(['steps', i, 'needs', j], `step '${step.id}' needs '${need}', which is not a step id`);
    });
  });
  if (issues.issues.length > 0) return;
  const deps = dependencies(spec);
  const cycle = findCycle(deps);
  if (cycle) {
    const first = cycle.steps[0] as string;
    const index = spec.steps.findIndex((s) => s.id === first);
    const note = cycle.implicit.length
      ? ` (${cycle.implicit.map((e) => `'${e.to}' runs after '${e.from}' because both use worker '${spec.steps.find((s) => s.id === e.to)?.worker}'`).join('; ')}; steps on one worker run in list order)`
      : '';
    issues.add(['steps', index, 'needs'], `steps form a cycle: ${[...cycle.steps, first].join(' → ')}${note}`);
    return;
  }
  const upstream = ancestors(deps);
  spec.steps.forEach((step, i) => {
    const { refs, problems } = scanTemplates(step.prompt);
    for (const p of problems) issues.add(['steps', i, 'prompt'], p.message, { needle: p.raw, occurrence: occurrenceOf(step.prompt, p.raw, p.index) });
    for (const ref of refs) {
      if (ref.kind !== 'output' && ref.kind !== 'outputs') continue;
      const at = { needle: ref.raw, occurrence: occurrenceOf(step.prompt, ref.raw, ref.index) };
      const target = spec.steps.find((s) => s.id === ref.step);
      if (!target) {
        issues.add(['steps', i, 'prompt'], `${ref.raw} refers to step '${ref.step}', which does not exist`, at);
      } else if (ref.step === step.id || !upstream.get(step.id)?.has(ref.step)) {
        issues.add(['steps', i, 'prompt'], `${ref.raw}: step '${ref.step}' is not upstream of '${step.id}' (add it to needs:)`, at);
      } else if (ref.kind === 'outputs' && !Object.hasOwn(target.outputs, ref.key)) {
        const declared = Object.keys(target.outputs);
        issues.add(
          ['steps', i, 'prompt'],
          `${ref.raw}: step '${ref.step}' declares no output '${ref.key}' (${declared.length ? `declared: ${declared.join(', ')}` : 'it has no outputs:'})`,
          at,
        );
      }
    }
  });
}

function occurrenceOf(text: string, needle: string, index: number): number {
  let n = 0;
  let at = text.indexOf(needle);
  while (at !== -1 && at < index) {
    n++;
    at = text.indexOf(needle, at + 1);
  }
  return n;
}

/** All `{{ vars.* }}` / `{{ env.* }}` references of a workflow, with their place. */
function bindingRefs(workflow: Workflow): { ref: TemplateRef & { kind: 'vars' | 'env' }; step: number; occurrence: number }[] {
  const out: { ref: TemplateRef & { kind: 'vars' | 'env' }; step: number; occurrence: number }[] = [];
  workflow.spec.steps.forEach((step, i) => {
    for (const ref of scanTemplates(step.prompt).refs) {
      if (ref.kind === 'vars' || ref.kind === 'env') out.push({ ref, step: i, occurrence: occurrenceOf(step.prompt, ref.raw, ref.index) });
    }
  });
  return out;
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
  const { vars, env } = bindings;
  for (const { ref, step, occurrence } of bindingRefs(workflow)) {
    const at = { needle: ref.raw, occurrence };
    if (ref.kind === 'vars' && vars !== undefined && !Object.hasOwn(vars, ref.name)) {
      const given = Object.keys(vars);
      issues.add(
        ['steps', step, 'prompt'],
        `${ref.raw}: no value for var '${ref.name}' (pass --var ${ref.name}=VALUE${given.length ? `; given: ${given.join(', ')}` : ''})`,
        at,
      );
    }
    if (ref.kind === 'env' && env !== undefined && env[ref.name] === undefined) {
      issues.add(['steps', step, 'prompt'], `${ref.raw}: environment variable ${ref.name} is not set`, at);
    }
  }
  if (env !== undefined) {
    for (const [key, worker] of Object.entries(workflow.spec.workers)) {
      for (const [name, value] of Object.entries(worker.env ?? {})) {
        if (typeof value === 'object' && env[value.fromEnv] === undefined) {
          issues.add(['workers', key, 'env', name], `worker '${key}': env ${name} takes {fromEnv: ${value.fromEnv}}, but ${value.fromEnv} is not set`);
        }
      }
    }
  }
  issues.throwIfAny();
}
