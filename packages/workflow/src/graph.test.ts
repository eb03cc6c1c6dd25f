import { describe, expect, it } from 'vitest';
import { ancestors, dependencies, findCycles, type GraphStep, type StepDependency, topologicalOrder, upstreamOf } from './index.js';

/** A deterministic pseudo-random sequence (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Steps s0…s(n-1), each on its own worker, s(i) needing s(i-1): listed last first when `reverse`. */
function chain(n: number, reverse = false): GraphStep[] {
  const steps = Array.from({ length: n }, (_, i) => ({ id: `s${i}`, worker: `w${i}`, needs: i > 0 ? [`s${i - 1}`] : [] }));
  return reverse ? steps.reverse() : steps;
}

/** Every step upstream of `step`, by a plain search (the reference `upstreamOf` is compared with). */
function bruteForce(deps: ReadonlyMap<string, readonly StepDependency[]>, step: string): Set<string> {
  const seen = new Set<string>();
  const stack = [step];
  while (stack.length) {
    for (const d of deps.get(stack.pop() as string) ?? []) {
      if (!seen.has(d.step)) {
        seen.add(d.step);
        stack.push(d.step);
      }
    }
  }
  return seen;
}

describe('the step graph', () => {
  it('dependencies: needs (deduplicated, never the step itself) plus the previous step on the same worker', () => {
    const deps = dependencies({
      steps: [
        { id: 'a', worker: 'w', needs: [] },
        { id: 'b', worker: 'v', needs: ['a', 'a', 'b', 'ghost'] },
        { id: 'c', worker: 'w', needs: ['b'] },
      ],
    });
    expect(deps.get('b')).toEqual([{ step: 'a', via: 'needs' }]);
    expect(deps.get('c')).toEqual([
      { step: 'b', via: 'needs' },
      { step: 'a', via: 'worker' },
    ]);
  });

  it('topologicalOrder: dependencies first, ties in list order; steps in or after a cycle are blocked', () => {
    const deps = dependencies({
      steps: [
        { id: 'x', needs: ['y'] },
        { id: 'y', needs: ['x'] },
        { id: 'after', needs: ['x'] },
        { id: 'b', needs: ['a'] },
        { id: 'a', needs: [] },
        { id: 'c', needs: [] },
      ],
    });
    expect(topologicalOrder(deps)).toEqual({ order: ['a', 'c', 'b'], blocked: ['x', 'y', 'after'] });
    expect(topologicalOrder(dependencies({ steps: chain(50_000, true) })).order[49_999]).toBe('s49999');
  });

  it('findCycles: a 50,000-step cycle without recursion, and each separate cycle once', () => {
    const ring = chain(50_000).map((s, i) => (i === 0 ? { ...s, needs: ['s49999'] } : s));
    const [cycle, ...rest] = findCycles(dependencies({ steps: ring }));
    expect(rest).toEqual([]);
    expect(cycle?.steps).toHaveLength(50_000);
    const two = findCycles(
      dependencies({
        steps: [
          { id: 'a', needs: ['b'] },
          { id: 'b', needs: ['a'] },
          { id: 'tail', needs: ['a'] },
          { id: 'c', needs: ['d'] },
          { id: 'd', needs: ['c'] },
        ],
      }),
    );
    expect(two.map((c) => [...c.steps].sort())).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
  });

  it('upstreamOf agrees with a plain search on a random graph, across several bit-parallel passes', () => {
    const next = random(7);
    const n = 5_000;
    const steps: GraphStep[] = Array.from({ length: n }, (_, i) => ({
      id: `n${i}`,
      worker: `w${Math.floor(next() * 50)}`,
      needs: i === 0 ? [] : Array.from({ length: 1 + Math.floor(next() * 3) }, () => `n${Math.floor(next() * i)}`),
    }));
    steps.push({ id: 'loop1', needs: ['loop2', 'n5'] }, { id: 'loop2', needs: ['loop1'] });
    const deps = dependencies({ steps });
    const askers = Array.from({ length: 200 }, () => `n${Math.floor(next() * n)}`);
    const queries = Array.from({ length: 8_000 }, (_, i) => ({ step: askers[i % askers.length] as string, target: `n${i % n}` }));
    queries.push({ step: 'loop1', target: 'n5' }, { step: 'n9', target: 'loop2' });
    const upstream = new Map(askers.map((a) => [a, bruteForce(deps, a)]));
    const expected = queries.map((q) => (q.step.startsWith('loop') ? undefined : (upstream.get(q.step) ?? bruteForce(deps, q.step)).has(q.target)));
    expect(new Set(queries.map((q) => q.target)).size).toBeGreaterThan(2 * 2_048);
    expect(expected.filter(Boolean).length).toBeGreaterThan(1_000);
    expect(upstreamOf(deps, queries)).toEqual(expected);
  });

  it('upstreamOf on a 50,000-step chain: every step asks about the one before it and about the first', { timeout: 20_000 }, () => {
    const deps = dependencies({ steps: chain(50_000, true) });
    const queries = Array.from({ length: 49_999 }, (_, i) => [
      { step: `s${i + 1}`, target: `s${i}` },
      { step: `s${i + 1}`, target: 's0' },
    ]).flat();
    const answers = upstreamOf(deps, [...queries, { step: 's0', target: 's49999' }]);
    expect(answers.slice(0, -1).every((a) => a === true)).toBe(true);
    expect(answers.at(-1)).toBe(false);
  });

  it('ancestors (kept for callers): every upstream step, with cycles too', () => {
    const deps = dependencies({
      steps: [
        { id: 'a', worker: 'w', needs: [] },
        { id: 'b', worker: 'v', needs: ['a'] },
        { id: 'c', worker: 'w', needs: ['b'] },
        { id: 'x', needs: ['y', 'c'] },
        { id: 'y', needs: ['x'] },
      ],
    });
    const all = ancestors(deps);
    expect([...(all.get('c') ?? [])].sort()).toEqual(['a', 'b']);
    expect([...(all.get('x') ?? [])].sort()).toEqual(['a', 'b', 'c', 'x', 'y']);
  });
});
