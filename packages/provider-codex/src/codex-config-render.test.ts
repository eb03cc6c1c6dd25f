// Every codex spawn renders the managed config.toml from its current text; once that text already
// holds every managed key (every spawn after the first in one folder), nothing is re-patched: the
// text comes back as it is, without the TOML patcher's ~15-20 ms on a cold process.
import { describe, expect, it, vi } from 'vitest';

const calls = vi.hoisted(() => ({ patch: 0 }));
vi.mock('@decimalturn/toml-patch', async (importOriginal) => {
  const real = await importOriginal<typeof import('@decimalturn/toml-patch')>();
  return {
    ...real,
    patch: (...args: Parameters<typeof real.patch>) => {
      calls.patch++;
      return real.patch(...args);
    },
  };
});

// this project's files share their worker's modules: what is tested is loaded afresh, under the mock
vi.resetModules();
const { codexHooks, readTomlScalar, renderManagedConfig } = await import('./codex-home.js');

const installed = [{ event: 'Stop', kind: 'stop' as const, command: 'sink stop' }];
const opts = { home: '/m/home', trust: ['/work/a'], hooks: codexHooks('/m/home', installed), userHome: '/u/.codex' };

describe('rendering the managed config.toml', () => {
  it('patches a text that lacks a managed key, and returns an already rendered one as it is without patching', () => {
    const once = renderManagedConfig('model = "m"\n', opts);
    expect(calls.patch).toBe(1);
    expect(renderManagedConfig(once, opts)).toBe(once);
    expect(calls.patch).toBe(1);
    // a text without its final newline gets one, as a patched text does
    expect(renderManagedConfig(once.trimEnd(), opts)).toBe(once);
    const other = renderManagedConfig(once, { ...opts, trust: ['/work/b'] });
    expect(calls.patch).toBe(2);
    expect(readTomlScalar(other, ['projects', '/work/b'], 'trust_level')).toBe('trusted');
  });
});
