// The TUI of the fake opencode (FACTS.md §d, §e): full-screen redraws of the screens a provider
// waits for — `Ask anything…`, the session view with markdown rendered (backticks and ** gone), the
// busy / retry status line, `△ Permission required` with `Allow once   Allow always   Reject`
// (Enter = once, Escape = reject, ←/→ select), the `△ Always allow` confirmation — and the input
// quirks: bracketed paste summarised as `[Pasted ~N lines] ` (submitted as text.trim() + " ")
// unless `experimental.disable_paste_summary`, CR→LF in pastes, C-j = newline, Enter = submit,
// Tab = switch agent Build/Plan, Escape twice = interrupt, `/exit` (or Ctrl-C / Ctrl-D on an empty
// input) = exit 0 with the `Continue  opencode -s <id>` trailer.
import { basename } from 'node:path';
import { boot } from './boot.mjs';
import { VERSION } from './config.mjs';
import { startHttp } from './http.mjs';

const LOGO = [
  '                                 ▄',
  '█▀▀█ █▀▀█ █▀▀█ █▀▀▄ █▀▀▀ █▀▀█ █▀▀█ █▀▀█',
  '█  █ █  █ █▀▀▀ █  █ █    █  █ █  █ █▀▀▀',
  '▀▀▀▀ █▀▀▀ ▀▀▀▀ ▀▀▀▀ ▀▀▀▀ ▀▀▀▀ ▀▀▀▀ ▀▀▀▀',
];
const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';
const OPTIONS = ['Allow once', 'Allow always', 'Reject'];

/** Markdown as the TUI shows it: emphasis, code and heading markers removed. */
export function renderMarkdown(text) {
  return text
    .replace(/```[a-z]*\n?/g, '')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\*\*([^*]+)\*\*/g, '$1')
    .replace(/__([^_]+)__/g, '$1')
    .replace(/^#{1,6} /gm, '');
}

/** What a bracketed paste inserts: {insert, mark?} (mark = the summarised text behind a placeholder). */
export function pasteInsert(raw, summary = true) {
  const text = raw.replace(/\r\n/g, '\n').replace(/\r/g, '\n');
  const t = text.trim();
  const lines = (t.match(/\n/g)?.length ?? 0) + 1;
  if (summary && (lines >= 3 || t.length > 150)) {
    const placeholder = `[Pasted ~${lines} lines]`;
    return { insert: `${placeholder} `, mark: { placeholder, text: t } };
  }
  return { insert: text };
}

/** The submitted text: every placeholder replaced by its pasted text (its trailing space stays). */
export function expandInput(input, marks) {
  let out = input;
  for (const m of marks) {
    const at = out.indexOf(m.placeholder);
    if (at >= 0) out = out.slice(0, at) + m.text + out.slice(at + m.placeholder.length);
  }
  return out;
}

class Tui {
  constructor({ cwd, env, flags, log }) {
    Object.assign(this, { cwd, env, flags, log });
    this.input = '';
    this.marks = [];
    this.history = [];
    this.perm = undefined;
    this.escArmed = false;
    this.status = undefined;
    this.exiting = false;
  }

  get cols() {
    return process.stdout.columns || 120;
  }

  get rows() {
    return process.stdout.rows || 40;
  }

  async start() {
    process.stdout.write('\x1b[?1049h\x1b[?2004h\x1b[?25l');
    this.draw(['', '  (loading…)']);
    const { engine, loaded, model } = await boot({
      cwd: this.cwd,
      env: this.env,
      flags: this.flags,
      log: this.log,
      ui: { askPermission: (req) => this.ask(req), onChange: () => this.render(), onEvent: (e) => this.onEvent(e) },
    });
    if (!engine) throw new Error('no model configured (add a provider with models to opencode.json)');
    this.engine = engine;
    this.model = model;
    this.summary = !loaded.config.experimental?.disable_paste_summary;
    if (this.flags['--port']) this.http = await startHttp(this, this.flags, this.env);
    if (process.stdin.isTTY) process.stdin.setRawMode(true);
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (d) => this.onData(d));
    process.stdout.on('resize', () => this.render());
    this.timer = setInterval(() => this.status && this.render(), 1000);
    this.render();
    if (typeof this.flags['--prompt'] === 'string') {
      this.input = this.flags['--prompt'];
      this.submit();
    }
    return new Promise((resolve) => {
      this.done = resolve;
    });
  }

  onEvent(e) {
    const p = e.properties;
    if (e.type === 'session.error') this.history.push({ kind: 'error', text: p.error?.data?.message ?? p.error?.name });
    if (e.type === 'session.status') this.status = p.status.type === 'idle' ? undefined : p.status;
    if (e.type === 'message.part.updated' && p.part.type === 'tool' && p.part.state.status === 'completed') {
      this.history.push({ kind: 'tool', command: p.part.state.input.command, output: p.part.state.output });
    }
  }

  draw(lines) {
    const rows = lines.slice(-this.rows);
    while (rows.length < this.rows) rows.push('');
    process.stdout.write(`\x1b[H${rows.map((l) => `${l.slice(0, this.cols)}\x1b[K`).join('\r\n')}`);
  }

  agentLine() {
    const agent = this.engine.agent === 'plan' ? 'Plan' : 'Build';
    return `  ┃  ${agent} · ${this.model.name} ${this.model.provider?.name ?? this.model.providerID}`;
  }

  inputBox() {
    if (this.perm) return this.permBox();
    const out = ['  ┃'];
    if (this.input.startsWith('/') && !this.input.includes(' ')) out.unshift('  ┃ /exit         Exit the app', '  ┃ /export       Export session transcript');
    const text = this.input === '' && !this.engine.doc ? 'Ask anything… "Fix a TODO in the codebase"' : this.input;
    for (const l of text.split('\n')) out.push(`  ┃  ${l}`);
    out.push('  ┃', this.agentLine(), `  ╹${'▀'.repeat(Math.max(10, this.cols - 6))}`);
    return out;
  }

  permBox() {
    if (this.perm.confirm) {
      return [
        '  ┃',
        '  ┃  △ Always allow',
        '  ┃',
        '  ┃  This will allow the following patterns until OpenCode is restarted',
        '  ┃',
        ...this.perm.req.always.map((a) => `  ┃  - ${a}`),
        '  ┃',
        '  ┃',
        `  ┃   ${['Confirm', 'Cancel'].map((o, i) => (i === this.perm.sel ? `\x1b[7m${o}\x1b[27m` : o)).join('   ')}     ⇆ select  enter confirm`,
        '  ┃',
      ];
    }
    const opts = OPTIONS.map((o, i) => (i === this.perm.sel ? `\x1b[7m${o}\x1b[27m` : o)).join('   ');
    return [
      '  ┃',
      '  ┃  △ Permission required',
      '  ┃    # Shell command',
      '  ┃',
      `  ┃  $ ${this.perm.req.metadata.command}`,
      '  ┃',
      '  ┃',
      `  ┃   ${opts}      ctrl+f fullscreen  ⇆ select  enter confirm`,
      '  ┃',
    ];
  }

  footer() {
    const s = this.status;
    if (s?.type === 'retry') {
      const secs = Math.max(0, Math.round((s.next - Date.now()) / 1000));
      return `   ⬝⬝⬝⬝⬝⬝⬝⬝ ${s.message} [retrying in ${secs}s attempt #${s.attempt}]   ${this.escArmed ? 'esc again to interrupt' : 'esc interrupt'}`;
    }
    if (this.engine.busy) return `   ⬝⬝⬝⬝■■■■   ${this.escArmed ? 'esc again to interrupt' : 'esc interrupt'}`;
    return `   ${this.cwd}    ctrl+p commands`;
  }

  render() {
    if (!this.engine || this.exiting) return;
    if (!this.engine.doc) {
      const top = Math.max(0, Math.floor((this.rows - 14) / 2));
      const lines = [
        ...Array(top).fill(''),
        ...LOGO.map((l) => `  ${l}`),
        '',
        ...this.inputBox(),
        '                         tab agents  ctrl+p commands',
        '',
        `  ${this.cwd}    ${VERSION}`,
      ];
      return this.draw(lines);
    }
    const lines = [];
    for (const m of this.engine.doc.messages) {
      if (m.info.role === 'user') {
        lines.push('', '  ┃', ...m.parts.filter((p) => p.type === 'text').flatMap((p) => p.text.split('\n').map((l) => `  ┃  ${l}`)), '  ┃', '');
        continue;
      }
      for (const p of m.parts) {
        if (p.type === 'text')
          lines.push(
            ...renderMarkdown(p.text)
              .split('\n')
              .map((l) => `     ${l}`),
            '',
          );
        if (p.type === 'tool')
          lines.push(
            `     $ ${p.state.input?.command ?? ''}`,
            ...(p.state.output ?? '')
              .replace(/\n$/, '')
              .split('\n')
              .filter((l) => l !== '')
              .map((l) => `     ${l}`),
            '',
          );
      }
      if (m.info.error) lines.push('  ┃', `  ┃  ${m.info.error.data?.message ?? m.info.error.name}`, '  ┃', '');
      if (m.info.time.completed && m.info.finish === 'stop')
        lines.push(
          `     ▣  ${m.info.agent === 'plan' ? 'Plan' : 'Build'} · ${this.model.name} · ${((m.info.time.completed - m.info.time.created) / 1000).toFixed(1)}s`,
          '',
        );
    }
    this.draw([...lines, ...this.inputBox(), this.footer()]);
  }

  ask(req) {
    return new Promise((resolve) => {
      this.perm = { req, sel: 0, resolve };
      this.render();
    });
  }

  answer(reply) {
    const p = this.perm;
    this.perm = undefined;
    p.resolve(reply);
    this.render();
  }

  onData(data) {
    let rest = data;
    while (rest.length > 0) {
      if (this.pasting !== undefined) {
        const end = rest.indexOf(PASTE_END);
        if (end < 0) {
          this.pasting += rest;
          return;
        }
        this.onPaste(this.pasting + rest.slice(0, end));
        this.pasting = undefined;
        rest = rest.slice(end + PASTE_END.length);
        continue;
      }
      if (rest.startsWith(PASTE_START)) {
        this.pasting = '';
        rest = rest.slice(PASTE_START.length);
        continue;
      }
      const m = /^\x1b\[[0-9;]*[A-Za-z~]/.exec(rest);
      if (m) {
        this.onKey(m[0]);
        rest = rest.slice(m[0].length);
        continue;
      }
      const ch = String.fromCodePoint(rest.codePointAt(0));
      this.onKey(ch);
      rest = rest.slice(ch.length);
    }
    this.render();
  }

  onPaste(raw) {
    if (this.perm) return;
    const { insert, mark } = pasteInsert(raw, this.summary);
    this.input += insert;
    if (mark) this.marks.push(mark);
  }

  onKey(key) {
    if (this.perm) return this.permKey(key);
    if (key === '\x1b') return this.escape();
    if (key === '\r') return this.submit();
    if (key === '\n') this.input += '\n';
    else if (key === '\t') this.engine.agent = this.engine.agent === 'build' ? 'plan' : 'build';
    else if (key === '\x7f' || key === '\b') this.input = [...this.input].slice(0, -1).join('');
    else if (key === '\x03' || key === '\x04') {
      if (this.input === '') return this.exit();
      this.input = '';
      this.marks = [];
    } else if (!key.startsWith('\x1b') && key >= ' ') this.input += key;
  }

  permKey(key) {
    const p = this.perm;
    const n = p.confirm ? 2 : 3;
    if (key === '\x1b[C' || key === '\t') p.sel = (p.sel + 1) % n;
    else if (key === '\x1b[D') p.sel = (p.sel + n - 1) % n;
    else if (key === '\x1b') {
      if (p.confirm) p.confirm = false;
      else this.answer('reject');
    } else if (key === '\r') {
      if (p.confirm) return p.sel === 0 ? this.answer('always') : Object.assign(p, { confirm: false, sel: 0 });
      if (p.sel === 0) this.answer('once');
      else if (p.sel === 2) this.answer('reject');
      else Object.assign(p, { confirm: true, sel: 0 });
    }
  }

  escape() {
    if (!this.engine.busy) return;
    if (!this.escArmed) {
      this.escArmed = true;
      clearTimeout(this.escTimer);
      this.escTimer = setTimeout(() => {
        this.escArmed = false;
        this.render();
      }, 5000);
      return;
    }
    this.escArmed = false;
    this.engine.interrupt();
  }

  submit() {
    const text = expandInput(this.input, this.marks);
    if (text.trim() === '' || this.engine.busy) return;
    if (text.trim() === '/exit') return this.exit();
    this.input = '';
    this.marks = [];
    this.engine.submit(text).catch((err) => this.log(`ERROR turn failed: ${err?.stack ?? err}`));
  }

  exit() {
    if (this.exiting) return;
    this.exiting = true;
    clearInterval(this.timer);
    this.http?.close();
    process.stdout.write('\x1b[?2004l\x1b[?25h\x1b[?1049l');
    const doc = this.engine.doc;
    const trailer = ['', ...LOGO.map((l) => `  ${l}`), ''];
    if (doc) trailer.push(`  Session   ${doc.info.title}`, `  Continue  opencode -s ${doc.info.id}`, '');
    process.stdout.write(`${trailer.join('\n')}\n`, () => process.exit(0));
  }
}

export async function startTui(opts) {
  if (!process.stdout.isTTY) {
    process.stderr.write(`Error: opencode ${basename(process.argv[1] ?? 'opencode')} needs a terminal (use \`opencode run\`)\n`);
    return 1;
  }
  const tui = new Tui(opts);
  process.on('SIGTERM', () => process.exit(143));
  process.on('SIGHUP', () => process.exit(129));
  return tui.start();
}
