/** The config file's `sandbox` default: applied to every spawn that does not say, never to a `sandbox: false`; pool members too, so -p claims only a member confined like it. */
import type { PoolClaimOptions, SpawnOptions, Umbel } from '@umbel/core';
import { describe, expect, it } from 'vitest';
import { effectiveSandbox, withSandboxDefault } from './sandbox-default.js';

describe('effectiveSandbox', () => {
  it('the call’s own word wins; absent, the default', () => {
    expect(effectiveSandbox(undefined, true)).toBe(true);
    expect(effectiveSandbox(undefined, { allow: ['a.example'] })).toEqual({ allow: ['a.example'] });
    expect(effectiveSandbox(false, true)).toBe(false);
    expect(effectiveSandbox(false, { write: ['/x'] })).toBe(false);
    expect(effectiveSandbox(true, undefined)).toBe(true);
    expect(effectiveSandbox(undefined, undefined)).toBeUndefined();
    expect(effectiveSandbox(undefined, false)).toBeUndefined();
  });

  it('a call’s widenings come on top of the default’s (each recorded)', () => {
    expect(effectiveSandbox(true, { allow: ['a.example'] })).toEqual({ allow: ['a.example'] });
    expect(effectiveSandbox({ allow: ['b.example'], write: ['/w'] }, { allow: ['a.example'], read: ['~/.npmrc'] })).toEqual({
      write: ['/w'],
      read: ['~/.npmrc'],
      allow: ['a.example', 'b.example'],
    });
    expect(effectiveSandbox({ allow: ['a.example'] }, { allow: ['a.example'] })).toEqual({ allow: ['a.example'] });
  });
});

describe('withSandboxDefault', () => {
  function fake() {
    const spawned: SpawnOptions[] = [];
    const claimed: PoolClaimOptions[] = [];
    const engine = {
      home: '/h',
      spawn: async (input: SpawnOptions) => {
        spawned.push(input);
        return { name: input.name } as never;
      },
      pool: {
        claim: async (input: PoolClaimOptions) => {
          claimed.push(input);
          return { worker: 'p-1', pool: 'p', reason: 'claimed' as const, refill: false };
        },
      },
    } as unknown as Umbel;
    return { engine, spawned, claimed };
  }

  it('without a default the engine is the same object', () => {
    const { engine } = fake();
    expect(withSandboxDefault(engine, undefined)).toBe(engine);
    expect(withSandboxDefault(engine, false)).toBe(engine);
  });

  it('every spawn that does not say is confined; sandbox: false opts out', async () => {
    const { engine, spawned } = fake();
    const wrapped = withSandboxDefault(engine, { allow: ['a.example'] });
    expect(wrapped.home).toBe('/h');
    await wrapped.spawn({ name: 'a', provider: 'claude', cwd: '/c' });
    await wrapped.spawn({ name: 'b', provider: 'claude', cwd: '/c', sandbox: false });
    await wrapped.spawn({ name: 'c', provider: 'claude', cwd: '/c', host: 'box', sandbox: { allow: ['b.example'] } });
    expect(spawned.map((s) => s.sandbox)).toEqual([{ allow: ['a.example'] }, false, { allow: ['a.example', 'b.example'] }]);
  });

  it('pool start and claim carry the default too: -p claims only a member confined like it; sandbox: false a plain one', async () => {
    const { engine, claimed } = fake();
    const started: unknown[] = [];
    const wrapped = withSandboxDefault({ ...engine, pool: { ...engine.pool, start: async (input: unknown) => started.push(input) as never } } as Umbel, {
      allow: ['a.example'],
    });
    expect(await wrapped.pool.claim({ provider: 'claude', cwd: '/c' })).toMatchObject({ reason: 'claimed' });
    await wrapped.pool.claim({ provider: 'claude', cwd: '/c', sandbox: false });
    expect(claimed.map((c) => c.sandbox)).toEqual([{ allow: ['a.example'] }, false]);
    await wrapped.pool.start({ provider: 'claude', cwd: '/c' });
    expect(started).toEqual([{ provider: 'claude', cwd: '/c', sandbox: { allow: ['a.example'] } }]);
  });
});
