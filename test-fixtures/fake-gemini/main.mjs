#!/usr/bin/env node
// A faithful fake of Google Gemini CLI 0.61.0 (`gemini`) for umbel's tests. Facts:
// /work/shared/reference/gemini.md. It talks to the Gemini API mock (test-fixtures/mock-servers/gemini.mjs)
// at GOOGLE_GEMINI_BASE_URL, or starts one in-process; replies follow test-fixtures/lib/directives.mjs.
//
// What it emulates:
// - process model: a relaunch parent that ignores SIGINT/SIGTERM/SIGHUP and a child with
//   GEMINI_CLI_NO_RELAUNCH=true (a single process when that is already set) — so orphans are real;
// - settings layers (system defaults, user `$GEMINI_CLI_HOME/.gemini/settings.json`, workspace
//   `<cwd>/.gemini/settings.json` when trusted, system), hooks concatenated across layers;
// - folder trust (trustedFolders.json, GEMINI_CLI_TRUST_WORKSPACE, security.folderTrust.enabled,
//   --skip-trust), auth (security.auth.selectedType; GOOGLE_GEMINI_BASE_URL without it → exit 41);
// - headless when CI=true / GITHUB_ACTIONS=true (unless GEMINI_CLI_INTEGRATION_TEST=true), stdin not
//   a TTY, or -p; `-p` with -o text|json|stream-json and the exit codes of §2;
// - the TUI of tui.mjs, hooks of hooks.mjs, the chat JSONL of chat.mjs, a stale projects.json.lock stall.
// Knobs: FAKE_GEMINI_SIGNED_OUT=1 (always show the sign-in screen), FAKE_GEMINI_LOCK_STALL_MS,
// FAKE_GEMINI_RETRY_MS, FAKE_GEMINI_ORPHAN_MAX_MS (how long an orphaned process lingers, default 600000),
// FAKE_GEMINI_EAT_ENTERS=<n> (the first Enter after each of the first n pastes becomes a newline; tui.mjs),
// FAKE_GEMINI_INIT_MS (input box drawn this long before the config is initialized and SessionStart fires, default 300).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTurn } from './agent.mjs';
import { ChatRecording, registerProject } from './chat.mjs';
import { runHooks } from './hooks.mjs';
import { closeModel } from './model.mjs';
import { telemetryWriter } from './telemetry.mjs';
import { authProblem, authType, geminiDir, loadSettings } from './settings.mjs';
import { expandAtFiles, Tui } from './tui.mjs';

const VERSION = '0.61.0';

function parseArgs(argv) {
  const o = { approvalMode: 'default', output: 'text' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const eq = a.indexOf('=');
      return eq !== -1 ? a.slice(eq + 1) : argv[++i];
    };
    const name = a.split('=')[0];
    if (name === '-p' || name === '--prompt') o.prompt = value();
    else if (name === '-i' || name === '--prompt-interactive') o.promptInteractive = value();
    else if (name === '-m' || name === '--model') o.model = value();
    else if (name === '--session-id') o.sessionId = value();
    else if (name === '--approval-mode') o.approvalMode = value();
    else if (name === '-y' || name === '--yolo') o.approvalMode = 'yolo';
    else if (name === '--skip-trust') o.skipTrust = true;
    else if (name === '-o' || name === '--output-format') o.output = value();
    else if (name === '-v' || name === '--version') o.version = true;
    else if (name === '-h' || name === '--help') o.help = true;
    else if (!a.startsWith('-')) o.positional = [...(o.positional ?? []), a];
  }
  return o;
}

async function relaunch() {
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => {});
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, GEMINI_CLI_NO_RELAUNCH: 'true' },
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

function stderr(text) {
  process.stderr.write(`${text}\n`);
}

async function readStdin() {
  if (process.stdin.isTTY) return '';
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (args.help) {
    process.stdout.write('Usage: gemini [options]  (fake gemini 0.61.0 for umbel tests)\n');
    return 0;
  }
  const env = process.env;
  const cwd = process.cwd();
  const ci = env.GEMINI_CLI_INTEGRATION_TEST !== 'true' && (env.CI === 'true' || env.GITHUB_ACTIONS === 'true');
  const headless = ci || !process.stdin.isTTY || !process.stdout.isTTY || args.prompt !== undefined;
  const loaded = loadSettings(cwd, args.skipTrust ? { ...env, GEMINI_CLI_TRUST_WORKSPACE: 'true' } : env);
  if (loaded.errors.length > 0) {
    stderr(`${loaded.errors.map((e) => `Error in ${e}`).join('\n')}\nPlease fix the configuration file(s) and try again.`);
    return 52;
  }
  const settings = loaded.merged;
  const auth = authType(settings, env);
  const session = {
    settings,
    cwd,
    env,
    headless,
    sessionId: args.sessionId ?? randomUUID(),
    model: args.model ?? env.GEMINI_MODEL ?? 'gemini-3.8-flash',
    modelLabel: args.model ?? env.GEMINI_MODEL ?? 'Auto',
    approvalMode: args.approvalMode,
    allowedRoots: new Set(),
    contents: [],
    authType: auth.type,
    warnings: [...loaded.warnings],
    chat: undefined,
    telemetry: undefined,
    async begin() {
      if (this.chat) return;
      const dir = geminiDir(env);
      const slug = await registerProject(dir, cwd, env);
      // 0.61.0 refuses a --session-id whose chat already exists (verified)
      const chats = join(dir, 'tmp', slug, 'chats');
      if (
        args.sessionId &&
        this.sessionId === args.sessionId &&
        existsSync(chats) &&
        readdirSync(chats).some((f) => f.endsWith(`-${args.sessionId.slice(0, 8)}.jsonl`))
      ) {
        stderr(`Error starting session: Session ID "${args.sessionId}" already exists. Use --resume to resume it, or provide a different ID.`);
        process.exit(42);
      }
      this.chat = new ChatRecording({ dir, slug, cwd, sessionId: this.sessionId });
      this.telemetry = telemetryWriter(settings, this.sessionId);
    },
    async newSession() {
      this.chat?.finish();
      this.chat = undefined;
      this.contents = [];
      this.sessionId = randomUUID();
      await this.begin();
    },
    async quit(code) {
      this.chat?.finish();
      await closeModel();
      process.exit(code);
    },
  };
  if (loaded.projectHooks.length > 0)
    session.warnings.push(`WARNING: The following project-level hooks have been detected in this workspace: ${loaded.projectHooks.join(', ')}`);

  if (headless) {
    const piped = process.stdin.isTTY ? '' : await readStdin();
    const prompt = [piped, args.prompt ?? ''].filter((x) => x !== '').join(piped && args.prompt ? '\n\n' : '');
    if (prompt.trim() === '') {
      stderr('No input provided via stdin. Input can be provided by piping data into gemini or using the --prompt option.');
      return 42;
    }
    if (loaded.trusted !== true) {
      stderr(
        'Gemini CLI is not running in a trusted directory. To proceed, either use --skip-trust, set the GEMINI_CLI_TRUST_WORKSPACE=true environment variable, or trust this directory in interactive mode.',
      );
      return 55;
    }
    const problem = auth.type ? authProblem(auth.type, env) : 'Invalid auth method selected.';
    if (problem) {
      if (args.output === 'json') stderr(JSON.stringify({ session_id: session.sessionId, error: { type: 'Error', message: problem, code: 41 } }, null, 2));
      else stderr(problem);
      return 41;
    }
    await session.begin();
    await runHooks(settings, 'SessionStart', { source: 'startup' }, { sessionId: session.sessionId, transcriptPath: session.chat.path, cwd });
    const expanded = expandAtFiles(prompt, cwd);
    const ac = new AbortController();
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => process.exit(0));
    if (args.output === 'stream-json') {
      process.stdout.write(
        `${JSON.stringify({ type: 'init', timestamp: new Date().toISOString(), session_id: session.sessionId, model: session.modelLabel === 'Auto' ? 'auto' : session.model })}\n`,
      );
      process.stdout.write(`${JSON.stringify({ type: 'message', role: 'user', content: prompt })}\n`);
    }
    const r = await runTurn(session, { parts: expanded.parts, display: expanded.display, hookPrompt: expanded.hookPrompt, signal: ac.signal });
    await runHooks(settings, 'SessionEnd', { reason: 'exit' }, { sessionId: session.sessionId, transcriptPath: session.chat.path, cwd });
    session.chat.finish();
    await closeModel();
    if (r.status === 'error') {
      const status = r.error.status;
      // what -o json reports: the quota message, else the raw error body (real 0.61.0)
      const message = r.error.message ?? r.error.body;
      if (args.output === 'json') {
        stderr(JSON.stringify({ session_id: session.sessionId, error: { type: 'Error', message, code: status } }, null, 2));
        return status === 404 ? 1 : status & 0xff;
      }
      if (args.output === 'stream-json') {
        process.stdout.write(
          `${JSON.stringify({ type: 'result', status: 'error', error: { type: 'unknown', message: `[API Error: ${r.error.display ?? message}]${r.error.hint ? `\n${r.error.hint}` : ''}` }, stats: {} })}\n`,
        );
        return status === 404 ? 1 : status & 0xff;
      }
      stderr(`Error when talking to Gemini API Full report available at: ${env.TMPDIR ?? '/tmp'}/gemini-client-error-fake.json _ApiError: ${r.error.body}`);
      stderr('An unexpected critical error occurred:[object Object]');
      return 1;
    }
    if (args.output === 'json') {
      process.stdout.write(JSON.stringify({ session_id: session.sessionId, response: r.response, stats: { models: {}, tools: {}, files: {} } }, null, 2));
    } else if (args.output === 'stream-json') {
      process.stdout.write(`${JSON.stringify({ type: 'message', role: 'assistant', content: r.response, delta: true })}\n`);
      process.stdout.write(`${JSON.stringify({ type: 'result', status: 'success', stats: {} })}\n`);
    } else {
      process.stdout.write(r.response.endsWith('\n') ? r.response : `${r.response}\n`);
    }
    return 0;
  }

  // interactive
  session.needsTrust = loaded.trusted === undefined;
  // without an explicit selectedType (or with one that cannot work) the auth dialog comes up
  session.needsAuth = env.FAKE_GEMINI_SIGNED_OUT === '1' || !auth.explicit || !!authProblem(auth.type, env);
  session.initialPrompt = args.promptInteractive;
  const tui = new Tui(session);
  // The terminal went away (tmux kill-server) without a signal reaching this process: like the real
  // relaunch child, linger as an orphan (for FAKE_GEMINI_ORPHAN_MAX_MS).
  const linger = () => {
    const max = Number(env.FAKE_GEMINI_ORPHAN_MAX_MS ?? 600000);
    setTimeout(() => process.exit(1), max);
  };
  process.stdin.on('end', linger);
  process.stdin.on('error', linger);
  process.stdout.on('error', () => {});
  await tui.start();
  return undefined;
}

if (!process.env.GEMINI_CLI_NO_RELAUNCH && !process.env.SANDBOX) {
  await relaunch();
} else {
  const code = await main().catch((error) => {
    stderr(error?.stack ?? String(error));
    return 1;
  });
  if (code !== undefined) {
    await closeModel();
    // exit now: fetch's keep-alive sockets would hold the process for seconds
    process.stderr.write('', () => process.stdout.write('', () => process.exit(code)));
  }
}
