#!/usr/bin/env node
// {{bin}}: the tiny demo CLI of {{name}}, standing in for the agent CLI your provider is for (and its
// fake in tests: it needs no account and no network). An interactive TUI on the alternate screen
// that answers every prompt with "echo: <prompt>", keeps a JSONL transcript in
// ${{homeEnv}}/sessions/<session-id>.jsonl (default ~/.{{bin}}), and runs the hooks of the settings
// file it is given. Directives: `FAIL <text>` fails the turn like an API error, `ASK <file>` asks
// for permission first (y/n). `{{bin}} logout` makes it start on a sign-in screen, `login` undoes it.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const VERSION = '0.1.0';
const HELP = `Usage: {{bin}} [--settings FILE] [--session-id ID] [--model NAME] [--yes]
       {{bin}} login | logout | --version | --help
`;
const home = process.env['{{homeEnv}}'] || join(process.env.HOME || homedir(), '.{{bin}}');

function fail(message) {
  process.stderr.write(`fatal: ${message}\n`);
  process.exit(1);
}

// --- hooks: {"hooks": {"<Event>": ["shell command", …]}}, the JSON payload on the command's stdin

function runHook(command, payload) {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], { stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('error', resolve);
    child.on('close', resolve);
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

async function fireHook(hooks, event, payload) {
  for (const command of [hooks[event] ?? []].flat()) await runHook(command, { hook_event_name: event, ...payload });
}

// --- the session

function append(entry) {
  mkdirSync(join(state.transcript, '..'), { recursive: true, mode: 0o700 });
  appendFileSync(state.transcript, `${JSON.stringify({ ...entry, at: new Date().toISOString() })}\n`, { mode: 0o600 });
}

const hook = (event, payload = {}) =>
  fireHook(state.hooks, event, { session_id: state.sessionId, transcript_path: state.transcript, cwd: process.cwd(), ...payload });

function render() {
  const lines = [` {{title}} agent ${VERSION} · model ${state.model}`, ''];
  if (state.mode === 'signed-out') lines.push(' Signed out. Run `{{bin}} login` in a shell, then start {{bin}} again.');
  else {
    lines.push(
      ...state.history
        .flatMap((line) => line.split('\n'))
        .map((line) => ` ${line}`)
        .slice(-12),
      ` ${'─'.repeat(40)}`,
    );
    if (state.asking) lines.push(` Allow {{bin}} to write ${state.asking.file}? [y] yes  [n] no`);
    else lines.push(` ❯ ${state.input.split('\n')[0]}`);
    lines.push(state.turn ? ' working… · esc interrupt' : ' enter send · ctrl-d quit');
  }
  process.stdout.write(`\x1b[H\x1b[2J${lines.join('\r\n')}`);
}

async function begin(prompt) {
  const turn = { id: `turn-${++state.turns}`, prompt };
  state.turn = turn;
  state.history.push(`› ${prompt}`);
  render();
  append({ type: 'user', turn_id: turn.id, text: prompt });
  await hook('UserPromptSubmit', { turn_id: turn.id, prompt });
  const text = prompt.trim();
  const ask = /^ASK (\S+)/.exec(text);
  if (ask && !state.yes) {
    state.asking = { turn, file: ask[1] };
    render();
    await hook('PermissionRequest', { turn_id: turn.id, tool: 'write_file', message: `{{bin}} wants to write ${ask[1]}` });
    return;
  }
  const result = text.startsWith('FAIL')
    ? { error: `simulated API error: ${text.slice(4).trim() || 'overloaded'}` }
    : { answer: ask ? `approved: wrote ${ask[1]}` : `echo: ${prompt}` };
  turn.timer = setTimeout(() => finish(turn, result), 100);
}

async function finish(turn, result) {
  if (state.turn !== turn) return;
  if (result.error) {
    append({ type: 'error', turn_id: turn.id, message: result.error });
    state.history.push(`✗ ${result.error}`);
    await hook('StopFailure', { turn_id: turn.id, error: result.error });
  } else {
    append({ type: 'assistant', turn_id: turn.id, text: result.answer });
    append({ type: 'turn_end', turn_id: turn.id, usage: { input_tokens: turn.prompt.length, output_tokens: result.answer.length } });
    state.history.push(result.answer);
    await hook('Stop', { turn_id: turn.id, last_message: result.answer });
  }
  state.turn = undefined;
  render();
  if (state.queue.length > 0) begin(state.queue.shift());
}

async function interrupt() {
  const turn = state.turn;
  clearTimeout(turn.timer);
  Object.assign(state, { turn: undefined, asking: undefined });
  append({ type: 'interrupted', turn_id: turn.id });
  state.history.push('⏹ interrupted');
  render();
  await hook('TurnInterrupted', { turn_id: turn.id });
}

async function quit() {
  if (state.mode === 'ready') await hook('SessionEnd');
  process.stdout.write('\x1b[?2004l\x1b[?1049l');
  process.exit(0);
}

// --- keys: bracketed paste (ESC[200~ … ESC[201~) is one piece of text; Enter outside it submits

function onKey(key) {
  if (key === '\x04') return quit();
  if (state.mode !== 'ready') return;
  if (state.asking) {
    const { turn, file } = state.asking;
    if (!['y', 'n', '\x1b'].includes(key.toLowerCase())) return;
    state.asking = undefined;
    render();
    turn.timer = setTimeout(() => finish(turn, { answer: key.toLowerCase() === 'y' ? `approved: wrote ${file}` : `denied: did not write ${file}` }), 50);
    return;
  }
  if (key === '\r' || key === '\n') {
    const prompt = state.input;
    state.input = '';
    if (prompt.trim() !== '') state.queue.push(prompt);
    if (!state.turn && state.queue.length > 0) return begin(state.queue.shift());
  } else if (key === '\x1b' && state.turn) return interrupt();
  else if (key === '\x1b' || key === '\x03') state.input = '';
  else if (key === '\x7f') state.input = [...state.input].slice(0, -1).join('');
  else if (key >= ' ') state.input += key;
  render();
}

let pending = '';
function onData(chunk) {
  pending += chunk;
  for (;;) {
    const paste = /^\x1b\[200~([\s\S]*?)\x1b\[201~/.exec(pending);
    if (paste) {
      state.input += paste[1].replace(/\r\n?/g, '\n');
      pending = pending.slice(paste[0].length);
      render();
    } else if (pending.startsWith('\x1b[')) {
      const csi = /^\x1b\[[0-9;?]*[@-~]/.exec(pending);
      if (!csi || csi[0] === '\x1b[200~') return; // cut between two chunks: wait for the rest
      pending = pending.slice(csi[0].length);
    } else if (pending.length > 0) {
      const key = String.fromCodePoint(pending.codePointAt(0));
      pending = pending.slice(key.length);
      onKey(key);
    } else return;
  }
}

// --- main

let values;
let positionals;
try {
  ({ values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      settings: { type: 'string' },
      'session-id': { type: 'string' },
      model: { type: 'string' },
      yes: { type: 'boolean' },
      version: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  }));
} catch (error) {
  fail(error.message);
}
if (values.version) {
  process.stdout.write(`{{bin}} ${VERSION}\n`);
  process.exit(0);
}
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
if (positionals[0] === 'login' || positionals[0] === 'logout') {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  if (positionals[0] === 'logout') writeFileSync(join(home, 'logged-out'), '');
  else rmSync(join(home, 'logged-out'), { force: true });
  process.stdout.write(positionals[0] === 'login' ? 'signed in\n' : 'signed out\n');
  process.exit(0);
}
if (positionals.length > 0) fail(`unknown command '${positionals[0]}' (see {{bin}} --help)`);

let hooks = {};
if (values.settings) {
  try {
    hooks = JSON.parse(readFileSync(values.settings, 'utf8')).hooks ?? {};
  } catch (error) {
    fail(`cannot read settings ${values.settings}: ${error.message}`);
  }
}
const sessionId = values['session-id'] ?? randomUUID();
const state = {
  mode: existsSync(join(home, 'logged-out')) ? 'signed-out' : 'ready',
  model: values.model ?? 'demo-1',
  sessionId,
  transcript: join(home, 'sessions', `${sessionId}.jsonl`),
  yes: values.yes === true,
  hooks,
  history: [],
  input: '',
  queue: [],
  turns: 0,
  turn: undefined,
  asking: undefined,
};
if (process.stdin.isTTY) process.stdin.setRawMode(true);
process.stdin.setEncoding('utf8');
process.stdin.on('data', onData);
process.stdin.on('end', quit);
process.stdout.on('resize', render);
process.stdout.write('\x1b[?1049h\x1b[?2004h'); // the alternate screen, bracketed paste on
if (state.mode === 'ready') {
  append({ type: 'session', session_id: sessionId, model: state.model, version: VERSION });
  await hook('SessionStart', { model: state.model });
}
render();
