#!/usr/bin/env node
// Records the fixtures of the provider's tests from the real echo-agent: its screens, its
// transcript and its hook payloads, in one scripted session (trust the folder, a two-line pasted
// prompt, a failing turn, a permission request approved with y, a slow turn interrupted with Esc,
// then a signed-out start).
//
//   node scripts/record-fixtures.mjs        → src/__fixtures__/
//
// echo-agent redraws its whole screen on every change, so the last frame of its output is exactly
// what `tmux capture-pane -p` shows (trailing spaces dropped). For a real CLI, record the screens
// with `umbel capture NAME` (or capture-pane) at each step, and copy the transcript and the files
// of `$UMBEL_HOME/workers/NAME/events/` (the hook payloads, verbatim).
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const agent = join(here, '..', 'bin', 'echo-agent.js');
const out = join(here, '..', 'src', '__fixtures__');
const SESSION = '00000000-0000-4000-8000-0000000ec400';

const scratch = mkdtempSync(join(tmpdir(), 'echo-record-'));
const work = join(scratch, 'project');
const home = join(scratch, 'agent-home');
const hooksDir = join(scratch, 'hooks');
mkdirSync(work);
mkdirSync(hooksDir);
let hookCount = 0;
const settings = {
  hooks: Object.fromEntries(
    ['SessionStart', 'UserPromptSubmit', 'Stop', 'StopFailure', 'PermissionRequest', 'TurnInterrupted', 'SessionEnd'].map((event) => [
      event,
      [`cat > "${hooksDir}/$(date +%s%N)-${event}.json"`],
    ]),
  ),
};
writeFileSync(join(scratch, 'settings.json'), JSON.stringify(settings));

/** Run echo-agent; `steps` are [input, screen name | undefined] pairs, each fed after the screen settles. */
async function session(steps, extraArgs = []) {
  const child = spawn(process.execPath, [agent, '--settings', join(scratch, 'settings.json'), '--session-id', SESSION, ...extraArgs], {
    cwd: work,
    env: { PATH: process.env.PATH, HOME: scratch, ECHO_AGENT_HOME: home },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const closed = new Promise((r) => child.on('close', r));
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
  const settle = () => new Promise((r) => setTimeout(r, 700));
  const screen = () =>
    (output.split('\x1b[H\x1b[2J').at(-1) ?? '')
      .replace(/\x1b\[\?(2004|1049)[hl]/g, '')
      .replace(/\r\n/g, '\n')
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n');
  for (const [input, name] of steps) {
    await settle();
    if (name) writeFileSync(join(out, `screen-${name}.txt`), `${screen()}\n`);
    if (input !== undefined) child.stdin.write(input);
  }
  await settle();
  child.stdin.end();
  await closed;
}

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'hooks'), { recursive: true });
await session([
  ['y', 'trust'],
  ['draft', 'ready'],
  ['\x7f\x7f\x7f\x7f\x7f\x1b[200~hello\nworld\x1b[201~\r', 'typed'],
  ['FAIL boom\r', 'answered'],
  ['ASK notes.txt\r', undefined],
  ['y', 'asking'],
  ['SLOW 60000 late\r', undefined],
  ['\x1b', 'busy'],
  ['\x04', undefined],
]);
cpSync(join(home, 'sessions', `${SESSION}.jsonl`), join(out, 'transcript.jsonl'));
for (const file of readdirSync(hooksDir).sort()) {
  hookCount += 1;
  const event = file.replace(/^\d+-/, '').replace(/\.json$/, '');
  const payload = JSON.parse(readFileSync(join(hooksDir, file), 'utf8'));
  writeFileSync(join(out, 'hooks', `${String(hookCount).padStart(2, '0')}-${event}.json`), `${JSON.stringify(payload, null, 2)}\n`);
}
writeFileSync(join(home, 'logged-out'), '');
await session([[undefined, 'signed-out']]);
rmSync(scratch, { recursive: true, force: true });
process.stdout.write(`recorded ${readdirSync(out).length - 1} files and ${hookCount} hook payloads into ${out}\n`);
