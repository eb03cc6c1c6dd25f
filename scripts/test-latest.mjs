#!/usr/bin/env node
// `pnpm test:latest`: the real-CLI tier against the NEWEST release of each pinned CLI, one CLI at a
// time. Not part of `pnpm test` (a vendor release must not turn CI red). See docs/testing.md.
//
//   1. `npm view <package> dist-tags.latest` for each CLI of test-fixtures/real/pins.json;
//   2. scripts/install-real-clis.mjs with UMBEL_REAL_<ID>_VERSION=<latest>: the release lands in the
//      real-CLI cache next to the pinned one (absolute paths, auto-updaters off, --version checked);
//   3. vitest's `real` project with the same override: the CLI's own files (tests/real/<id>*.test.ts)
//      whole, and its tests in the shared files (`-t` on its name), each with a JSON report;
//   4. a table (or --json) on stdout: provider, pinned, latest, pass/fail per scenario.
// Everything the children print goes to stderr. Exit 0 when every CLI that ran passed, else 1.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readPinsFile, versionOverrideVar } from '../test-fixtures/real/clis.mjs';
import {
  enginesRefuse,
  exitCode,
  firstLine,
  namePattern,
  parseArgs,
  renderJson,
  renderTable,
  scenariosFromReport,
  selectFiles,
  USAGE,
  UsageError,
} from './lib/latest.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const realDir = join(root, 'tests', 'real');

function log(msg) {
  process.stderr.write(`[test-latest] ${msg}\n`);
}

/** The "latest" dist-tag of a package, or throws with npm's own words. */
function latestOf(pkg) {
  const r = spawnSync('npm', ['view', pkg, 'dist-tags.latest', '--json', '--fetch-retries=1', '--fetch-timeout=30000'], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.error) throw new Error(`could not run npm: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`npm view ${pkg} failed: ${firstLine(r.stderr || r.stdout)}`);
  const v = JSON.parse(r.stdout || 'null');
  if (typeof v !== 'string') throw new Error(`npm view ${pkg} dist-tags.latest answered ${r.stdout.trim() || 'nothing'}`);
  return v;
}

/** Why <pkg>@<version> cannot run on this Node (its `engines`), or undefined (also when npm cannot tell). */
function enginesSkip(pkg, version) {
  const r = spawnSync('npm', ['view', `${pkg}@${version}`, 'engines', '--json', '--fetch-retries=1', '--fetch-timeout=30000'], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.error || r.status !== 0) return undefined;
  const why = enginesRefuse(JSON.parse(r.stdout || 'null'), process.versions.node);
  return why ? `${pkg}@${version} ${why}` : undefined;
}

/** Install <id>@<version> into the cache with the shared installer; throws on failure. */
function installLatest(id, version) {
  const env = { ...process.env, [versionOverrideVar(id)]: version };
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'install-real-clis.mjs'), '--only', id], {
    cwd: root,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`installing ${id}@${version} failed (install-real-clis exit ${r.status ?? r.signal}; its banner is above)`);
  return JSON.parse(r.stdout)[id];
}

/** One vitest run of the `real` project; returns the parsed JSON report or undefined. */
function vitest(id, version, files, pattern) {
  const out = mkdtempSync(join(tmpdir(), 'umbel-latest-'));
  const report = join(out, 'report.json');
  const args = ['exec', 'vitest', 'run', '--project', 'real', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`];
  if (pattern) args.push('-t', pattern);
  args.push(...files.map((f) => `tests/real/${f}`));
  log(`${id}@${version}: pnpm ${args.join(' ')}`);
  const env = { ...process.env, [versionOverrideVar(id)]: version, UMBEL_TEST_RUN: '1', DISABLE_AUTOUPDATER: '1', OPENCODE_DISABLE_AUTOUPDATE: '1' };
  spawnSync('pnpm', args, { cwd: root, env, stdio: ['ignore', 2, 2] });
  try {
    return existsSync(report) ? JSON.parse(readFileSync(report, 'utf8')) : undefined;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** Why a CLI cannot be tested on this branch, or undefined. */
function skipReason(id, files) {
  if (!existsSync(join(root, 'packages', `provider-${id}`))) return `no ${id} provider on this branch (packages/provider-${id} is missing)`;
  if (files.own.length + files.shared.length === 0) return `no real-tier tests for ${id} in tests/real/`;
  return undefined;
}

function realFiles() {
  return readdirSync(realDir)
    .filter((n) => n.endsWith('.test.ts'))
    .map((name) => ({ name, content: readFileSync(join(realDir, name), 'utf8') }));
}

/** Everything for one CLI: its row of the table. */
function runOne(id, pin, ids) {
  const row = { id, package: pin.package, pinned: pin.version, scenarios: [], skipped: 0 };
  const files = selectFiles(id, realFiles(), ids);
  try {
    row.latest = latestOf(pin.package);
  } catch (err) {
    return { ...row, error: err.message };
  }
  const skip = skipReason(id, files) ?? enginesSkip(pin.package, row.latest);
  if (skip) return { ...row, skip };
  try {
    log(`${id}: pinned ${pin.version}, newest ${row.latest} → ${installLatest(id, row.latest)}`);
  } catch (err) {
    return { ...row, error: err.message };
  }
  const runs = [];
  if (files.own.length) runs.push(scenariosFromReport(vitest(id, row.latest, files.own), realDir));
  if (files.shared.length) runs.push(scenariosFromReport(vitest(id, row.latest, files.shared, namePattern(id)), realDir));
  for (const r of runs) {
    row.scenarios.push(...r.scenarios);
    row.skipped += r.skipped;
  }
  return row;
}

function build() {
  log('pnpm build (the real tier drives the built bins; --no-build skips this)');
  const r = spawnSync('pnpm', ['-r', '--filter', './packages/*', 'run', 'build'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (r.status !== 0) {
    log(`✗ pnpm build failed (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
}

function main() {
  const pins = readPinsFile();
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2), Object.keys(pins));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`test-latest: ${err.message}\n${USAGE}`);
    process.exit(2);
  }
  if (opts.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (opts.build) build();
  const rows = opts.ids.map((id) => runOne(id, pins[id], Object.keys(pins)));
  process.stdout.write(opts.json ? renderJson(rows) : `\n${renderTable(rows)}\n`);
  process.exitCode = exitCode(rows);
}

main();
