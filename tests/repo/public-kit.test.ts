/**
 * Providers a third party could have written: their code imports nothing of umbel's but
 * `@umbel/provider` (the specification and the provider kit), and their packages depend on nothing
 * else (their tests may also drive them through the engine: `@umbel/core`, `@umbel/core/testing`,
 * vitest). One check for every such provider, run on its real sources and package.json.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf } from './graph.js';

const ROOT = join(import.meta.dirname, '..', '..');
/** The providers built on the public kit alone (the first-party ones that predate it may use more). */
const PUBLIC_KIT_PROVIDERS = ['provider-opencode', 'provider-copilot', 'provider-qwen'];
const PUBLIC = new Set(['@umbel/provider']);
const TESTS_ALSO = new Set(['@umbel/core', '@umbel/core/testing', 'vitest']);
const NODE = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/** The imports of `file` that a provider on the public kit may not make. */
function forbiddenImports(file: string, text: string): string[] {
  const allowed = (s: string) =>
    PUBLIC.has(s) || NODE.has(s) || (s.startsWith('./') && !s.includes('..')) || (file.endsWith('.test.ts') && (TESTS_ALSO.has(s) || s === '../package.json'));
  return importsOf(text).filter((s) => !allowed(s));
}

it('the check sees a private import, a way out of src, and a test-only import in library code', () => {
  const text =
    "import { x } from '@umbel/core/src/engine.js';\nexport * from '../../core/src/x.js';\nconst m = await import('node:fs');\nimport { it } from 'vitest';";
  expect(forbiddenImports('provider.ts', text)).toEqual(['@umbel/core/src/engine.js', '../../core/src/x.js', 'vitest']);
  expect(forbiddenImports('provider.test.ts', text)).toEqual(['@umbel/core/src/engine.js', '../../core/src/x.js']);
});

describe.each(PUBLIC_KIT_PROVIDERS)('@umbel/%s is built on public entry points only', (dir) => {
  const src = join(ROOT, 'packages', dir, 'src');
  const files = readdirSync(src).filter((f) => f.endsWith('.ts'));

  it('imports only @umbel/provider, node built-ins and its own modules (tests: also core, its testing kit, vitest)', () => {
    expect(files.length).toBeGreaterThan(5);
    const found = files.flatMap((file) => forbiddenImports(file, readFileSync(join(src, file), 'utf8')).map((s) => `${file}: ${s}`));
    expect(found).toEqual([]);
  });

  it('depends on nothing of umbel but @umbel/provider, as a peer', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8'));
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.peerDependencies).toEqual({ '@umbel/provider': '>=0.1.0 <1' });
    expect(Object.keys(pkg.devDependencies ?? {}).sort()).toEqual(['@umbel/core', '@umbel/provider']);
  });
});
