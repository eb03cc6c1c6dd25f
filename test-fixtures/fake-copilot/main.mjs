#!/usr/bin/env node
// Fake GitHub Copilot CLI 1.0.102 for umbel's tests (facts: test-fixtures/real/COPILOT-FACTS.md).
// The interactive TUI only: the folder-trust dialog, the `❯` input box between two rules, the
// permission dialog, `Please use /login …` when nothing can pay; bracketed paste (a tab becomes four
// spaces, the prompt's end is trimmed, as the real input box does), Enter submits, Escape stops a
// turn at a permission, Ctrl-C clears a draft (twice on an empty box quits). Records and hooks:
// ./records.mjs; turns: ./agent.mjs (replies from test-fixtures/lib/directives.mjs, no HTTP).
// Flags: --version, --plugin-dir D, --session-id ID, --model M, --allow-all|--yolo, --plan,
// --allow-tool T (repeatable); others are ignored.
import { randomUUID } from 'node:crypto';
import { createAgent } from './agent.mjs';
import { loadHooks, openEvents, runHook } from './records.mjs';

const VERSION = '1.0.102';
const argv = process.argv.slice(2);
if (argv.includes('--version') || argv.includes('-v')) {
  process.stdout.write(`GitHub Copilot CLI ${VERSION}.\nRun 'copilot update' to check for updates.\n`);
  process.exit(0);
}
const opt = (name) => {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
};
const env = process.env;
const cwd = process.cwd();
const sessionId = opt('--session-id') ?? randomUUID();
const model = opt('--model') ?? env.COPILOT_MODEL ?? 'gpt-5.4';
const signedIn = ['COPILOT_PROVIDER_BASE_URL', 'COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN', 'FAKE_COPILOT_SIGNED_IN'].some((n) => env[n]);
const hooks = loadHooks(opt('--plugin-dir'));
const events = openEvents(sessionId);
events.add('session.start', { sessionId, version: 1, producer: 'copilot-agent', copilotVersion: VERSION, selectedModel: model, context: { cwd } });

const ui = { trusted: false, draft: '', history: [], busy: false, asking: undefined, armed: false };
const RULE = () => '─'.repeat(Math.max(40, process.stdout.columns || 100));

function box(lines) {
  const w = Math.max(40, (process.stdout.columns || 100) - 2);
  return [`╭${'─'.repeat(w)}╮`, ...lines.map((l) => `│ ${l.padEnd(w - 2)} │`), `╰${'─'.repeat(w)}╯`];
}

function draw() {
  const out = ['  ╭─╮╭─╮', `  ╰─╯╰─╯  Copilot v${VERSION} uses AI.`, '  █ ▘▝ █  Check for mistakes.', ''];
  if (!ui.trusted) {
    out.push(
      ...box([
        'Confirm folder trust',
        '',
        cwd,
        '',
        'Do you trust the files in this folder?',
        '',
        '❯ 1. Yes',
        '  2. Yes, and remember this folder for future sessions',
        '  3. No (Esc)',
        '',
        '↑/↓ to navigate · enter to select · esc to cancel',
      ]),
    );
  } else {
    out.push(...ui.history.slice(-40), ` ${cwd}`);
    if (ui.asking) {
      out.push(
        ...box([
          `Run ${ui.asking.command}`,
          '',
          'Do you want to run this command?',
          '',
          '❯ 1. Yes',
          "  2. Yes, and don't ask again in this directory",
          '  3. No, and tell Copilot what to do differently (Esc to stop)',
          '',
          '↑/↓ to navigate · enter to select · esc to cancel',
        ]),
      );
    } else {
      const [first = '', ...rest] = ui.draft.split('\n');
      out.push(RULE(), `❯ ${first}`.trimEnd(), ...rest.map((l) => `  ${l}`), RULE());
      out.push(ui.busy ? ' ○ Working esc esc edit prompt' : ' ← open sidebar · Interactive · Manual Approval · / commands · ? help');
    }
  }
  process.stdout.write(`\x1b[2J\x1b[H${out.join('\r\n')}`);
}

const agent = createAgent({
  events,
  runHook: (event, payload) => runHook(hooks, event, payload, cwd),
  sessionId,
  cwd,
  model,
  allowAll: argv.includes('--allow-all') || argv.includes('--yolo'),
  allowTools: argv.flatMap((a, i) => (argv[i - 1] === '--allow-tool' ? [a] : [])),
  ask: (command) =>
    new Promise((resolve) => {
      ui.asking = { command, resolve };
      draw();
    }),
});

async function submit() {
  const prompt = ui.draft.trimEnd();
  ui.draft = '';
  if (prompt === '') return draw();
  ui.history.push(` ❯ ${prompt.split('\n').join('\n   ')}`);
  if (!signedIn) {
    ui.history.push('Please use /login to sign in to use Copilot');
    return draw();
  }
  ui.busy = true;
  draw();
  const r = await agent.turn(prompt);
  ui.busy = false;
  ui.history.push(r.aborted ? ' ● Operation cancelled by user' : r.error ? ` ✗ ${r.error}` : ` ● ${r.answer}`);
  draw();
}

function answer(approved) {
  const { resolve } = ui.asking;
  ui.asking = undefined;
  resolve(approved);
}

function key(k) {
  if (!ui.trusted) {
    if (k === '\r' || k === '1') {
      ui.trusted = true;
      // offline with nothing that pays, the real CLI says so right after the trust dialog
      if (!signedIn) ui.history.push('Please use /login to sign in to use Copilot');
    } else if (k === '\x1b' || k === '3') process.exit(0);
    return draw();
  }
  if (ui.asking) {
    if (k === '\r' || k === '1' || k === '2') answer(true);
    else if (k === '\x1b' || k === '3') answer(false);
    return;
  }
  if (k === '\r') return ui.busy ? undefined : void submit();
  if (k === '\x03') {
    if (ui.draft === '' && ui.armed) process.exit(0);
    ui.armed = ui.draft === '';
    ui.draft = '';
  } else if (k === '\x7f') ui.draft = ui.draft.slice(0, -1);
  else if (k >= ' ') ui.draft += k;
  draw();
}

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';
let pasting = false;
function input(chunk) {
  let s = chunk;
  while (s.length) {
    if (pasting) {
      const end = s.indexOf(PASTE_END);
      ui.draft += (end === -1 ? s : s.slice(0, end)).replace(/\r\n?/g, '\n').replaceAll('\t', '    ');
      if (end === -1) return draw();
      pasting = false;
      s = s.slice(end + PASTE_END.length);
      draw();
    } else if (s.startsWith(PASTE_START)) {
      pasting = true;
      s = s.slice(PASTE_START.length);
    } else {
      key(s[0]);
      s = s.slice(1);
    }
  }
}

// the alternate screen, as the real TUI: no scrollback, so a redraw leaves nothing of the last frame
// and bracketed paste asked for (tmux brackets a paste only for a program that asks)
process.stdout.write('\x1b[?1049h\x1b[?2004h');
process.on('exit', () => process.stdout.write('\x1b[?1049l'));
process.stdin.setRawMode?.(true);
process.stdin.setEncoding('utf8');
process.stdin.on('data', input);
process.stdout.on('resize', draw);
setTimeout(draw, 300);
