// echo-agent: a tiny interactive agent CLI, the "real CLI" of the umbel-provider-echo example.
// It answers every prompt with "echo: <prompt>" after a short delay, keeps a JSONL transcript,
// runs hooks from the settings file it is given, asks to trust a new folder, and understands
// three directives for tests: `FAIL <text>` (the turn fails like an API error), `ASK <file>`
// (asks for permission first), `SLOW <ms> <text>` (answers after <ms>).
import { randomUUID } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readHooks } from './hooks.js';
import { VERSION } from './screen.js';
import { agentHome, setLoggedOut, transcriptPath } from './session.js';
import { Tui } from './tui.js';

const HELP = `Usage: echo-agent [--settings FILE] [--session-id ID] [--model NAME] [--yes]
       echo-agent login | logout | --version | --help

An interactive agent that answers "echo: <prompt>". Transcripts: $ECHO_AGENT_HOME/sessions
(default ~/.echo-agent). --yes trusts the folder and approves every permission request.
`;

function fail(message) {
  process.stderr.write(`fatal: ${message}\n`);
  process.exit(1);
}

function options(argv) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        settings: { type: 'string' },
        'session-id': { type: 'string' },
        model: { type: 'string' },
        yes: { type: 'boolean' },
        version: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    });
  } catch (error) {
    return fail(error.message);
  }
}

export async function main(argv) {
  const { values, positionals } = options(argv);
  if (values.version) return process.stdout.write(`echo-agent ${VERSION}\n`);
  if (values.help) return process.stdout.write(HELP);
  const home = agentHome();
  if (positionals[0] === 'login' || positionals[0] === 'logout') {
    setLoggedOut(home, positionals[0] === 'logout');
    return process.stdout.write(positionals[0] === 'login' ? 'signed in\n' : 'signed out\n');
  }
  if (positionals.length > 0) fail(`unknown command '${positionals[0]}' (see echo-agent --help)`);
  let hooks;
  try {
    hooks = readHooks(values.settings);
  } catch (error) {
    fail(error.message);
  }
  const sessionId = values['session-id'] ?? randomUUID();
  const state = {
    mode: 'starting',
    cwd: realpathSync(process.cwd()),
    model: values.model ?? 'echo-1',
    sessionId,
    transcript: transcriptPath(home, sessionId),
    yes: values.yes === true,
    history: [],
    input: '',
    busy: false,
    queue: [],
    asking: undefined,
    turns: 0,
  };
  new Tui({ state, hooks, home, out: process.stdout }).run(process.stdin);
}
