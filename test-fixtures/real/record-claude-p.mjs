#!/usr/bin/env node
// Re-record what the REAL pinned `claude -p` prints against the local mock, into
// test-fixtures/real/recorded/. The `umbel -p` face is compared against these files.
// Run after bumping the claude pin:  node test-fixtures/real/record-claude-p.mjs
//
// Volatile values are kept as printed except the scratch paths, which are replaced by
// <cwd>, <config>, <home> and the mock's port by <port> so the files do not depend on the machine.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAnthropicMock } from '../mock-servers/anthropic.mjs';
import { readPins, realCliPath } from './clis.mjs';
import { claudeEnv } from './seed-claude.mjs';
import { startProcess } from './umbel-helpers.mjs';

const outDir = join(dirname(fileURLToPath(import.meta.url)), 'recorded');
const claude = realCliPath('claude');
const mock = await startAnthropicMock();
const root = mkdtempSync(join(tmpdir(), 'umbel-record-'));
const home = join(root, 'home');
const config = join(root, 'config');
const cwd = join(root, 'work');
for (const d of [home, config, cwd]) mkdirSync(d, { recursive: true });

const scrub = (s) =>
  s
    .split(`127.0.0.1:${mock.port}`)
    .join('127.0.0.1:<port>')
    .split(cwd)
    .join('<cwd>')
    .split(config)
    .join('<config>')
    .split(home)
    .join('<home>')
    .split(root)
    .join('<root>');

/** Run the real binary with a cleared env (async: the mock lives in this process); → {stdout, stderr, status}. */
async function run(args, extraEnv = {}) {
  const env = {
    HOME: home,
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    ...claudeEnv({ configDir: config, baseUrl: mock.url }),
    ...extraEnv,
  };
  const { child, done } = startProcess(claude, args, { cwd, env });
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const out = await done.finally(() => clearTimeout(timer));
  return { stdout: scrub(out.stdout), stderr: scrub(out.stderr), status: out.code };
}

const recordings = [
  { file: 'claude-p-json.json', args: ['-p', 'ECHO hi', '--output-format', 'json'] },
  { file: 'claude-p-text.txt', args: ['-p', 'ECHO hi'] },
  { file: 'claude-p-stream-json.jsonl', args: ['-p', 'ECHO hi', '--output-format', 'stream-json', '--verbose'] },
  { file: 'claude-p-tool-stream-json.jsonl', args: ['-p', 'TOOL echo recorded', '--output-format', 'stream-json', '--verbose'] },
  {
    file: 'claude-p-error-500-json.json',
    args: ['-p', 'FAIL 500 mock boom', '--output-format', 'json'],
    env: { CLAUDE_CODE_MAX_RETRIES: '0' },
  },
];
const index = {};
try {
  for (const r of recordings) {
    const out = await run(r.args, r.env);
    writeFileSync(join(outDir, r.file), out.stdout);
    index[r.file] = { args: r.args, env: r.env ?? {}, exitCode: out.status, stderr: out.stderr };
    process.stderr.write(`${r.file}: rc=${out.status} ${out.stdout.length} bytes\n`);
  }
  writeFileSync(
    join(outDir, 'index.json'),
    `${JSON.stringify({ claude: `${readPins().claude.package}@${readPins().claude.version}`, recordedWith: (await run(['--version'])).stdout.trim(), files: index }, null, 2)}\n`,
  );
} finally {
  await mock.close();
  rmSync(root, { recursive: true, force: true });
}
