// What echo-agent draws. The whole screen is redrawn on every change (clear + home), so the
// last frame is always the whole truth — what tmux's capture-pane shows umbel.

export const VERSION = '1.0.0';
export const TRUST_QUESTION = 'Do you trust the files in this folder?';
export const SIGNED_OUT = 'Signed out. Run `echo-agent login` in a shell, then start echo-agent again.';
export const FOOTER_READY = 'enter send · esc clear · ctrl-d quit';
export const FOOTER_BUSY = 'working… · esc interrupt';
export const PROMPT_MARK = '❯';

const rule = (width) => ` ${'─'.repeat(Math.max(10, width - 2))}`;

function firstLine(text) {
  const lines = text.split('\n');
  return lines.length > 1 ? `${lines[0]} (+${lines.length - 1} lines)` : lines[0];
}

/** The lines of one frame for `state` (see main.js). */
export function frame(state, { rows = 24, columns = 80 } = {}) {
  const head = ` Echo agent ${VERSION} · model ${state.model} · session ${state.sessionId.slice(0, 8)}`;
  if (state.mode === 'starting') return [head, '', ' starting…'];
  if (state.mode === 'signed-out') return [head, '', ` ${SIGNED_OUT}`];
  if (state.mode === 'trust') return [head, '', ` ${TRUST_QUESTION}`, `   ${state.cwd}`, '', ' [y] yes, trust it   [n] no, quit'];
  const history = state.history.flatMap((line) => line.split('\n')).map((line) => ` ${line}`);
  const bottom = [rule(columns)];
  if (state.mode === 'asking') bottom.push(` Allow echo-agent to write ${state.asking.file}? [y] yes  [n] no`);
  else bottom.push(` ${PROMPT_MARK} ${firstLine(state.input)}`);
  bottom.push(` ${state.busy ? FOOTER_BUSY : FOOTER_READY}${state.queue.length ? ` · ${state.queue.length} queued` : ''}`);
  const room = Math.max(1, rows - 2 - bottom.length);
  return [head, rule(columns), ...history.slice(-room), ...bottom];
}

/** Draw a frame on `out` (a terminal: clear, home, CRLF line ends). */
export function draw(out, lines) {
  out.write(`\x1b[H\x1b[2J${lines.join('\r\n')}`);
}
