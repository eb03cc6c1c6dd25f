/**
 * The checks between steps — worker references, step ids, `needs`, cycles and template
 * references — run on an outline of the document (the fields these checks read, where they have
 * the right type), so they report their problems in the same pass as the schema's, even for a
 * file the schema rejects. Linear in the size of the file.
 */
import { dependencies, findCycles, type StepCycle, type StepDependency, upstreamOf } from './graph.js';
import type { IssueList } from './issues.js';
import { WorkflowWorkerSchema } from './schema.js';
import { scanTemplates } from './template.js';

/** The fields of one step the cross-checks read (absent where the document has another type). */
export interface OutlineStep {
  readonly id?: string;
  readonly worker?: string;
  /** `needs:` entries, `undefined` where an entry is not a string. */
  readonly needs: readonly (string | undefined)[];
  readonly prompt?: string;
  readonly outputs: Readonly<Record<string, unknown>>;
  readonly schema?: string;
}

/** The fields of one worker the cross-checks and the preflight read. */
export interface OutlineWorker {
  /** Absent when the document gives a non-string. */
  readonly provider?: string;
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, unknown>>;
}

/** What the cross-checks read of a workflow; `steps[i]` is the document's `steps[i]`. */
export interface Outline {
  /** Absent when `workers:` is not a map. */
  readonly workers?: Readonly<Record<string, OutlineWorker>>;
  readonly steps: readonly OutlineStep[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const DEFAULT_PROVIDER = WorkflowWorkerSchema.shape.provider.parse(undefined);

/** `fields` without its undefined values (an optional field stays absent, never `undefined`). */
function present<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** The outline of a document's plain value (whatever its shape). */
export function outlineOf(value: unknown): Outline {
  const doc = isRecord(value) ? value : {};
  const workers = isRecord(doc.workers)
    ? Object.fromEntries(
        Object.entries(doc.workers).map(([key, w]): [string, OutlineWorker] => {
          const worker = isRecord(w) ? w : {};
          const provider = worker.provider === undefined ? DEFAULT_PROVIDER : str(worker.provider);
          return [key, present({ provider, cwd: str(worker.cwd), env: isRecord(worker.env) ? worker.env : undefined })];
        }),
      )
    : undefined;
  const steps = (Array.isArray(doc.steps) ? doc.steps : []).map((s): OutlineStep => {
    const step = isRecord(s) ? s : {};
    return {
      ...present({ id: str(step.id), worker: str(step.worker), prompt: str(step.prompt), schema: str(step.schema) }),
      needs: Array.isArray(step.needs) ? step.needs.map(str) : [],
      outputs: isRecord(step.outputs) ? step.outputs : {},
    };
  });
  return { ...(workers ? { workers } : {}), steps };
}

/** A list of names for a message: the first ten, then how many more. */
function names(list: readonly string[]): string {
  return list.length <= 10 ? list.join(', ') : `${list.slice(0, 10).join(', ')}, … (${list.length - 10} more)`;
}

/** Worker references, step ids, needs, cycles and template references. */
export function checkStructure(outline: Outline, issues: IssueList): void {
  const firstIndex = new Map<string, number>();
  outline.steps.forEach((step, i) => {
    if (step.id === undefined) return;
    const first = firstIndex.get(step.id);
    if (first === undefined) firstIndex.set(step.id, i);
    else issues.add(['steps', i, 'id'], `duplicate step id '${step.id}' (also step ${first + 1}, line ${issues.locate(['steps', first, 'id']).line})`);
  });
  const declared = outline.workers ? Object.keys(outline.workers) : [];
  outline.steps.forEach((step, i) => {
    if (outline.workers && step.worker !== undefined && !Object.hasOwn(outline.workers, step.worker)) {
      issues.add(['steps', i, 'worker'], `step '${step.id}' uses worker '${step.worker}', which is not declared under workers: (declared: ${names(declared)})`);
    }
    step.needs.forEach((need, j) => {
      if (need === undefined || step.id === undefined) return;
      if (need === step.id) issues.add(['steps', i, 'needs', j], `step '${step.id}' needs itself`);
      else if (!firstIndex.has(need)) issues.add(['steps', i, 'needs', j], `step '${step.id}' needs '${need}', which is not a step id`);
    });
  });
  const graphSteps = outline.steps.flatMap((s) =>
    s.id === undefined ? [] : [{ id: s.id, worker: s.worker, needs: s.needs.filter((n): n is string => n !== undefined) }],
  );
  const deps = dependencies({ steps: graphSteps });
  for (const cycle of findCycles(deps)) reportCycle(outline, firstIndex, cycle, issues);
  checkTemplates(outline, firstIndex, deps, issues);
}

/** Report a cycle from its earliest-listed step, with its middle elided when it is long. */
function reportCycle(outline: Outline, firstIndex: ReadonlyMap<string, number>, cycle: StepCycle, issues: IssueList): void {
  const at = (id: string) => firstIndex.get(id) as number;
  let start = 0;
  cycle.steps.forEach((id, i) => {
    if (at(id) < at(cycle.steps[start] as string)) start = i;
  });
  const steps = [...cycle.steps.slice(start), ...cycle.steps.slice(0, start)];
  const first = steps[0] as string;
  const shown = steps.length > 10 ? [...steps.slice(0, 4), `… (${steps.length - 8} more) …`, ...steps.slice(-4)] : steps;
  const because = cycle.implicit.slice(0, 3).map((e) => `'${e.to}' runs after '${e.from}' because both use worker '${outline.steps[at(e.to)]?.worker}'`);
  if (cycle.implicit.length > 3) because.push(`${cycle.implicit.length - 3} more such`);
  const note = because.length ? ` (${because.join('; ')}; steps on one worker run in list order)` : '';
  const size = steps.length > 10 ? ` of ${steps.length} steps` : '';
  issues.add(['steps', at(first), 'needs'], `steps form a cycle${size}: ${[...shown, first].join(' → ')}${note}`);
}

/** A `{{ steps.ID.… }}` reference waiting for the upstream answer. */
interface StepRef {
  readonly index: number;
  readonly raw: string;
  readonly target: string;
  readonly key?: string;
  readonly at: { needle: string; occurrence: number };
}

/** Template syntax, and that each `{{ steps.ID.… }}` names an upstream step (and a declared output). */
function checkTemplates(
  outline: Outline,
  firstIndex: ReadonlyMap<string, number>,
  deps: ReadonlyMap<string, readonly StepDependency[]>,
  issues: IssueList,
): void {
  const queries: { step: string; target: string }[] = [];
  const waiting: StepRef[] = [];
  outline.steps.forEach((step, i) => {
    if (step.prompt === undefined) return;
    const prompt = step.prompt;
    const { refs, problems } = scanTemplates(prompt);
    const seen = new Map<string, number>(); // occurrences of each text so far, in prompt order
    const next = (raw: string): number => {
      const n = seen.get(raw) ?? 0;
      seen.set(raw, n + 1);
      return n;
    };
    for (const p of problems) {
      // '{{' (never closed) is a prefix of every template: count them all.
      const occurrence = p.raw === '{{' ? countBefore(prompt, '{{', p.index) : next(p.raw);
      issues.add(['steps', i, 'prompt'], p.message, { needle: p.raw, occurrence });
    }
    for (const ref of refs) {
      const occurrence = next(ref.raw);
      if (ref.kind !== 'output' && ref.kind !== 'outputs') continue;
      const r: StepRef = { index: i, raw: ref.raw, target: ref.step, ...(ref.kind === 'outputs' ? { key: ref.key } : {}), at: { needle: ref.raw, occurrence } };
      if (!firstIndex.has(ref.step)) issues.add(['steps', i, 'prompt'], `${ref.raw} refers to step '${ref.step}', which does not exist`, r.at);
      else if (ref.step === step.id)
        issues.add(['steps', i, 'prompt'], `${ref.raw}: step '${ref.step}' is not upstream of '${step.id}' (add it to needs:)`, r.at);
      else if (step.id !== undefined && firstIndex.get(step.id) === i) {
        queries.push({ step: step.id, target: ref.step });
        waiting.push(r);
      } else checkOutputKey(outline, firstIndex, r, issues); // no id of its own (or a duplicate): upstream is unknowable
    }
  });
  const upstream = upstreamOf(deps, queries);
  waiting.forEach((r, n) => {
    if (upstream[n] === false)
      issues.add(['steps', r.index, 'prompt'], `${r.raw}: step '${r.target}' is not upstream of '${queries[n]?.step}' (add it to needs:)`, r.at);
    else checkOutputKey(outline, firstIndex, r, issues);
  });
}

/** How many times `needle` occurs in `text` before `index`. */
function countBefore(text: string, needle: string, index: number): number {
  let n = 0;
  for (let at = text.indexOf(needle); at !== -1 && at < index; at = text.indexOf(needle, at + 1)) n++;
  return n;
}

/** `{{ steps.ID.outputs.KEY }}`: KEY must be declared by step ID. */
function checkOutputKey(outline: Outline, firstIndex: ReadonlyMap<string, number>, ref: StepRef, issues: IssueList): void {
  if (ref.key === undefined) return;
  const outputs = outline.steps[firstIndex.get(ref.target) as number]?.outputs ?? {};
  if (Object.hasOwn(outputs, ref.key)) return;
  const declared = Object.keys(outputs);
  issues.add(
    ['steps', ref.index, 'prompt'],
    `${ref.raw}: step '${ref.target}' declares no output '${ref.key}' (${declared.length ? `declared: ${names(declared)}` : 'it has no outputs:'})`,
    ref.at,
  );
}
