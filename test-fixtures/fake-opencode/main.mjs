#!/usr/bin/env node
// Fake opencode 1.18.33 for umbel's tests (facts: FACTS.md beside this file). It reads the same
// config dirs, loads and calls the same plugin modules with the same events, talks to the same
// chat-completions endpoint (test-fixtures/mock-servers/openai-chat.mjs), keeps sessions that
// `export` prints in the real shape, and draws the TUI screens a provider waits for.
//
//   opencode [--model p/m] [--port N] [--prompt T] [--session ses_…]   the TUI (--session: continue that stored session)
//   opencode run [--format json] [-m p/m] [message..] (stdin when not a TTY)
//   opencode export <sessionID> | models [provider] | session list [--format json] | --version
//
// Knob: FAKE_OPENCODE_INSTALL_STALL_MS — how long a config dir's offline plugin install stalls
// startup (default 65000, the real one's npm retries); npm_config_offline=true fails it at once.
import { readFileSync } from 'node:fs';
import { logger } from './boot.mjs';
import { BUNDLED_MODELS, VERSION, configuredModels, loadConfig } from './config.mjs';
import { listSessions, loadSession } from './store.mjs';

const HELP = `opencode [project]

start opencode tui (fake opencode ${VERSION} for umbel's tests)

Commands:
  opencode run [message..]     run opencode with a message
  opencode export [sessionID]  export session data as JSON
  opencode models [provider]   list all available models
  opencode session list        list sessions

Options:
  -h, --help      show help
  -v, --version   show version number
      --port      port to listen on (127.0.0.1 unless --hostname)
  -m, --model     model to use in the format of provider/model
      --prompt    prompt to use
      --format    (run) default or json
`;

/** Parse argv: {command, positionals, flags}. */
function parseArgs(argv) {
  const flags = {};
  const positionals = [];
  const valued = new Set(['--model', '-m', '--port', '--hostname', '--prompt', '--format', '--agent', '-s', '--session', '--log-level']);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    if (eq > 0) flags[a.slice(0, eq)] = a.slice(eq + 1);
    else if (valued.has(a)) flags[a] = argv[++i];
    else if (a.startsWith('-') && a !== '-') flags[a] = true;
    else positionals.push(a);
  }
  if (flags['-m'] !== undefined) flags['--model'] = flags['-m'];
  const commands = new Set(['run', 'export', 'models', 'session']);
  const command = commands.has(positionals[0]) ? positionals.shift() : 'tui';
  return { command, positionals, flags };
}

async function cmdModels(positionals, env, cwd) {
  const { config } = loadConfig(cwd, env);
  const all = [...BUNDLED_MODELS, ...configuredModels(config).map((m) => m.id)];
  const provider = positionals[0];
  if (provider && !all.some((id) => id.startsWith(`${provider}/`))) {
    process.stderr.write(`Error: Provider not found: ${provider}\n`);
    return 1;
  }
  process.stdout.write(`${all.filter((id) => !provider || id.startsWith(`${provider}/`)).join('\n')}\n`);
  return 0;
}

function cmdExport(positionals, env) {
  const id = positionals[0];
  if (!id) {
    process.stderr.write('Error: fake opencode needs a session id for export (the real one opens a picker)\n');
    return 1;
  }
  process.stderr.write(`Exporting session: ${id}\n`);
  const doc = loadSession(id, env);
  if (!doc) {
    process.stderr.write(`Error: Session not found: ${id}\n`);
    return 1;
  }
  process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  return 0;
}

function cmdSession(positionals, flags, env) {
  if (positionals[0] !== 'list') {
    process.stderr.write('usage: opencode session list [--format json]\n');
    return 1;
  }
  const infos = listSessions(env);
  if (flags['--format'] === 'json') {
    const rows = infos.map((i) => ({
      id: i.id,
      title: i.title,
      updated: i.time.updated,
      created: i.time.created,
      projectId: i.projectID,
      directory: i.directory,
    }));
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  const lines = ['Session ID                      Title                      Updated', '─'.repeat(66)];
  for (const i of infos)
    lines.push(
      `${i.id.padEnd(32)}${i.title.slice(0, 26).padEnd(27)}${new Date(i.time.updated).toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' })}`,
    );
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

async function main(argv) {
  const env = process.env;
  const cwd = process.cwd();
  const { command, positionals, flags } = parseArgs(argv);
  if (flags['--version'] || flags['-v']) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (flags['--help'] || flags['-h']) {
    process.stdout.write(HELP);
    return 0;
  }
  const log = logger(env);
  try {
    if (command === 'models') return await cmdModels(positionals, env, cwd);
    if (command === 'export') return cmdExport(positionals, env);
    if (command === 'session') return cmdSession(positionals, flags, env);
    if (command === 'run') {
      const { runCommand } = await import('./run.mjs');
      const stdin = process.stdin.isTTY ? '' : readFileSync(0, 'utf8');
      return await runCommand({ cwd, env, flags, positionals, stdin, log });
    }
    const { startTui } = await import('./tui.mjs');
    return await startTui({ cwd, env, flags, log });
  } catch (err) {
    process.stderr.write(`Error: ${err?.message ?? err}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
