// The interactive part of echo-agent: its state, what each key does, and the turns.
import { fireHook } from './hooks.js';
import { createInputParser } from './input.js';
import { draw, frame, VERSION } from './screen.js';
import { appendEntry, isLoggedOut, isTrusted, trust } from './session.js';

/** The answer of one prompt and how long it takes, from its directive. */
export function plan(prompt) {
  const text = prompt.trim();
  const slow = /^SLOW (\d+)\s*([\s\S]*)$/.exec(text);
  if (slow) return { kind: 'answer', answer: `echo: ${slow[2]}`, delayMs: Number(slow[1]) };
  if (text.startsWith('FAIL')) return { kind: 'fail', message: `simulated API error: ${text.slice(4).trim() || 'overloaded'}`, delayMs: 100 };
  const ask = /^ASK (\S+)/.exec(text);
  if (ask) return { kind: 'ask', file: ask[1], delayMs: 100 };
  return { kind: 'answer', answer: `echo: ${prompt}`, delayMs: 150 };
}

export class Tui {
  constructor({ state, hooks, home, out }) {
    this.state = state;
    this.hooks = hooks;
    this.home = home;
    this.out = out;
    this.current = undefined;
  }

  render() {
    draw(this.out, frame(this.state, { rows: this.out.rows || 24, columns: this.out.columns || 80 }));
  }

  common() {
    return { session_id: this.state.sessionId, transcript_path: this.state.transcript, cwd: this.state.cwd };
  }

  hook(event, payload = {}) {
    return fireHook(this.hooks, event, { ...this.common(), ...payload });
  }

  run(stdin) {
    const feed = createInputParser((event) => this.onEvent(event));
    if (stdin.isTTY) stdin.setRawMode(true);
    stdin.setEncoding('utf8');
    stdin.on('data', feed);
    stdin.on('end', () => this.quit());
    this.out.on('resize', () => this.render());
    // The alternate screen (no scrollback: a redraw leaves no old frame behind for capture-pane),
    // and bracketed paste on: tmux wraps a paste in ESC[200~ … ESC[201~.
    this.out.write('\x1b[?1049h\x1b[?2004h');
    this.start();
  }

  async start() {
    const { state } = this;
    if (isLoggedOut(this.home)) state.mode = 'signed-out';
    else if (!state.yes && !isTrusted(this.home, state.cwd)) state.mode = 'trust';
    else {
      state.mode = 'ready';
      appendEntry(state.transcript, { type: 'session', session_id: state.sessionId, cwd: state.cwd, model: state.model, version: VERSION });
      await this.hook('SessionStart', { model: state.model });
    }
    this.render();
  }

  async begin(prompt) {
    const { state } = this;
    state.turns += 1;
    const turn = { id: `turn-${state.turns}`, prompt };
    this.current = turn;
    state.busy = true;
    state.history.push(`› ${prompt}`);
    this.render();
    appendEntry(state.transcript, { type: 'user', turn_id: turn.id, text: prompt });
    await this.hook('UserPromptSubmit', { turn_id: turn.id, prompt });
    const step = plan(prompt);
    if (step.kind === 'ask' && !state.yes) {
      state.mode = 'asking';
      state.asking = { turn, file: step.file };
      this.render();
      await this.hook('PermissionRequest', { turn_id: turn.id, tool: 'write_file', message: `echo-agent wants to write ${step.file}` });
      return;
    }
    const result = step.kind === 'ask' ? { kind: 'answer', answer: `approved: wrote ${step.file}` } : step;
    turn.timer = setTimeout(() => this.finish(turn, result), step.delayMs);
  }

  async finish(turn, result) {
    if (this.current !== turn) return;
    const { state } = this;
    if (result.kind === 'fail') {
      appendEntry(state.transcript, { type: 'error', turn_id: turn.id, message: result.message });
      state.history.push(`✗ ${result.message}`);
      await this.hook('StopFailure', { turn_id: turn.id, error: result.message });
    } else {
      appendEntry(state.transcript, { type: 'assistant', turn_id: turn.id, text: result.answer });
      appendEntry(state.transcript, { type: 'turn_end', turn_id: turn.id, usage: { input_tokens: turn.prompt.length, output_tokens: result.answer.length } });
      state.history.push(result.answer);
      await this.hook('Stop', { turn_id: turn.id, last_message: result.answer });
    }
    this.current = undefined;
    state.busy = false;
    this.render();
    this.next();
  }

  next() {
    if (!this.state.busy && this.state.queue.length > 0) this.begin(this.state.queue.shift());
  }

  submit() {
    const prompt = this.state.input;
    this.state.input = '';
    if (prompt.trim() !== '') this.state.queue.push(prompt);
    this.render();
    this.next();
  }

  async interrupt() {
    const turn = this.current;
    if (!turn) return;
    clearTimeout(turn.timer);
    this.current = undefined;
    Object.assign(this.state, { busy: false, mode: 'ready', asking: undefined });
    appendEntry(this.state.transcript, { type: 'interrupted', turn_id: turn.id });
    this.state.history.push('⏹ interrupted');
    this.render();
    await this.hook('TurnInterrupted', { turn_id: turn.id });
    this.next();
  }

  answerAsk(approved) {
    const { turn, file } = this.state.asking;
    Object.assign(this.state, { mode: 'ready', asking: undefined });
    this.render();
    const answer = approved ? `approved: wrote ${file}` : `denied: did not write ${file}`;
    turn.timer = setTimeout(() => this.finish(turn, { kind: 'answer', answer }), 50);
  }

  async quit() {
    if (this.state.mode === 'ready' || this.state.mode === 'asking') await this.hook('SessionEnd');
    this.out.write('\x1b[?2004l\x1b[?1049l');
    process.exit(0);
  }

  onEvent(event) {
    const key = event.type === 'key' ? event.name : undefined;
    const letter = event.type === 'text' ? event.text.toLowerCase() : undefined;
    if (key === 'ctrl-d') return this.quit();
    if (this.state.mode === 'trust') return this.onTrust(letter, key);
    if (this.state.mode === 'asking') {
      if (letter === 'y' || letter === 'n') return this.answerAsk(letter === 'y');
      if (key === 'escape') return this.answerAsk(false);
      return;
    }
    if (this.state.mode === 'ready') this.onPrompt(event, key);
  }

  onTrust(letter, key) {
    if (letter === 'y') {
      trust(this.home, this.state.cwd);
      this.start();
    } else if (letter === 'n' || key === 'escape') this.quit();
  }

  onPrompt(event, key) {
    const { state } = this;
    if (event.type === 'paste' || event.type === 'text') state.input += event.text;
    else if (key === 'backspace') state.input = [...state.input].slice(0, -1).join('');
    else if (key === 'enter') return this.submit();
    else if (key === 'escape' && state.busy) return this.interrupt();
    else if (key === 'escape') state.input = '';
    else if (key === 'ctrl-c' && !state.input) return this.quit();
    else if (key === 'ctrl-c') state.input = '';
    this.render();
  }
}
