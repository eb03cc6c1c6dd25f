// The fake Qwen Code's TUI, drawn like the real 0.15.10 (QWEN-FACTS §8,
// packages/provider-qwen/src/__fixtures__/real-0.15.10-screen-*.txt): the banner with its auth
// label, the history, the shell approval box, the input box between two rules (`> text` with a
// zero-width-space cursor, the placeholder when empty), `? for shortcuts`. Keys: bracketed paste,
// typed text, Enter, Ctrl-C (clears a draft; on an empty box arms the exit, a second one quits),
// Escape (cancels a turn, rejects an approval), `1`/Enter approve. Enter while a turn runs queues the
// text (the box empties; the queued prompts and `Press ↑ to edit queued messages` show above it).

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';
const CURSOR = '\u200b';

export class Screen {
  constructor({ version, auth, model, cwd, signIn }) {
    this.header = { version, auth, model, cwd };
    this.signIn = signIn;
    this.lines = [];
    this.text = '';
    this.isReady = false;
    this.isBusy = false;
    this.armed = false;
    this.permission = undefined;
    this.pasting = undefined;
    /** Prompts queued while a turn runs (shown above the input box). */
    this.queued = [];
  }

  start({ onSubmit, onQueue, onCancel, onExit }) {
    Object.assign(this, { onSubmit, onQueue, onCancel, onExit });
    if (process.stdin.isTTY) process.stdin.setRawMode(true);
    process.stdout.write('\x1b[?2004h');
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk) => this.input(chunk));
    this.draw();
  }

  ready() {
    this.isReady = true;
    this.draw();
  }

  busy(on) {
    this.isBusy = on;
    this.draw();
  }

  say(line) {
    for (const [i, l] of line.split('\n').entries()) this.lines.push(`  ${i === 0 ? '' : '  '}${l}`);
    this.draw();
  }

  /** Show the approval box until Enter/1 (true) or Escape (false). */
  askPermission(command) {
    return new Promise((resolve) => {
      this.permission = { command, resolve };
      this.draw();
    });
  }

  width() {
    return Math.max(60, process.stdout.columns || 100);
  }

  banner() {
    const { version, auth, model, cwd } = this.header;
    const inner = 58;
    const row = (s) => `  │ ${s.padEnd(inner - 2)} │`;
    return [
      '',
      `  ┌${'─'.repeat(inner)}┐`,
      row(`>_ Qwen Code (v${version})`),
      row(''),
      row(`${auth} | ${model} (/model to change)`),
      row(cwd),
      `  └${'─'.repeat(inner)}┘`,
      '',
    ];
  }

  approvalBox() {
    const w = this.width() - 6;
    const row = (s) => `  │ ${s.padEnd(w)} │`;
    const cmd = this.permission.command;
    const name = cmd.split(/\s+/)[0];
    return [
      `  ╭${'─'.repeat(w + 2)}╮`,
      row(`?  Shell ${cmd} ←`),
      row(''),
      row(`  ${cmd}`),
      row(''),
      row(`Allow execution of: '${name}'?`),
      row(''),
      row('› 1. Yes, allow once'),
      row(`  2. Always allow run '${name} *' commands in this project`),
      row('  3. No, suggest changes (esc)'),
      `  ╰${'─'.repeat(w + 2)}╯`,
    ];
  }

  signInBox() {
    return [
      '  ┌──────────────────────────────────────┐',
      '  │ Select Authentication Method         │',
      '  │ › Alibaba ModelStudio                │',
      '  │   OAuth                              │',
      '  └──────────────────────────────────────┘',
    ];
  }

  draw() {
    const rule = '─'.repeat(this.width());
    const body = [...this.banner(), ...this.lines];
    if (this.signIn) body.push(...this.signInBox());
    if (this.permission) body.push(...this.approvalBox(), '  ⠏ Waiting for user confirmation...');
    else if (this.isBusy) body.push('  ⠋ Thinking... (esc to cancel)');
    if (this.queued.length > 0) body.push('', ...this.queued.map((q) => `  ${q.replace(/\s+/g, ' ')}`), '  Press ↑ to edit queued messages');
    if (!this.signIn) {
      const [first, ...rest] = this.text === '' ? [] : this.text.split('\n');
      const box = this.text === '' ? ['>   Type your message or @path/to/file'] : [`> ${first}`, ...rest.map((l) => `  ${l}`)];
      if (this.text !== '') box[box.length - 1] += ` ${CURSOR}`;
      body.push(rule, ...box, rule, this.armed ? '  Press Ctrl+C again to exit.' : '  ? for shortcuts');
    }
    process.stdout.write(`\x1b[2J\x1b[H${body.join('\r\n')}`);
  }

  key(name) {
    if (this.permission) {
      if (name === 'enter' || name === '1' || name === 'escape') {
        const { resolve } = this.permission;
        this.permission = undefined;
        this.draw();
        resolve(name !== 'escape');
      }
      return;
    }
    if (name === 'ctrl-c') {
      if (this.text !== '') this.text = '';
      else if (this.armed) return this.onExit();
      this.armed = true;
    } else if (name === 'escape') {
      if (this.isBusy) this.onCancel();
    } else if (name === 'enter') {
      const text = this.text;
      this.armed = false;
      if (text.trim() === '' || !this.isReady) return;
      this.text = '';
      if (this.isBusy) this.onQueue(text);
      else this.onSubmit(text);
    } else if (name === 'backspace') this.text = this.text.slice(0, -1);
    this.draw();
  }

  type(text) {
    if (this.permission) {
      if (text === '1') this.key('1');
      return;
    }
    this.armed = false;
    this.text += text.replace(/\r\n?/g, '\n');
    this.draw();
  }

  input(chunk) {
    let rest = chunk;
    while (rest.length > 0) {
      if (this.pasting !== undefined) {
        const end = rest.indexOf(PASTE_END);
        if (end === -1) {
          this.pasting += rest;
          return;
        }
        this.type(this.pasting + rest.slice(0, end));
        this.pasting = undefined;
        rest = rest.slice(end + PASTE_END.length);
      } else if (rest.startsWith(PASTE_START)) {
        this.pasting = '';
        rest = rest.slice(PASTE_START.length);
      } else if (rest.startsWith('\x1b[')) {
        const m = /^\x1b\[[0-9;?]*[A-Za-z~]/.exec(rest);
        rest = rest.slice(m ? m[0].length : 2);
      } else {
        const c = rest[0];
        rest = rest.slice(1);
        if (c === '\r') this.key('enter');
        else if (c === '\x03') this.key('ctrl-c');
        else if (c === '\x1b') this.key('escape');
        else if (c === '\x7f') this.key('backspace');
        else if (c >= ' ' || c === '\n') this.type(c);
      }
    }
  }
}
