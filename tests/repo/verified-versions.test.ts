/**
 * Every built-in provider's verified CLI versions agree with the pin the real-CLI tier runs
 * (test-fixtures/real/pins.json): listed oldest first, each once, the newest being the pin. A pin is
 * bumped only after that release passed the real tier (pnpm test:latest, docs/testing.md), together
 * with the provider's list. Runs the BUILT providers (`pnpm test` builds first).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const pins = JSON.parse(readFileSync(join(root, 'test-fixtures/real/pins.json'), 'utf8')) as Record<string, { version: string }>;

/** `a` comes before `b` (major.minor.patch, numerically). */
function olderVersion(a: string, b: string): boolean {
  const [x, y] = [a, b].map((v) => v.split(/[.-]/).slice(0, 3).map(Number)) as [number[], number[]];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] ?? 0) < (y[i] ?? 0);
  return false;
}

async function builtIn(id: string): Promise<{ provider: { verifiedVersions: readonly string[] }; list: readonly string[] }> {
  const file = join(root, 'packages', `provider-${id}`, 'dist', 'index.js');
  if (!existsSync(file)) throw new Error(`packages/provider-${id} is not built: run \`pnpm build\` first`);
  const m = await import(pathToFileURL(file).href);
  return { provider: m[id], list: m[`${id.toUpperCase()}_VERIFIED_VERSIONS`] };
}

describe('verified versions of the built-in providers', () => {
  it('orders versions by number', () => {
    expect(olderVersion('2.1.328', '2.1.332')).toBe(true);
    expect(olderVersion('0.9.0', '0.10.0')).toBe(true);
    expect(olderVersion('1.0.0', '1.0.0')).toBe(false);
    expect(olderVersion('1.2.0', '1.1.9')).toBe(false);
  });

  it.each(Object.keys(pins))('%s: its exported list, oldest first and each once, ends with the pinned release', async (id) => {
    const { provider, list } = await builtIn(id);
    expect(list?.length).toBeGreaterThan(0);
    expect(provider.verifiedVersions).toEqual([...list]);
    for (let i = 1; i < list.length; i++) expect(olderVersion(list[i - 1] as string, list[i] as string), `${list[i - 1]} before ${list[i]}`).toBe(true);
    expect(list.at(-1)).toBe(pins[id]?.version);
  });
});
