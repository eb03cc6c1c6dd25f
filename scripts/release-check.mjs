#!/usr/bin/env node
// `pnpm release:check`: is what we would publish publishable? Run locally and in .ci/run.
//   1. `changeset status`: every changed package has a changeset (the release workflow versions from them);
//   2. every public package packs, and its tarball has README.md, LICENSE, package.json, every
//      exports/bin target, and nothing it does not need (no tests, fixtures, configs);
//   3. publint (--strict) and @arethetypeswrong/cli (ESM-only profile) pass on each tarball;
//   4. the tarballs install into an empty project and run: `npx umbel --version`, the MCP server
//      answering, the README's embedding example, a third-party provider (tests/repo/pack.test.ts).
// Needs built packages (`pnpm build`; `pnpm test` builds first). `--skip-install` leaves out step 4.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const skipInstall = process.argv.includes('--skip-install');
const problems = [];

/** What a tarball may not carry: tests, fixtures, build and test configs. */
const UNWANTED = [/\.test\.[cm]?[jt]s$/, /__fixtures__\//, /tsconfig[^/]*\.json$/, /vitest\.config/, /tsup\.config/];
/** Where those are what a package ships: the package create-umbel-provider generates (its tests, recording and configs). */
const SHIPPED = { 'create-umbel-provider': /^template\// };

function targets(value) {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(targets);
  return [];
}

async function exec(file, args, options = {}) {
  try {
    const { stdout } = await run(file, args, { cwd: root, maxBuffer: 64 * 1024 * 1024, ...options });
    return { ok: true, out: stdout };
  } catch (error) {
    return { ok: false, out: `${error.stdout ?? ''}${error.stderr ?? ''}`.trim() || String(error) };
  }
}

async function checkPackage(dir, out) {
  const manifest = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
  if (manifest.private) return;
  const name = manifest.name;
  const packed = await exec('pnpm', ['pack', '--pack-destination', out], { cwd: join(root, 'packages', dir) });
  if (!packed.ok) return problems.push(`${name}: pnpm pack failed: ${packed.out}`);
  const tarball = packed.out.trim().split('\n').pop();
  const listed = await exec('tar', ['-tzf', tarball]);
  const files = new Set(
    listed.out
      .split('\n')
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, '')),
  );
  for (const needed of ['README.md', 'LICENSE', 'package.json']) if (!files.has(needed)) problems.push(`${name}: the tarball has no ${needed}`);
  for (const target of [...targets(manifest.exports), ...targets(manifest.bin)]) {
    if (!files.has(target.replace(/^\.\//, ''))) problems.push(`${name}: the tarball lacks ${target} (exports/bin)`);
  }
  for (const file of files) if (!SHIPPED[name]?.test(file) && UNWANTED.some((re) => re.test(file))) problems.push(`${name}: the tarball carries ${file}`);
  const publint = await exec(join(root, 'node_modules/.bin/publint'), [tarball, '--strict']);
  if (!publint.ok) problems.push(`${name}: publint:\n${publint.out}`);
  if (manifest.exports) {
    const attw = await exec(join(root, 'node_modules/.bin/attw'), [tarball, '--profile', 'esm-only', '--format', 'table-flipped']);
    if (!attw.ok) problems.push(`${name}: @arethetypeswrong/cli:\n${attw.out}`);
  }
  process.stderr.write(`  ${name}: packed (${files.size} files), publint${manifest.exports ? ', attw' : ''} checked\n`);
}

const status = await exec(join(root, 'node_modules/.bin/changeset'), ['status']);
process.stderr.write(`▶ changeset status: ${status.ok ? 'ok' : 'FAILED'}\n`);
if (!status.ok) problems.push(`changeset status:\n${status.out}`);

process.stderr.write('▶ pack, publint, attw\n');
const out = mkdtempSync(join(tmpdir(), 'umbel-release-check-'));
try {
  const dirs = readdirSync(join(root, 'packages')).sort();
  for (let i = 0; i < dirs.length; i += 2) await Promise.all(dirs.slice(i, i + 2).map((d) => checkPackage(d, out)));
} finally {
  rmSync(out, { recursive: true, force: true });
}

if (!skipInstall) {
  process.stderr.write('▶ the tarballs install and run in an empty project: vitest run tests/repo/pack.test.ts\n');
  const installed = await exec('pnpm', ['exec', 'vitest', 'run', 'tests/repo/pack.test.ts']);
  if (!installed.ok) problems.push(`tests/repo/pack.test.ts:\n${installed.out}`);
}

if (problems.length > 0) {
  process.stderr.write(`\n✗ release check: ${problems.length} problem(s)\n${problems.map((p) => `- ${p}`).join('\n')}\n`);
  process.exit(1);
}
process.stderr.write('\n✓ release check passed\n');
