#!/usr/bin/env node
// The main job on the fake CLI: a real tmux worker driven end to end by the built `umbel` bin.
// spawn (the workspace-trust dialog is answered by umbel) → send → wait → status → `umbel -p` →
// kill. Uses a throwaway state root and the fake `claude` from test-fixtures, so it needs no
// account and no network.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'packages/umbel/bin/umbel.js');
if (!existsSync(join(root, 'packages/cli/dist/cli.cjs')) || !existsSync(join(root, 'packages/mcp/dist/index.js'))) {
  console.error('▶ building the packages first (pnpm build)…');
  const built = spawnSync('pnpm', ['-r', '--filter', './packages/*', 'run', 'build'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

const scratch = mkdtempSync(join(tmpdir(), 'umbel-demo-'));
const home = join(scratch, 'state');
const work = join(scratch, 'project');
const config = join(scratch, 'claude-config');
mkdirSync(work);
mkdirSync(config);
// The fake Claude Code reads its config like the real one: onboarding done, the project NOT trusted.
writeFileSync(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }));
const env = { ...process.env, UMBEL_HOME: home, UMBEL_CLAUDE_BIN: join(root, 'test-fixtures/bin/claude'), DEMO_CLAUDE_CONFIG: config };

function umbel(args, input) {
  console.log(`\n$ umbel ${args.map((a) => (/[\s"$]/.test(a) ? JSON.stringify(a) : a)).join(' ')}`);
  const result = spawnSync(process.execPath, [bin, ...args], { cwd: work, env, input, encoding: 'utf8' });
  if (result.stdout) process.stdout.write(result.stdout);
  if (result.stderr) process.stdout.write(result.stderr.replace(/^/gm, '  (stderr) '));
  if (result.status !== 0) console.log(`  (exit ${result.status})`);
  return result;
}

let failed = false;
try {
  const steps = [
    umbel(['spawn', 'demo', '--env', 'CLAUDE_CONFIG_DIR=' + config]),
    umbel(['send', 'demo', 'ECHO Hello from a Claude Code TUI driven by umbel.']),
    umbel(['wait', 'demo', '--timeout', '60s']),
    umbel(['send', 'demo', 'What is 6 x 7?\nAnswer on one line.']),
    umbel(['wait', 'demo', '--json']),
    umbel(['status']),
    umbel(['-p', 'ECHO {"answer": 42}', '--output-format', 'json', '--env', 'CLAUDE_CONFIG_DIR=' + config]),
    umbel(['kill', 'demo', '--purge']),
  ];
  failed = steps.some((r) => r.status !== 0);
} finally {
  spawnSync(process.execPath, [bin, 'prune'], { env, encoding: 'utf8' });
  rmSync(scratch, { recursive: true, force: true });
}
console.log(failed ? '\n✗ demo failed' : '\n✓ demo finished: every worker was removed');
process.exit(failed ? 1 : 0);
