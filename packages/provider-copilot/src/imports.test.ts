/**
 * A third party could have written this provider: its code imports nothing of umbel's but
 * `@umbel/provider` (the specification and the provider kit), and its package depends on nothing
 * else (the tests may also drive it through the engine: `@umbel/core`, `@umbel/core/testing`, vitest).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { describe, expect, it } from 'vitest';

const src = new URL('./', import.meta.url);
const files = readdirSync(src).filter((f) => f.endsWith('.ts'));
const PUBLIC = new Set(['@umbel/provider']);
const TESTS_ALSO = new Set(['@umbel/core', '@umbel/core/testing', 'vitest']);
const NODE = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/** Every module specifier a file imports or re-exports (static and dynamic). */
function specifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(
    /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;(])import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm,
  )) {
    out.push((m[1] ?? m[2] ?? m[3]) as string);
  }
  return out;
}

describe('@umbel/provider-copilot is built on public entry points only', () => {
  it('finds the imports it checks (the check can see a violation)', () => {
    expect(specifiers("import { x } from '@umbel/core/src/engine.js';\nexport * from '../../core/src/x.js';\nconst m = await import('node:fs');")).toEqual([
      '@umbel/core/src/engine.js',
      '../../core/src/x.js',
      'node:fs',
    ]);
    expect(files.length).toBeGreaterThan(8);
  });

  it.each(files)('%s imports only @umbel/provider, node built-ins and its own modules', (file) => {
    const text = readFileSync(new URL(file, src), 'utf8');
    const allowed = (s: string) =>
      PUBLIC.has(s) ||
      NODE.has(s) ||
      (s.startsWith('./') && !s.includes('..')) ||
      (file.endsWith('.test.ts') && (TESTS_ALSO.has(s) || s === '../package.json'));
    expect(specifiers(text).filter((s) => !allowed(s))).toEqual([]);
  });

  it('depends on nothing of umbel but @umbel/provider, as a peer', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.peerDependencies).toEqual({ '@umbel/provider': '>=0.1.0 <1' });
    expect(Object.keys(pkg.devDependencies ?? {}).sort()).toEqual(['@umbel/core', '@umbel/provider']);
  });
});
