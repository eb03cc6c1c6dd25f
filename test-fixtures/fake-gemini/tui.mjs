// The interactive TUI of the fake `gemini` (reference gemini.md §3, §6, §7, §8). Full-screen redraws of
// the screens umbel reads: the first-launch dialogs, the idle input box (`Type your message`), the busy
// spinner `(esc to cancel, Ns)`, the approval box, the window title (OSC 0), and the input quirks:
// bracketed paste, an Enter within ~30 ms (40 ms after a paste) becoming a newline, a trailing `\` eating
// Enter, typed TAB swallowed, `!`/`?` typed on an empty box switching modes, slash commands, @file.
// Knob FAKE_GEMINI_EAT_ENTERS=<n>: for the first n pastes, the first Enter after the paste becomes a
// newline whatever its timing (what the real CLI does to an Enter that arrives too soon after a paste
// on a loaded machine); only a second Enter submits.
import { readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { NO_RESPONSE, runTurn } from './agent.mjs';
import { runHooks } from './hooks.mjs';
import { saveUserSetting, trustFolder } from './settings.mjs';

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';
const FAST_RETURN_MS = 30;
const FAST_RETURN_AFTER_PASTE_MS = 40;
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const KNOWN_COMMANDS = new Set([
  'quit',
  'exit',
  'clear',
  'about',
  'help',
  'stats',
  'auth',
  'model',
  'settings',
  'tools',
  'memory',
  'chat',
  'resume',
  'rewind',
  'theme',
  'hooks',
  'mcp',
  'privacy',
  'docs',
  'bug',
  'copy',
  'compress',
  'directory',
  'editor',
  'extensions',
  'ide',
  'init',
  'permissions',
  'plan',
  'policies',
  'restore',
  'skills',
  'vim',
  'agents',
  'terminal-setup',
]);

/** Expand `@path` tokens whose file exists (relative to cwd), like the CLI's ReadManyFiles. */
export function expandAtFiles(text, cwd) {
  const files = [];
  for (const m of text.matchAll(/(?:^|\s)@([^\s]+)/g)) {
    const rel = m[1];
    const path = join(cwd, rel);
    try {
      if (statSync(path).isFile()) files.push({ rel, body: readFileSync(path, 'utf8') });
    } catch {}
  }
  if (files.length === 0) return { parts: [{ text }], hookPrompt: text };
  const parts = [{ text }, { text: '\n--- Content from referenced files ---' }];
  for (const f of files) parts.push({ text: `\nContent from @${f.rel}:\n` }, { text: f.body });
  parts.push({ text: '\n--- End of content ---' });
  return { parts, display: [{ text }], hookPrompt: parts.map((p) => p.text).join(''), files };
}

export class Tui {
  /** @param {object} s session (see agent.mjs) plus {startup: string[], quit(code)} */
  constructor(s) {
    this.s = s;
    this.out = process.stdout;
    this.base = process.env.CLI_TITLE || basename(s.cwd);
    this.buffer = '';
    this.mode = 'input'; // input | shell
    this.screen = 'ready'; // trust | auth | apikey | ready | busy | approval | quitting
    this.history = [];
    this.warnings = [...(s.warnings ?? [])];
    this.queue = [];
    this.lastInsertAt = 0;
    this.lastInsertPaste = false;
    this.pasteBuf = null;
    this.notice = '';
    this.ctrlCArmedAt = 0;
    this.ctrlDArmedAt = 0;
    this.lastEscAt = 0;
    this.shortcuts = false;
    this.busySince = 0;
    this.activity = '';
    this.abort = null;
    this.approval = null;
    /** The input box is up but the config is not initialized yet (see enterReady). */
    this.initializing = false;
    /** Pastes left whose first Enter is eaten (FAKE_GEMINI_EAT_ENTERS). */
    this.eatEnters = Number(process.env.FAKE_GEMINI_EAT_ENTERS ?? 0) || 0;
  }

  title() {
    if (this.screen === 'approval') return `✋  Action Required (${this.base})`;
    if (this.screen === 'busy') return `✦  Working… (${this.base})`;
    return `◇  Ready (${this.base})`;
  }

  render() {
    const W = Math.max(60, (this.out.columns ?? 200) - 1);
    const H = this.out.rows ?? 50;
    const box = (lines) => {
      const inner = W - 4;
      return ['╭' + '─'.repeat(W - 2) + '╮', ...lines.map((l) => `│ ${l.slice(0, inner).padEnd(inner)} │`), '╰' + '─'.repeat(W - 2) + '╯'];
    };
    const top = [' ▝▜▄     Gemini CLI v0.61.0', '   ▝▜▄', `  ▗▟▀    Authenticated with ${this.s.authType ?? 'none'} /auth`, ' ▝▀', ''];
    for (const w of this.warnings) top.push(`⚠  ${w}`);
    let body = [];
    if (this.screen === 'trust') {
      body = box(['Do you trust the files in this folder?', '', `● 1. Trust folder (${basename(this.s.cwd)})`, '  2. Trust parent folder', "  3. Don't trust"]);
    } else if (this.screen === 'auth') {
      body = box([
        '? Get started',
        '',
        '  How would you like to authenticate for this project?',
        '',
        '    1. Sign in with Google',
        '  ● 2. Use Gemini API Key',
        '    3. Vertex AI',
        '',
        ...(process.env.GEMINI_API_KEY ? ['  Existing API key detected (GEMINI_API_KEY). Select "Gemini API Key" option to use it.'] : []),
        '',
        '  (Use Enter to select)',
      ]);
    } else if (this.screen === 'apikey') {
      body = box([
        'Enter Gemini API Key',
        '',
        `  ${process.env.GEMINI_API_KEY ? 'test' : ''}`,
        '',
        '(Press Enter to submit, Esc to cancel, Ctrl+C to clear stored key)',
      ]);
    } else {
      body = [...this.history];
      if (this.screen === 'approval' && this.approval) {
        body.push(
          ...box([
            `? Shell  ${this.approval.command}`,
            this.approval.command,
            'Allow execution of [Shell]?',
            '',
            '● 1. Allow once',
            '  2. Allow for this session',
            '  3. No, suggest changes (esc)',
          ]),
        );
      }
      if (this.screen === 'quota' && this.quota) {
        const pick = (i, label) => `${this.quota.sel === i ? '●' : ' '} ${i + 1}. ${label}`;
        body.push(
          ...box([
            '',
            `Usage limit reached for ${this.quota.model}.`,
            '/stats model for usage details',
            '/model to switch models.',
            '',
            '',
            pick(0, 'Keep trying'),
            pick(1, 'Stop'),
            '',
            '',
          ]),
        );
      }
      if (this.screen === 'busy') {
        const secs = Math.floor((Date.now() - this.busySince) / 1000);
        body.push(`${SPINNER[secs % SPINNER.length]} ${this.activity || 'Thinking...'} (esc to cancel, ${secs}s)`);
      }
      for (const q of this.queue) body.push(`Queued (press ↑ to edit): ${q}`);
      if (this.shortcuts) body.push('! for shell mode   @ for file paths   / for commands   esc esc to clear input');
      if (this.notice) body.push(this.notice);
    }
    const showInput = this.screen === 'ready' || this.screen === 'busy' || this.screen === 'approval';
    const promptChar = this.mode === 'shell' ? '!' : this.s.approvalMode === 'yolo' ? '*' : '>';
    const modeLine =
      this.s.approvalMode === 'yolo'
        ? ' YOLO Ctrl+Y'
        : this.s.approvalMode === 'auto_edit'
          ? ' auto-accept edits Shift+Tab to plan'
          : this.s.approvalMode === 'plan'
            ? ' plan Shift+Tab to manual'
            : ' Shift+Tab to accept edits';
    const placeholder = this.mode === 'shell' ? 'Type your shell command' : 'Type your message or @path/to/file';
    const inputLines =
      this.buffer === '' ? [` ${promptChar}   ${placeholder}`] : this.buffer.split('\n').map((l, i) => (i === 0 ? ` ${promptChar} ${l}` : `   ${l}`));
    const bottom = showInput
      ? [
          ' '.repeat(Math.max(0, W - 16)) + '? for shortcuts',
          '─'.repeat(W),
          modeLine,
          ...inputLines,
          ' workspace (/directory)            sandbox              /model',
          ` ${this.s.cwd}            no sandbox           ${this.s.modelLabel}`,
        ]
      : [];
    const room = Math.max(0, H - top.length - bottom.length - 1);
    const lines = [...top, ...body.slice(-room), ...bottom].slice(0, H);
    const title = this.title().padEnd(80);
    this.out.write(`\x1b]0;${title}\x07\x1b[2J\x1b[H${lines.join('\r\n')}`);
  }

  async start() {
    const { s } = this;
    if (process.stdin.isTTY) process.stdin.setRawMode(true);
    // bracketed paste is turned on once the config is initialized (see enterReady)
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (d) => this.feed(d));
    this.spinTimer = setInterval(() => {
      if (this.screen === 'busy') this.render();
    }, 1000);
    this.spinTimer.unref?.();
    if (s.needsTrust) this.screen = 'trust';
    else if (s.needsAuth) this.screen = 'auth';
    else await this.enterReady();
    this.render();
  }

  async enterReady() {
    // The input box is drawn before the config is initialized (FAKE_GEMINI_INIT_MS, default 300):
    // until then bracketed paste is off (a paste arrives as typed keys: `!`/`?` first switch modes,
    // a newline submits) and a submit is queued with "Initializing... Prompts will be queued.".
    // SessionStart fires right after the initialization, as in 0.61.0 (AppContainer).
    this.screen = 'ready';
    this.initializing = true;
    this.render();
    const initMs = Number(process.env.FAKE_GEMINI_INIT_MS ?? 300);
    if (initMs > 0) await new Promise((r) => setTimeout(r, initMs));
    await this.s.begin();
    this.out.write('\x1b[?2004h'); // bracketed paste on, as the real TUI does
    this.initializing = false;
    await runHooks(this.s.settings, 'SessionStart', { source: 'startup' }, this.hookCtx());
    if (this.s.initialPrompt) this.submit(this.s.initialPrompt);
    const queued = this.queue.shift();
    if (queued !== undefined) this.submit(queued);
  }

  hookCtx() {
    return { sessionId: this.s.sessionId, transcriptPath: this.s.chat?.path, cwd: this.s.cwd };
  }

  feed(data) {
    let rest = data;
    while (rest.length > 0) {
      if (this.pasteBuf !== null) {
        const end = rest.indexOf(PASTE_END);
        if (end === -1) {
          this.pasteBuf += rest;
          return;
        }
        this.pasteBuf += rest.slice(0, end);
        rest = rest.slice(end + PASTE_END.length);
        const text = this.pasteBuf.replace(/\r\n?/g, '\n');
        this.pasteBuf = null;
        this.insert(text, true);
        continue;
      }
      const start = rest.indexOf(PASTE_START);
      const chunk = start === -1 ? rest : rest.slice(0, start);
      this.keys(chunk);
      if (start === -1) break;
      this.pasteBuf = '';
      rest = rest.slice(start + PASTE_START.length);
    }
    this.render();
  }

  keys(chunk) {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      if (c === '\x1b') {
        const m = /^\x1b(\[[0-9;?]*[A-Za-z~]|O[A-Za-z])/.exec(chunk.slice(i));
        if (m) {
          i += m[0].length - 1;
          if (/[AB]$/.test(m[0])) this.key(m[0].endsWith('A') ? 'up' : 'down');
          continue;
        }
        this.key('escape');
      } else if (c === '\r') this.key('enter');
      else if (c === '\n') this.insert('\n', false);
      else if (c === '\x03') this.key('ctrl-c');
      else if (c === '\x04') this.key('ctrl-d');
      else if (c === '\x19') this.s.approvalMode = this.s.approvalMode === 'yolo' ? 'default' : 'yolo';
      else if (c === '\t')
        continue; // focus key: swallowed
      else if (c === '\x7f' || c === '\b') this.buffer = this.buffer.slice(0, -1);
      else if (c >= ' ' || c > '\x7f') this.typed(c);
    }
  }

  typed(c) {
    if (this.screen === 'approval') {
      if (c === '1') this.answer('once');
      else if (c === '2') this.answer('session');
      else if (c === '3') this.answer('reject');
      return;
    }
    if (this.screen !== 'ready' && this.screen !== 'busy') return;
    if (this.buffer === '' && this.mode === 'input' && c === '!') {
      this.mode = 'shell';
      return;
    }
    if (this.buffer === '' && c === '?') {
      this.shortcuts = !this.shortcuts;
      return;
    }
    this.insert(c, false);
  }

  insert(text, paste) {
    if (this.screen !== 'ready' && this.screen !== 'busy') return;
    this.buffer += text;
    this.lastInsertAt = Date.now();
    this.lastInsertPaste = paste;
    this.shortcuts = false;
    this.ctrlCArmedAt = 0;
  }

  key(name) {
    const now = Date.now();
    if (this.screen === 'quota' && this.quota) return this.quotaKey(name);
    if (name === 'enter') {
      if (this.screen === 'trust') {
        trustFolder(this.s.cwd, this.s.env);
        this.warnings.push('Gemini CLI is restarting to apply the trust changes...');
        this.s.needsTrust = false;
        this.screen = this.s.needsAuth ? 'auth' : 'ready';
        if (!this.s.needsAuth) void this.enterReady();
        return;
      }
      if (this.screen === 'auth') {
        this.screen = 'apikey';
        return;
      }
      if (this.screen === 'apikey') {
        if (!process.env.GEMINI_API_KEY) return;
        saveUserSetting(this.s.env, 'security.auth.selectedType', 'gemini-api-key');
        this.s.authType = 'gemini-api-key';
        this.s.needsAuth = false;
        void this.enterReady();
        return;
      }
      if (this.screen === 'approval') return this.answer('once');
      if (this.screen !== 'ready' && this.screen !== 'busy') return;
      const window = this.lastInsertPaste ? FAST_RETURN_AFTER_PASTE_MS : FAST_RETURN_MS;
      const eat = this.buffer !== '' && this.lastInsertPaste && this.eatEnters > 0;
      if (eat) this.eatEnters -= 1;
      if (eat || (this.buffer !== '' && now - this.lastInsertAt <= window)) {
        this.insert('\n', false); // too soon after input: a newline, not a submit
        return;
      }
      if (this.buffer.endsWith('\\')) {
        this.buffer = `${this.buffer.slice(0, -1)}\n`;
        this.lastInsertAt = now;
        return;
      }
      const text = this.buffer;
      this.buffer = '';
      if (this.mode === 'shell') {
        this.mode = 'input';
        void this.shell(text.trim());
        return;
      }
      this.submit(text);
      return;
    }
    if (name === 'escape') {
      if (this.screen === 'approval') return this.answer('reject');
      if (this.screen === 'auth' || this.screen === 'apikey') return;
      if (this.screen === 'busy' && this.abort) {
        this.abort.abort();
        return;
      }
      if (this.mode === 'shell' && this.buffer === '') {
        this.mode = 'input';
        return;
      }
      if (now - this.lastEscAt < 500) {
        if (this.buffer !== '') this.buffer = '';
        else this.notice = 'ℹ Nothing to rewind to';
        this.lastEscAt = 0;
      } else this.lastEscAt = now;
      return;
    }
    if (name === 'ctrl-c') {
      if (this.screen === 'busy' && this.abort) this.abort.abort();
      else if (this.screen === 'approval') this.answer('reject');
      else if (this.buffer !== '') {
        this.buffer = '';
        return;
      }
      if (this.ctrlCArmedAt && now - this.ctrlCArmedAt <= 3000) {
        void this.quit();
        return;
      }
      this.ctrlCArmedAt = now;
      this.notice = 'Press Ctrl+C again to exit.';
      return;
    }
    if (name === 'ctrl-d') {
      if (this.buffer !== '') return;
      if (this.ctrlDArmedAt && now - this.ctrlDArmedAt <= 3000) {
        void this.quit();
        return;
      }
      this.ctrlDArmedAt = now;
      this.notice = 'Press Ctrl+D again to exit.';
    }
  }

  /** Keys in the daily-quota dialog: Up/Down, Enter; Escape = Stop. */
  quotaKey(name) {
    const q = this.quota;
    if (name === 'up' || name === 'down') q.sel = name === 'up' ? 0 : 1;
    else if (name === 'enter' || name === 'escape') {
      this.quota = null;
      this.screen = 'busy';
      q.resolve(name === 'enter' && q.sel === 0 ? 'keep' : 'stop');
    }
  }

  answer(decision) {
    const a = this.approval;
    if (!a) return;
    this.approval = null;
    this.screen = 'busy';
    if (decision === 'reject') this.history.push(`│ -  Shell ${a.command}`);
    a.resolve(decision);
  }

  async shell(command) {
    const { execSync } = await import('node:child_process');
    let out;
    try {
      out = execSync(command, { cwd: this.s.cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      out = String(e.stdout ?? '') + String(e.stderr ?? '');
    }
    this.history.push(`! ${command}`, ...out.trimEnd().split('\n'));
    this.render();
  }

  submit(raw) {
    const text = raw.trim();
    if (text === '') return;
    this.notice = '';
    if (this.initializing) {
      this.notice = 'ℹ Initializing... Prompts will be queued.';
      this.queue.push(text);
      return;
    }
    if (this.screen === 'busy' || this.screen === 'approval') {
      this.queue.push(text);
      return;
    }
    const cmd = /^\/([A-Za-z][\w:.-]*)(?:\s|$)/.exec(text);
    if (cmd && !text.startsWith('//') && KNOWN_COMMANDS.has(cmd[1])) {
      void this.command(cmd[1], text);
      return;
    }
    void this.turn(text);
  }

  async command(name, text) {
    this.history.push(` > ${text}`);
    if (name === 'quit' || name === 'exit') return this.quit();
    if (name === 'clear') {
      await runHooks(this.s.settings, 'SessionEnd', { reason: 'clear' }, this.hookCtx());
      this.history = [];
      await this.s.newSession();
      await runHooks(this.s.settings, 'SessionStart', { source: 'clear' }, this.hookCtx());
      this.render();
      return;
    }
    if (name === 'about') this.history.push(...['About Gemini CLI', 'CLI Version 0.61.0 (fake)', `Model ${this.s.modelLabel}`]);
    else this.history.push(`ℹ /${name} is not emulated by the fake gemini`);
    this.render();
  }

  async turn(text) {
    const { s } = this;
    this.history.push(` > ${text}`);
    const expanded = expandAtFiles(text, s.cwd);
    if (expanded.files) this.history.push(`✓ ReadManyFiles Read ${expanded.files.length} file(s)`);
    this.screen = 'busy';
    this.busySince = Date.now();
    this.abort = new AbortController();
    this.render();
    const r = await runTurn(s, {
      parts: expanded.parts,
      display: expanded.display,
      hookPrompt: expanded.hookPrompt,
      signal: this.abort.signal,
      ask: (command) =>
        new Promise((resolve) => {
          this.approval = { command, resolve };
          this.screen = 'approval';
          this.render();
        }),
      quotaDialog: (model) =>
        new Promise((resolve) => {
          this.quota = { model, sel: 0, resolve };
          this.screen = 'quota';
          this.render();
        }),
      onActivity: (a) => {
        this.activity = a;
        this.render();
      },
    });
    this.abort = null;
    this.activity = '';
    if (r.status === 'completed') this.history.push(...(r.response === '' ? [] : `✦ ${r.response}`.split('\n')));
    else if (r.status === 'error')
      this.history.push(
        `✕ [API Error: ${r.error.display ?? r.error.body}]`,
        ...(r.error.hint ? [`  ${r.error.hint}`] : []),
        'ℹ This request failed. Press F12 for diagnostics, or run /settings and change "Error Verbosity" to full for full details.',
      );
    else this.history.push('ℹ Request cancelled.');
    void NO_RESPONSE;
    this.screen = 'ready';
    this.render();
    const next = this.queue.shift();
    if (next !== undefined) this.submit(next);
  }

  async quit() {
    if (this.screen === 'quitting') return;
    this.screen = 'quitting';
    this.history.push(
      '╭──────────────────────────────────╮',
      '│ Agent powering down. Goodbye!    │',
      '│ Interaction Summary              │',
      `│ Session ID: ${this.s.sessionId} │`,
      `│ To resume this session: gemini --resume ${this.s.sessionId} │`,
      '╰──────────────────────────────────╯',
    );
    this.render();
    // SessionEnd fires more than once per /quit in 0.61.0
    await runHooks(this.s.settings, 'SessionEnd', { reason: 'exit' }, this.hookCtx());
    await runHooks(this.s.settings, 'SessionEnd', { reason: 'exit' }, this.hookCtx());
    if (process.stdin.isTTY) process.stdin.setRawMode(false);
    this.out.write('\x1b[?2004l\r\n');
    await this.s.quit(0);
  }
}
