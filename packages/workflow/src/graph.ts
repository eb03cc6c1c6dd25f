/**
 * The step graph: explicit `needs:` edges plus the implicit order of steps that share a worker
 * (they run one after the other, in list order, because one worker holds one conversation).
 * Every algorithm here is iterative and linear (or bit-parallel) in the size of the graph, so a
 * 10,000-step file neither overflows the stack nor takes quadratic time or memory.
 */

/** One dependency of a step. */
export interface StepDependency {
  readonly step: string;
  /** `needs` = declared; `worker` = the previous step on the same worker. */
  readonly via: 'needs' | 'worker';
}

/** What the graph needs of a step (a validated step, or a partly valid one while validating). */
export interface GraphStep {
  readonly id: string;
  readonly worker?: string | undefined;
  readonly needs: readonly string[];
}

/**
 * Dependencies of every step, by step id: only ids that exist, and never the step itself (unknown
 * `needs` and a step that needs itself are validation errors).
 */
export function dependencies(spec: { readonly steps: readonly GraphStep[] }): Map<string, StepDependency[]> {
  const ids = new Set(spec.steps.map((s) => s.id));
  const lastOnWorker = new Map<string, string>();
  const deps = new Map<string, StepDependency[]>();
  for (const step of spec.steps) {
    if (deps.has(step.id)) continue; // duplicate id: reported elsewhere
    const list: StepDependency[] = [];
    const seen = new Set<string>();
    for (const need of step.needs) {
      if (ids.has(need) && need !== step.id && !seen.has(need)) {
        seen.add(need);
        list.push({ step: need, via: 'needs' });
      }
    }
    const previous = step.worker === undefined ? undefined : lastOnWorker.get(step.worker);
    if (previous !== undefined && !seen.has(previous)) list.push({ step: previous, via: 'worker' });
    deps.set(step.id, list);
    if (step.worker !== undefined) lastOnWorker.set(step.worker, step.id);
  }
  return deps;
}

/**
 * Kahn's algorithm: `order` lists every step that is not in or after a cycle, each after all of
 * its dependencies (ties in list order); `blocked` holds the rest (empty for an acyclic graph).
 */
export function topologicalOrder(deps: ReadonlyMap<string, readonly StepDependency[]>): { order: string[]; blocked: string[] } {
  const waitingOn = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const [id, list] of deps) {
    waitingOn.set(id, list.length);
    for (const dep of list) {
      const known = dependents.get(dep.step);
      if (known) known.push(id);
      else dependents.set(dep.step, [id]);
    }
  }
  const order: string[] = [];
  for (const [id, n] of waitingOn) if (n === 0) order.push(id);
  for (let i = 0; i < order.length; i++) {
    for (const next of dependents.get(order[i] as string) ?? []) {
      const left = (waitingOn.get(next) as number) - 1;
      waitingOn.set(next, left);
      if (left === 0) order.push(next);
    }
  }
  const placed = new Set(order);
  return { order, blocked: [...deps.keys()].filter((id) => !placed.has(id)) };
}

/** A cycle, in execution order (each step waits for the one before it; the first waits for the last). */
export interface StepCycle {
  readonly steps: string[];
  /** Edges of the cycle that come from the worker order rather than `needs:`. */
  readonly implicit: { from: string; to: string }[];
}

/**
 * Cycles among the steps, at least one per group of steps that cannot start: each step left over
 * by Kahn's algorithm waits for another left-over step, so following those edges must come back
 * to a step already on the path. Each step is walked once.
 */
export function findCycles(deps: ReadonlyMap<string, readonly StepDependency[]>): StepCycle[] {
  const blocked = new Set(topologicalOrder(deps).blocked);
  const done = new Set<string>();
  const cycles: StepCycle[] = [];
  for (const start of blocked) {
    if (done.has(start)) continue;
    const path: string[] = [];
    const onPath = new Map<string, number>();
    let id: string | undefined = start;
    while (id !== undefined && !done.has(id) && !onPath.has(id)) {
      onPath.set(id, path.length);
      path.push(id);
      id = deps.get(id)?.find((d) => blocked.has(d.step))?.step;
    }
    if (id !== undefined && onPath.has(id)) cycles.push(cycleOf(deps, path.slice(onPath.get(id))));
    for (const p of path) done.add(p);
  }
  return cycles;
}

/** `waits[i]` waits for `waits[i+1]` (and the last for the first); present it in execution order. */
function cycleOf(deps: ReadonlyMap<string, readonly StepDependency[]>, waits: string[]): StepCycle {
  const steps = [...waits].reverse();
  const implicit: { from: string; to: string }[] = [];
  for (let i = 0; i < steps.length; i++) {
    const from = steps[i] as string;
    const to = steps[(i + 1) % steps.length] as string;
    if (deps.get(to)?.some((d) => d.step === from && d.via === 'worker')) implicit.push({ from, to });
  }
  return { steps, implicit };
}

/** The first cycle found (see `findCycles`), or undefined. */
export function findCycle(deps: ReadonlyMap<string, readonly StepDependency[]>): StepCycle | undefined {
  return findCycles(deps)[0];
}

/**
 * Transitive upstream steps of each step. The result is inherently quadratic for a long chain
 * (every step holds all the steps before it); validation uses `upstreamOf` instead.
 */
export function ancestors(deps: ReadonlyMap<string, readonly StepDependency[]>): Map<string, Set<string>> {
  const result = new Map<string, Set<string>>();
  const { order, blocked } = topologicalOrder(deps);
  for (const id of order) {
    const set = new Set<string>();
    for (const dep of deps.get(id) ?? []) {
      set.add(dep.step);
      for (const a of result.get(dep.step) ?? []) set.add(a);
    }
    result.set(id, set);
  }
  for (const id of blocked) result.set(id, reachable(deps, id));
  return result;
}

/** Every step `id` waits for, directly or not (explicit stack; works with cycles). */
function reachable(deps: ReadonlyMap<string, readonly StepDependency[]>, id: string): Set<string> {
  const seen = new Set<string>();
  const stack = [id];
  while (stack.length > 0) {
    for (const dep of deps.get(stack.pop() as string) ?? []) {
      if (!seen.has(dep.step)) {
        seen.add(dep.step);
        stack.push(dep.step);
      }
    }
  }
  return seen;
}

/** Most 32-bit words per step in one pass of `upstreamOf` (2,048 targets at a time). */
const MAX_WORDS = 64;

/**
 * For each query `{step, target}`: is `target` upstream of `step`? `true`/`false`, or `undefined`
 * when `step` is in or after a cycle (there the question has no useful answer). Computed once for
 * all queries: a direct dependency at once, the rest bit-parallel over their distinct targets in
 * topological order — O(steps × targets / 32) word operations at worst (a few million for the
 * largest file), O(steps) memory.
 */
export function upstreamOf(
  deps: ReadonlyMap<string, readonly StepDependency[]>,
  queries: readonly { readonly step: string; readonly target: string }[],
): (boolean | undefined)[] {
  const { order } = topologicalOrder(deps);
  const position = new Map(order.map((id, i) => [id, i]));
  const depIndexes = order.map((id) => (deps.get(id) ?? []).map((d) => position.get(d.step) as number));
  // A direct dependency (the usual reference: a step in needs:, or the previous one on the worker) needs no search.
  const direct = new Set<string>();
  for (const [id, list] of deps) for (const d of list) direct.add(`${id}\n${d.step}`);
  const answers: (boolean | undefined)[] = queries.map((q) => (position.has(q.step) ? direct.has(`${q.step}\n${q.target}`) : undefined));
  const targets = [...new Set(queries.filter((q, i) => answers[i] === false && position.has(q.target)).map((q) => q.target))];
  const words = Math.min(MAX_WORDS, Math.ceil(targets.length / 32));
  const span = words * 32;
  const pending = new Map<string, number[]>(); // target → queries about it
  queries.forEach((q, i) => {
    if (answers[i] !== false || !position.has(q.target)) return;
    const list = pending.get(q.target);
    if (list) list.push(i);
    else pending.set(q.target, [i]);
  });
  for (let first = 0; first < targets.length; first += span) {
    const chunk = targets.slice(first, first + span);
    const bits = new Uint32Array(order.length * words);
    const own = new Map(chunk.map((t, bit) => [position.get(t) as number, bit]));
    for (let node = 0; node < order.length; node++) {
      const base = node * words;
      for (const dep of depIndexes[node] as number[]) {
        for (let w = 0; w < words; w++) bits[base + w] = (bits[base + w] as number) | (bits[dep * words + w] as number);
        const bit = own.get(dep);
        if (bit !== undefined) bits[base + (bit >>> 5)] = (bits[base + (bit >>> 5)] as number) | (1 << (bit & 31));
      }
    }
    chunk.forEach((target, bit) => {
      for (const i of pending.get(target) ?? []) {
        const node = position.get(queries[i]?.step as string) as number;
        answers[i] = ((bits[node * words + (bit >>> 5)] as number) & (1 << (bit & 31))) !== 0;
      }
    });
  }
  return answers;
}
