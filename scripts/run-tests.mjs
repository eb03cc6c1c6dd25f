#!/usr/bin/env node
// The whole test suite, as `pnpm test` (and .ci/run) runs it:
//   1. install the pinned real CLIs into the cache outside the repo (fails loudly when the
//      registry cannot be reached — the real-CLI tier never passes by skipping),
//   2. build every package (the bins, the MCP stdio tests and the pack check use dist/),
//   3. run every vitest project (files in parallel: see vitest.config.ts), then print the 20 slowest
//      files, the wall time, and a plain "N passed, N failed" line, and fail when anything failed or
//      nothing ran.
// `--real-only` runs only the real-CLI tier (`pnpm test:real`). Extra arguments go to vitest.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const started = Date.now();
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const realOnly = argv.includes('--real-only');
const passThrough = argv.filter((a) => a !== '--real-only');

function step(title, command, args, options = {}) {
  process.stderr.write(`\n▶ ${title}: ${command} ${args.join(' ')}\n`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.status !== 0) {
    process.stderr.write(`\n✗ ${title} failed (exit ${result.status ?? result.signal})\n`);
    process.exit(result.status || 1);
  }
}

step('install the pinned real CLIs', process.execPath, [join(root, 'scripts/install-real-clis.mjs')]);
step('build every package', 'pnpm', ['-r', '--filter', './packages/*', 'run', 'build']);
// the compiler over every package's sources and tests (vitest strips types without checking them)
if (!realOnly) step('typecheck every package', 'pnpm', ['typecheck']);

const out = mkdtempSync(join(tmpdir(), 'umbel-vitest-'));
const report = join(out, 'results.json');
const vitestArgs = [
  'exec',
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}`,
  ...(realOnly ? ['--project', 'real'] : []),
  ...passThrough,
];
process.stderr.write(`\n▶ tests: pnpm ${vitestArgs.join(' ')}\n`);
const result = spawnSync('pnpm', vitestArgs, { cwd: root, stdio: 'inherit', env: { ...process.env, UMBEL_TEST_RUN: '1' } });

/** The slowest test files of a vitest JSON report, as printable lines. */
function slowest(json, count = 20) {
  const files = (json.testResults ?? []).map((suite) => ({ ms: (suite.endTime ?? 0) - (suite.startTime ?? 0), name: suite.name.replace(`${root}/`, '') }));
  files.sort((a, b) => b.ms - a.ms);
  return files.slice(0, count).map((f) => `${(f.ms / 1000).toFixed(1).padStart(7)} s  ${f.name}`);
}

let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(report)) {
  const json = JSON.parse(readFileSync(report, 'utf8'));
  passed = json.numPassedTests ?? 0;
  failed = (json.numFailedTests ?? 0) + (json.numRuntimeErrorTestSuites ?? 0);
  skipped = (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0);
  for (const suite of json.testResults ?? []) if (suite.status === 'failed' && (suite.assertionResults ?? []).length === 0) failed++;
  process.stderr.write(`\nthe 20 slowest test files:\n${slowest(json).join('\n')}\n`);
}
process.stderr.write(`\nwall time: ${((Date.now() - started) / 60_000).toFixed(1)} min (install, build, typecheck and tests)\n`);
rmSync(out, { recursive: true, force: true });
process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
if (passed + failed === 0) {
  process.stderr.write('✗ no test ran\n');
  process.exit(1);
}
process.exit(failed > 0 || result.status !== 0 ? 1 : 0);
