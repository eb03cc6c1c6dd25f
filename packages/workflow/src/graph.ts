/**
 * The step graph: explicit `needs:` edges plus the implicit order of steps that share a worker
 * (they run one after the other, in list order, because one worker holds one conversation).
 */
import type { WorkflowSpec } from './schema.js';

/** One dependency of a step. */
export interface StepDependency {
  readonly step: string;
  /** `needs` = declared; `worker` = the previous step on the same worker. */
  readonly via: 'needs' | 'worker';
}

/** Dependencies of every step, by step id (only ids that exist; unknown `needs` are validation errors). */
export function dependencies(spec: Pick<WorkflowSpec, 'steps'>): Map<string, StepDependency[]> {
  const ids = new Set(spec.steps.map((s) => s.id));
  const lastOnWorker = new Map<string, string>();
  const deps = new Map<string, StepDependency[]>();
  for (const step of spec.steps) {
    if (deps.has(step.id)) continue; // duplicate id: reported elsewhere
    const list: StepDependency[] = [];
    for (const need of step.needs) {
      if (ids.has(need) && !list.some((d) => d.step === need)) list.push({ step: need, via: 'needs' });
    }
    const previous = lastOnWorker.get(step.worker);
    if (previous !== undefined && !list.some((d) => d.step === previous)) list.push({ step: previous, via: 'worker' });
    deps.set(step.id, list);
    lastOnWorker.set(step.worker, step.id);
  }
  return deps;
}

/** The first cycle found, as a list of step ids whose last element depends on the first, or undefined. */
export function findCycle(deps: ReadonlyMap<string, readonly StepDependency[]>): { steps: string[]; implicit: { from: string; to: string }[] } | undefined {
  const color = new Map<string, 0 | 1 | 2>();
  const stack: string[] = [];
  let found: string[] | undefined;
  const visit = (id: string): void => {
    if (found) return;
    color.set(id, 1);
    stack.push(id);
    for (const dep of deps.get(id) ?? []) {
      const c = color.get(dep.step) ?? 0;
      if (c === 1) {
        found = stack.slice(stack.indexOf(dep.step));
        return;
      }
      if (c === 0) visit(dep.step);
      if (found) return;
    }
    stack.pop();
    color.set(id, 2);
  };
  for (const id of deps.keys()) if ((color.get(id) ?? 0) === 0) visit(id);
  if (!found) return undefined;
  // found[i] depends on found[i+1]; present it in execution order (a → b means b waits for a).
  const order = [...found].reverse();
  const implicit: { from: string; to: string }[] = [];
  for (let i = 0; i < order.length; i++) {
    const from = order[i] as string;
    const to = order[(i + 1) % order.length] as string;
    if (deps.get(to)?.some((d) => d.step === from && d.via === 'worker')) implicit.push({ from, to });
  }
  return { steps: order, implicit };
}

/** Transitive upstream steps of each step (graph must be acyclic). */
export function ancestors(deps: ReadonlyMap<string, readonly StepDependency[]>): Map<string, Set<string>> {
  const memo = new Map<string, Set<string>>();
  const of = (id: string): Set<string> => {
    const known = memo.get(id);
    if (known) return known;
    const set = new Set<string>();
    memo.set(id, set);
    for (const dep of deps.get(id) ?? []) {
      set.add(dep.step);
      for (const a of of(dep.step)) set.add(a);
    }
    return set;
  };
  for (const id of deps.keys()) of(id);
  return memo;
}
