#!/usr/bin/env node
// Record what the REAL pinned CLIs do on account trouble (429 with and without retry-after, plan
// usage limits, 401, 403, no login) and how they show their billing, against the local mock servers
// only (offline), into test-fixtures/real/recorded/account/<cli>-<case>.json plus index.json. The
// facts drawn from these files are in test-fixtures/real/ACCOUNT-FACTS.md.
//
//   node test-fixtures/real/record-account.mjs [--only claude|codex|gemini] [--case NAME] [--list]
//
// Needs the pinned CLIs (`pnpm install:real-clis`) and `pnpm build` (the TUIs run in a private tmux
// host through @umbel/tmux). Scratch paths become <root>, mock ports <port>. Slow cases (default
// retries) take minutes; run with --case to redo one.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAnthropicMock } from '../mock-servers/anthropic.mjs';
import { startGeminiMock } from '../mock-servers/gemini.mjs';
import { startResponsesMock } from '../mock-servers/openai-responses.mjs';
import { claudePrintCase, claudeTuiCase } from './account-claude.mjs';
import { codexExecCase, codexTuiCase } from './account-codex.mjs';
import { geminiPrintCase, geminiTuiCase } from './account-gemini.mjs';
import { makeWorld, scrubber, tmuxHost } from './account-harness.mjs';
import { readPins, realCliPath } from './clis.mjs';
import { CASES } from './record-account-cases.mjs';

const outDir = join(dirname(fileURLToPath(import.meta.url)), 'recorded', 'account');

function parseArgs(argv) {
  const o = { only: undefined, names: [], list: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--only') o.only = argv[++i];
    else if (argv[i] === '--case') o.names.push(argv[++i]);
    else if (argv[i] === '--list') o.list = true;
    else throw new Error(`unknown argument ${argv[i]} (usage: [--only claude|codex|gemini] [--case NAME]… [--list])`);
  }
  return o;
}

const RUNNERS = {
  'claude-tui': claudeTuiCase,
  'claude-print': claudePrintCase,
  'codex-tui': codexTuiCase,
  'codex-exec': codexExecCase,
  'gemini-tui': geminiTuiCase,
  'gemini-print': geminiPrintCase,
};
const MOCKS = { claude: startAnthropicMock, codex: startResponsesMock, gemini: startGeminiMock };

/** Run one case against a fresh mock of its CLI; returns the scrubbed recording. */
async function record(c) {
  const cli = c.runner.split('-')[0];
  const mock = await MOCKS[cli]();
  try {
    const bin = realCliPath(cli);
    const { out, scrub } = await RUNNERS[c.runner]({ [cli]: bin, bin, mock, c, makeWorld, tmuxHost });
    const s = scrubber([...scrub, [`127.0.0.1:${mock.port}`, '127.0.0.1:<port>'], [`localhost:${mock.port}`, 'localhost:<port>']]);
    const pin = readPins()[cli];
    return s.json({ cli, package: `${pin.package}@${pin.version}`, case: c.name, about: c.about, prompt: c.prompt ?? c.prompts, ...out });
  } finally {
    await mock.close();
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const chosen = CASES.filter((c) => (!o.only || c.runner.startsWith(`${o.only}-`)) && (o.names.length === 0 || o.names.includes(c.name)));
  if (o.list) {
    for (const c of chosen) process.stdout.write(`${c.name}\t${c.runner}\t${c.about}\n`);
    return;
  }
  mkdirSync(outDir, { recursive: true });
  const indexFile = join(outDir, 'index.json');
  let index = {};
  try {
    index = JSON.parse(readFileSync(indexFile, 'utf8'));
  } catch {
    index = {};
  }
  for (const c of chosen) {
    const started = Date.now();
    process.stderr.write(`${c.name} … `);
    try {
      const rec = await record(c);
      const file = `${c.name}.json`;
      writeFileSync(join(outDir, file), `${JSON.stringify(rec, null, 2)}\n`);
      index[file] = { cli: rec.cli, package: rec.package, runner: c.runner, about: c.about };
      process.stderr.write(`ok (${Math.round((Date.now() - started) / 1000)} s)\n`);
    } catch (error) {
      process.stderr.write(`FAILED: ${error?.stack ?? error}\n`);
      process.exitCode = 1;
    }
    const sorted = Object.fromEntries(
      Object.keys(index)
        .sort()
        .map((k) => [k, index[k]]),
    );
    writeFileSync(indexFile, `${JSON.stringify(sorted, null, 2)}\n`);
  }
}

await main();
