/**
 * Every test file in the repository runs in exactly one vitest project, and the scripts' tiers
 * (test:unit, test:e2e, test:real) together cover every project: splitting the suite into tiers
 * must never drop a test.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SKIP = new Set(['node_modules', 'dist', '.git', '.turbo']);

function testFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) testFiles(path, out);
    else if (entry.name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}

type Listed = { file: string; projectName: string };
const listed = (): Listed[] =>
  JSON.parse(execFileSync('pnpm', ['exec', 'vitest', 'list', '--filesOnly', '--json'], { cwd: root, encoding: 'utf8', maxBuffer: 16 << 20 }));

/** The --project patterns of a package.json script. */
function projectsOf(script: string): RegExp[] {
  return [...script.matchAll(/--project\s+"?([^"\s]+)"?/g)].map(
    (m) => new RegExp(`^${(m[1] as string).replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`),
  );
}

describe('the suite is split without dropping a test', () => {
  const files = listed();

  it('every test file is in exactly one project', () => {
    const byFile = new Map<string, string[]>();
    for (const { file, projectName } of files) byFile.set(relative(root, file), [...(byFile.get(relative(root, file)) ?? []), projectName]);
    const missing = testFiles(root).filter((f) => !byFile.has(f));
    const twice = [...byFile].filter(([, projects]) => projects.length > 1);
    expect({ missing, twice }).toEqual({ missing: [], twice: [] });
  });

  it('test:unit, test:e2e and test:real together run every project; test:unit runs no e2e, real or pack test', () => {
    const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts as Record<string, string>;
    const unit = projectsOf(scripts['test:unit'] ?? '');
    const tiers = [...unit, ...projectsOf(scripts['test:e2e'] ?? ''), ...projectsOf(scripts['test:real'] ?? ''), /^real$/];
    const projects = [...new Set(files.map((f) => f.projectName))];
    expect(projects.filter((p) => !tiers.some((re) => re.test(p)))).toEqual([]);
    expect(projects.filter((p) => ['e2e', 'real', 'pack', 'test-fixtures'].includes(p) && unit.some((re) => re.test(p)))).toEqual([]);
  });
});
