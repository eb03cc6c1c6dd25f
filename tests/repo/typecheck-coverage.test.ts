/**
 * `pnpm typecheck` reaches every TypeScript file a test or a package runs: the packages' sources and
 * tests, the example provider, the real-CLI tier, the repository guards and the fixtures' tests. A
 * file outside every checked tsconfig is only ever compiled by vitest, which strips types without
 * checking them (a misspelt name then fails at run time, in the slowest tier).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The tsconfig files `pnpm typecheck` runs: each package's `typecheck` script and the root's own `-p` configs. */
function checkedConfigs(): string[] {
  const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as { scripts?: Record<string, string> };
  const configsOf = (script: string, dir: string) => [...script.matchAll(/tsc\b[^&]*?-p\s+(\S+)/g)].map((m) => join(dir, m[1] as string));
  const rootScript = read(join(root, 'package.json')).scripts?.typecheck ?? '';
  const configs = configsOf(rootScript, root);
  if (rootScript.includes('./packages/*')) {
    for (const name of readdirSync(join(root, 'packages'))) {
      const dir = join(root, 'packages', name);
      configs.push(...configsOf(read(join(dir, 'package.json')).scripts?.typecheck ?? '', dir));
    }
  }
  return configs.map((c) => (c.endsWith('.json') ? c : join(c, 'tsconfig.json')));
}

function filesOf(config: string): string[] {
  const { config: json } = ts.readConfigFile(config, ts.sys.readFile);
  return ts.parseJsonConfigFileContent(json, ts.sys, dirname(config)).fileNames.map((f) => relative(root, f));
}

/** Tracked .ts files a test run or a package build compiles (build and test tool configs aside). */
function runnableTsFiles(): string[] {
  const tracked = execFileSync('git', ['ls-files', '*.ts'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
  return tracked.filter((f) => !/\.d\.m?ts$/.test(f) && !/(^|\/)(tsup|vitest)(\.[a-z0-9]+)?\.config\.ts$/.test(f) && !f.includes('/template/'));
}

describe('pnpm typecheck', () => {
  it('checks every TypeScript file that the suite or a package runs', () => {
    const covered = new Set(checkedConfigs().flatMap(filesOf));
    expect(covered.size).toBeGreaterThan(100);
    expect(runnableTsFiles().filter((f) => !covered.has(f))).toEqual([]);
  });
});
