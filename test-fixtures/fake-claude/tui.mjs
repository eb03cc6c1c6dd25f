// The interactive TUI of the fake `claude`. Reference: claude-code.md §2.3 (startup dialogs), §2.6 (early
// input), §3 (hooks, state signals, sessions/<pid>.json), §5 (input), §6.2 (permission dialog), §8 (child
// session marker), §9 (exit, Ctrl-C, Ctrl-D, signals). Rendering repaints the whole screen per frame.
import { appendFileSync, mkdirSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { AUTO_CONTINUE_PROMPT, authWorld, BOTH_WARNING, displayName, resetWording } from './account.mjs';
import { envMs, isTrusted, keyTail, readJson, SessionRegistry, transcriptPathFor, updateGlobalConfig, uuid, VERSION } from './config.mjs';
import { taskNotificationPrompt } from './background.mjs';
import { common, finishTurn, runTurn } from './engine.mjs';
import { StatusLine } from './statusline.mjs';
import { KeyDecoder } from './keys.mjs';
import { block, frame, truncate } from './screen.mjs';
import { createContext } from './session.mjs';

const MODES = {
  auto: ['⏵⏵ auto mode on', ' (shift+tab to cycle)'],
  default: ['⏸ manual mode on', ' · ? for shortcuts'],
  acceptEdits: ['⏵⏵ accept edits on', ' (shift+tab to cycle)'],
  plan: ['⏸ plan mode on', ' (shift+tab to cycle)'],
  bypassPermissions: ['⏵⏵ bypass permissions on', ' (shift+tab to cycle)'],
  dontAsk: ["⏵⏵ don't ask on", ' (shift+tab to cycle)'],
};
const SPIN = ['✢', '✳', '✶', '✻', '✽'];
const VERBS = ['Caramelizing', 'Pondering', 'Percolating', 'Simmering', 'Noodling'];
const NOTICE_MS = 800;

/** Shell-quote one argument for the "Resume this session with:" line. */
function shq(a) {
  return /^[A-Za-z0-9_\-./=:@%+,]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`;
}

/** `left`, then `right` at the right edge of a `width`-wide line (two spaces at least between). */
function rightAligned(left, right, width) {
  return `${left}${' '.repeat(Math.max(2, width - left.length - right.length - 1))}${right}`;
}

/** A choice list rendered as `❯ label` / `  label`. */
function choices(items, index, indent) {
  return items.map((label, i) => `${indent}${i === index ? '❯ ' : '  '}${label}`);
}

class Tui {
  constructor(opts, env, cwd, paths) {
    this.opts = opts;
    this.env = env;
    this.cwd = cwd;
    this.paths = paths;
    this.out = process.stdout;
    this.history = []; // {kind:'block', text, first, rest} | {kind:'line', text} | {kind:'tool', ...}
    this.segments = []; // input box: {type:'text'|'paste', text, id?}
    this.pasteCount = 0;
    this.dialog = null;
    this.busy = null;
    this.queue = [];
    this.notice = null;
    this.armed = { key: null, until: 0 };
    this.escArmedUntil = 0;
    this.state = 'startup';
    this.fullFooter = false;
    this.dropEnter = env.FAKE_CLAUDE_DROP_FIRST_ENTER === '1';
    this.spin = 0;
    this.verb = VERBS[Math.floor(Math.random() * VERBS.length)];
    this.lastPromptId = undefined;
    this.hadMessages = false;
    this.timers = new Set();
    this.renderScheduled = false;
    this.exiting = false;
  }

  // ---------- terminal ----------

  write(s) {
    try {
      this.out.write(s);
    } catch {
      // the pty may be gone (SIGHUP)
    }
  }

  get cols() {
    return Math.max(20, this.out.columns || 80);
  }

  get rows() {
    return Math.max(5, this.out.rows || 24);
  }

  setTimer(fn, ms) {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
    return t;
  }

  clearTimer(t) {
    if (t) {
      clearTimeout(t);
      this.timers.delete(t);
    }
  }

  scheduleRender() {
    if (this.renderScheduled) return;
    this.renderScheduled = true;
    setImmediate(() => {
      this.renderScheduled = false;
      this.render();
    });
  }

  historyLines() {
    const w = this.cols;
    const lines = [];
    for (const h of this.history) {
      if (h.kind === 'block') lines.push(...block(h.text, h.first, h.rest, w));
      else if (h.kind === 'tool') {
        lines.push(...block(`Bash(${h.command})`, '● ', '  ', w));
        lines.push(...block(h.sub, '  ⎿  ', '     ', w));
      } else lines.push(h.text);
    }
    return lines;
  }

  boxText() {
    return this.segments.map((s) => s.text).join('');
  }

  boxDisplay() {
    return this.segments
      .map((s) => {
        if (s.type !== 'paste') return s.text;
        const n = (s.text.match(/\n/g) ?? []).length;
        return n > 0 ? `[Pasted text #${s.id} +${n} lines]` : `[Pasted text #${s.id}]`;
      })
      .join('');
  }

  liveLines() {
    const w = this.cols;
    if (this.dialog) return this.dialog.lines(w);
    if (this.state !== 'repl') return [];
    const lines = [];
    if (this.busy) {
      lines.push('');
      lines.push(`${SPIN[this.spin % SPIN.length]} ${this.verb}…`);
    }
    for (const q of this.queue) lines.push(...block(q.display, '  ', '  ', w));
    if (this.queue.length > 0) lines.push('  Queued · ctrl+x ctrl+s to send now');
    lines.push('');
    lines.push('─'.repeat(w));
    let display = this.boxDisplay();
    if (display === '' && this.queue.length > 0) display = 'Press up to edit queued messages';
    lines.push(...block(display, '❯ ', '  ', w));
    lines.push('─'.repeat(w));
    const [name, suffix] = MODES[this.ctx.permissionMode] ?? MODES.default;
    let footer;
    if (this.notice && this.notice.until > Date.now()) footer = `  ${this.notice.text}`;
    else if (this.busy) footer = `  ${name} · esc to interrupt`;
    else footer = `  ${name}${this.fullFooter ? suffix : ''}`;
    if (this.autoContinue)
      lines.push(
        `  ⚠ Usage limit reached · limit resets ${this.autoContinue.when.short}`,
        `    Continuing automatically at ${this.autoContinue.when.short} · Esc to cancel`,
      );
    for (const l of this.statusLine?.lines ?? []) lines.push(`  ${l}`);
    lines.push(this.ctx.world.blocked ? rightAligned(footer, 'Not logged in · run /login', w) : footer);
    if (this.ctx.transcriptOff) lines.push(`  ${this.ctx.transcriptOff}`);
    return lines;
  }

  render(extra = []) {
    const w = this.cols;
    const all = [...this.historyLines(), ...this.liveLines(), ...extra].map((l) => truncate(l, w));
    this.write(frame(all, this.rows));
  }

  // ---------- startup ----------

  async run() {
    this.write('\x1b[?2004h');
    if (process.stdin.isTTY) process.stdin.setRawMode(true);
    const decoder = new StringDecoder('utf8');
    this.keys = new KeyDecoder((e) => this.onKey(e));
    process.stdin.on('data', (d) => this.keys.feed(decoder.write(d)));
    process.stdin.on('error', () => {});
    process.stdin.resume();
    this.out.on('error', () => {});
    this.out.on('resize', () => this.scheduleRender());
    for (const sig of ['SIGTERM', 'SIGHUP', 'SIGINT']) process.on(sig, () => this.onSignal(sig));

    return new Promise((resolveExit) => {
      this.resolveExit = resolveExit;
      this.startup().catch((err) => this.fatal(err));
    });
  }

  fatal(err) {
    this.restoreTerminal();
    const text = err?.text ?? `fake-claude: internal error: ${err?.stack ?? err}`;
    this.write(`\r\n${text}\r\n`);
    process.exit(err?.code ?? 70);
  }

  /** The banner: the model, and how the session bills ("API Usage Billing", "Claude Max", …). */
  banner() {
    const world = this.ctx.world;
    this.history.push({ kind: 'line', text: ` ▐▛███▜▌   Claude Code v${VERSION}` });
    this.history.push({ kind: 'line', text: `▝▜█████▛▘  ${displayName(this.ctx.model)} · ${world.label}` });
    this.history.push({ kind: 'line', text: `  ▘▘ ▝▝    ${this.cwd}` });
    this.history.push({ kind: 'line', text: '' });
    if (world.bothWarning) for (const text of [...BOTH_WARNING, '']) this.history.push({ kind: 'line', text });
  }

  async startup() {
    const { env } = this;
    const global = readJson(this.paths.globalFile, {}) ?? {};

    // §2.3: no onboarding flag → welcome screen, connectivity check fails, rc 1.
    if (global.hasCompletedOnboarding !== true) {
      this.history.push(
        ...[
          '',
          ` Welcome to Claude Code v${VERSION}`,
          '…………………………………………………………………………………………………………………………………………………………',
          '',
          '     *                                       █████▓▓░',
          '                                 *         ███▓░     ░░',
          '            ░░░░░░                        ███▓░',
          '',
          '…………………………………………………………………………………………………………………………………………………………',
          '',
          ' Unable to connect to Anthropic services',
          '',
          ' Failed to connect to api.anthropic.com: ENOTFOUND',
          '',
          ' Please check your internet connection and network settings.',
          '',
          ' Note: Claude Code might not be available in your country. Check supported countries at',
          ' https://anthropic.com/supported-countries',
          '',
        ].map((text) => ({ kind: 'line', text })),
      );
      return this.finish(1);
    }
    if (env.FAKE_CLAUDE_SIGN_IN === '1') return this.signIn();

    // §2.3 trust dialog: "❯ No, exit" first; Down + Enter accepts and writes the flag.
    if (!isTrusted(global, this.cwd)) {
      const yes = await this.choose(
        (w, idx) => [
          '─'.repeat(w),
          ' Accessing workspace:',
          '',
          ` ${this.cwd}`,
          '',
          " Quick safety check: Is this a project you created or one you trust? (Like your own code, a well-known open source project, or work from your team). If not, take a moment to review what's in this folder first.",
          '',
          " Claude Code'll be able to read, edit, and execute files here.",
          '',
          ' Security guide',
          '',
          ...choices(['No, exit', 'Yes, I trust this folder'], idx, ' '),
          '',
          ' Enter to confirm · Esc to cancel',
        ],
        2,
        0,
      );
      if (yes !== 1) {
        this.history.push({ kind: 'line', text: "Claude Code didn't start because this folder isn't trusted." });
        return this.finish(1);
      }
      updateGlobalConfig(this.paths, (c) => {
        c.projects ??= {};
        c.projects[this.cwd] = { ...(c.projects[this.cwd] ?? {}), hasTrustDialogAccepted: true };
      });
    }

    // §2.3 key approval: "❯ No (recommended)" highlighted; Up + Enter approves and records.
    const key = env.ANTHROPIC_API_KEY;
    if (key) {
      const tail = keyTail(key);
      const current = readJson(this.paths.globalFile, {}) ?? {};
      const approved = current.customApiKeyResponses?.approved ?? [];
      const rejected = current.customApiKeyResponses?.rejected ?? [];
      // A rejected key is not asked about again; it is simply not used (real 2.1.328).
      if (!approved.includes(tail) && !rejected.includes(tail)) {
        const pick = await this.choose(
          (w, idx) => [
            '─'.repeat(w),
            '  Detected a custom API key in your environment',
            '',
            `  ANTHROPIC_API_KEY: sk-ant-...${tail}`,
            '',
            '  Do you want to use this API key?',
            '',
            ...choices(['Yes', 'No (recommended)'], idx, '  '),
            '',
            '  Enter to confirm · Esc to cancel',
          ],
          2,
          1,
        );
        updateGlobalConfig(this.paths, (c) => {
          c.customApiKeyResponses ??= { approved: [], rejected: [] };
          c.customApiKeyResponses.approved ??= [];
          c.customApiKeyResponses.rejected ??= [];
          (pick === 0 ? c.customApiKeyResponses.approved : c.customApiKeyResponses.rejected).push(tail);
        });
        // No (the default) does not sign in: the session starts without the key ("Not logged in"
        // unless a subscription login exists), as the real one does.
      }
      this.ctx.world = authWorld({ env, paths: this.paths, global: readJson(this.paths.globalFile, {}) ?? {} });
    }

    // §2.3 bypass consent unless skipDangerousModePermissionPrompt.
    if (this.ctx.permissionMode === 'bypassPermissions' && !this.ctx.settings.skipDangerousModePermissionPrompt) {
      const ok = await this.choose(
        (w, idx) => [
          '─'.repeat(w),
          '  WARNING: Claude Code running in Bypass Permissions mode',
          '',
          '  In Bypass Permissions mode, Claude Code will not ask for your approval before running potentially dangerous commands.',
          '  This mode should only be used in a sandboxed container/VM that has restricted internet access and can easily be restored if damaged.',
          '',
          '  By proceeding, you accept all responsibility for actions taken while running in Bypass Permissions mode.',
          '',
          ...choices(['No, exit', 'Yes, I accept'], idx, '  '),
          '',
          '  Enter to confirm · Esc to exit',
        ],
        2,
        0,
      );
      if (ok !== 1) return this.finish(1);
    }

    await this.startRepl(global);
  }

  /** Show a choice dialog; resolves with the chosen index (-1 on Esc). */
  choose(linesFn, count, initial) {
    return new Promise((resolveChoice) => {
      let idx = initial;
      this.dialog = {
        lines: (w) => linesFn(w, idx),
        onKey: (e) => {
          if (e.type !== 'key') return;
          if (e.name === 'up') idx = Math.max(0, idx - 1);
          else if (e.name === 'down') idx = Math.min(count - 1, idx + 1);
          else if (e.name === 'enter' || e.name === 'escape') {
            this.dialog = null;
            resolveChoice(e.name === 'enter' ? idx : -1);
          } else if (e.name === 'ctrl-c') {
            this.dialog = null;
            this.finish(1);
          }
          this.scheduleRender();
        },
      };
      this.render();
    });
  }

  /** Sign-in screen (knob FAKE_CLAUDE_SIGN_IN=1): stays there. */
  signIn() {
    let idx = 0;
    const options = [
      'Claude account with subscription · Pro, Max, Team, or Enterprise',
      'Anthropic Console account · API usage billing',
      '3rd-party platform · Amazon Bedrock, Microsoft Foundry, or Vertex AI',
    ];
    this.dialog = {
      lines: () => [
        '',
        ' Claude Code can be used with your Claude subscription or billed based on API usage through your Console account.',
        '',
        ' Select login method:',
        '',
        ...options.flatMap((o, i) => [`${i === idx ? ' ❯ ' : '   '}${i + 1}. ${o}`, '']),
      ],
      onKey: (e) => {
        if (e.type !== 'key') return;
        if (e.name === 'up') idx = Math.max(0, idx - 1);
        if (e.name === 'down') idx = Math.min(options.length - 1, idx + 1);
        if (e.name === 'ctrl-c') return this.finish(1);
        this.scheduleRender();
      },
    };
    this.render();
  }

  async startRepl(global) {
    const { ctx } = this;
    this.state = 'repl';
    this.banner();
    this.registry = new SessionRegistry(this.paths, { sessionId: ctx.sessionId, cwd: this.cwd });
    this.registry.set('idle');
    this.idleThreshold = Number(global.messageIdleNotifThresholdMs) > 0 ? Number(global.messageIdleNotifThresholdMs) : 60000;
    // §2.6: the first frame is the early-input field (short footer); the full footer follows ~80 ms later.
    this.render();
    this.setTimer(() => {
      this.fullFooter = true;
      this.scheduleRender();
    }, 80);
    this.spinTimer = setInterval(() => {
      if (this.busy && !this.still) {
        this.spin++;
        this.scheduleRender();
      }
    }, 150);
    await ctx.hooks.fire(
      { ...common(ctx, 'SessionStart'), source: ctx.source, model: ctx.model },
      { CLAUDE_ENV_FILE: join(this.paths.root, 'session-env', ctx.sessionId, 'env.sh') },
    );
    this.statusLine = new StatusLine(ctx, () => this.scheduleRender());
    this.statusLine.refresh();
    // a background shell that ends starts a turn of its own (a <task-notification>, BACKGROUND-FACTS.md §2)
    ctx.onBackgroundDone = (task) => {
      if (this.exiting) return;
      const text = taskNotificationPrompt(task);
      this.queue.push({
        text,
        display: `● Background command "${task.description}" ${task.status}`,
        pasted: [],
        bash: false,
        promptId: uuid(),
        taskNotification: true,
      });
      this.pump();
    };
    if (this.opts.prompt !== undefined && this.opts.prompt !== '') this.submit(this.opts.prompt);
  }

  // ---------- input ----------

  onKey(e) {
    if (this.exiting) return;
    if (this.dialog) return this.dialog.onKey(e);
    if (this.state !== 'repl') return;
    if (e.type === 'text') this.insert(e.text.replace(/\t/g, '    '));
    else if (e.type === 'paste') {
      const text = e.text.replace(/\r\n/g, '\n').replace(/\r/g, '\n').replace(/\t/g, '    ');
      const lines = (text.match(/\n/g) ?? []).length;
      if (text.length > 800 || lines > 2) this.segments.push({ type: 'paste', text, id: ++this.pasteCount });
      else this.insert(text);
    } else this.onNamedKey(e.name);
    this.scheduleRender();
  }

  insert(text) {
    const last = this.segments[this.segments.length - 1];
    if (last && last.type === 'text') last.text += text;
    else this.segments.push({ type: 'text', text });
  }

  showNotice(text) {
    this.notice = { text, until: Date.now() + NOTICE_MS };
    this.setTimer(() => this.scheduleRender(), NOTICE_MS + 10);
  }

  armedFor(key) {
    return this.armed.key === key && this.armed.until > Date.now();
  }

  onNamedKey(name) {
    switch (name) {
      case 'enter': {
        const text = this.boxText();
        if (text.trim() === '') return;
        if (this.dropEnter) {
          this.dropEnter = false; // knob: swallow the first Enter (§2.6 early input)
          return;
        }
        const display = this.boxDisplay();
        const pasted = this.segments.filter((s) => s.type === 'paste');
        this.segments = [];
        this.submit(text, display, pasted);
        return;
      }
      case 'newline':
      case 'meta-enter':
        this.insert('\n');
        return;
      case 'tab':
        this.insert('    ');
        return;
      case 'backspace': {
        const last = this.segments[this.segments.length - 1];
        if (!last) return;
        if (last.type === 'paste') this.segments.pop();
        else {
          last.text = [...last.text].slice(0, -1).join('');
          if (last.text === '') this.segments.pop();
        }
        return;
      }
      case 'ctrl-u': {
        const text = this.boxText();
        const cut = text.lastIndexOf('\n');
        this.segments = cut < 0 ? [] : [{ type: 'text', text: text.slice(0, cut + 1) }];
        return;
      }
      case 'escape':
        if (this.busy) return this.interrupt();
        if (this.autoContinue && this.segments.length === 0) return this.cancelAutoContinue();
        if (this.escArmedUntil > Date.now()) {
          this.escArmedUntil = 0;
          if (this.segments.length > 0) this.segments = [];
          else this.rewind();
          return;
        }
        this.escArmedUntil = Date.now() + 1000;
        if (this.segments.length > 0) this.showNotice('esc again to clear');
        return;
      case 'ctrl-c':
        if (this.busy) return this.interrupt();
        if (this.armedFor('ctrl-c')) return void this.exit(0, 'prompt_input_exit');
        this.segments = [];
        this.armed = { key: 'ctrl-c', until: Date.now() + NOTICE_MS };
        this.showNotice('Press Ctrl-C again to exit');
        return;
      case 'ctrl-d':
        if (this.segments.length > 0) return;
        if (this.armedFor('ctrl-d')) return void this.exit(0, 'prompt_input_exit');
        this.armed = { key: 'ctrl-d', until: Date.now() + NOTICE_MS };
        this.showNotice('Press Ctrl-D again to exit');
        return;
      case 'shift-tab': {
        const order = ['default', 'acceptEdits', 'plan', 'auto'];
        if (this.opts.dangerouslySkipPermissions || this.opts.allowDangerouslySkipPermissions) order.push('bypassPermissions');
        const i = order.indexOf(this.ctx.permissionMode);
        this.setMode(order[(i + 1) % order.length]);
        return;
      }
      case 'ctrl-l':
        return;
      default:
    }
  }

  setMode(mode) {
    this.ctx.permissionMode = mode;
    this.statusLine?.refresh();
    this.scheduleRender();
  }

  /** Escape Escape on an empty box opens the Rewind dialog (§5); Escape closes it. */
  rewind() {
    this.dialog = {
      lines: (w) => [
        '─'.repeat(w),
        ' Rewind',
        '',
        ' Restore the code and/or conversation to the point before…',
        '',
        ' ❯ (current)',
        '',
        ' Enter to continue · Esc to exit',
      ],
      onKey: (e) => {
        if (e.type === 'key' && e.name === 'escape') this.dialog = null;
        this.scheduleRender();
      },
    };
  }

  interrupt() {
    this.busy?.abort.abort();
  }

  // ---------- prompts ----------

  /** Handle a submitted box (§5): /commands, !bash, or a prompt (queued while busy). */
  submit(text, display = text, pasted = []) {
    this.clearTimer(this.idleTimer);
    const slash = /^\/(\S+)\s*([\s\S]*)$/.exec(text);
    if (slash) {
      const [, name, args] = slash;
      if (name === 'exit' || name === 'quit') return void this.exit(0, 'prompt_input_exit');
      if (name === 'clear' || name === 'reset' || name === 'new') return void this.clear();
      this.history.push({ kind: 'block', text: display, first: '❯ ', rest: '  ' });
      this.history.push({ kind: 'block', text: `Unknown command: /${name}`, first: '● ', rest: '  ' });
      if (args.trim()) this.history.push({ kind: 'block', text: `Args from unknown skill: ${args}`, first: '● ', rest: '  ' });
      this.scheduleRender();
      return;
    }
    const item = { text, display, pasted, bash: text.startsWith('!'), promptId: uuid() };
    this.writeHistoryFile(item);
    if (this.busy) {
      // §3: a queued prompt fires UserPromptSubmit at once, with the running prompt_id.
      item.queued = true;
      this.queue.push(item);
      this.ctx.transcript.write({
        type: 'queue-operation',
        operation: 'enqueue',
        timestamp: new Date().toISOString(),
        sessionId: this.ctx.sessionId,
        content: text,
      });
      if (!item.bash) {
        item.upsFired = this.ctx.hooks.fire({
          ...common(this.ctx, 'UserPromptSubmit', this.busy.promptId),
          permission_mode: this.ctx.permissionMode,
          prompt: text,
        });
      }
      this.scheduleRender();
      return;
    }
    this.queue.push(item);
    this.pump();
  }

  writeHistoryFile(item) {
    if (this.ctx.transcriptOff) return;
    const pastedContents = {};
    for (const p of item.pasted) pastedContents[p.id] = { id: p.id, type: 'text', content: p.text };
    try {
      mkdirSync(this.paths.root, { recursive: true });
      appendFileSync(
        join(this.paths.root, 'history.jsonl'),
        `${JSON.stringify({ display: item.display, pastedContents, timestamp: Date.now(), project: this.cwd, sessionId: this.ctx.sessionId })}\n`,
      );
    } catch {
      // not fatal
    }
  }

  async pump() {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.length > 0 && !this.exiting) {
        const item = this.queue.shift();
        await this.turn(item);
      }
    } finally {
      this.pumping = false;
    }
  }

  async turn(item) {
    const { ctx } = this;
    const promptId = item.promptId;
    const abort = new AbortController();
    this.busy = { promptId, abort, started: Date.now() };
    this.lastPromptId = promptId;
    this.hadMessages = true;
    this.verb = VERBS[Math.floor(Math.random() * VERBS.length)];
    ctx.promptIndex++;
    this.registry.set('busy');
    if (item.queued) {
      ctx.transcript.write({ type: 'queue-operation', operation: 'dequeue', timestamp: new Date().toISOString(), sessionId: ctx.sessionId });
    }
    const histIndex = this.history.length;
    if (item.taskNotification) this.history.push({ kind: 'line', text: item.display });
    else if (!item.autoContinue) {
      this.history.push({ kind: 'block', text: item.display, first: item.bash ? '! ' : '❯ ', rest: '  ' });
      this.history.push({ kind: 'line', text: '' });
    }
    this.scheduleRender();

    let userEntries;
    let modelPrompt;
    if (item.bash) {
      // §5 bash mode: run locally, no UserPromptSubmit; the output goes to the model; Stop fires.
      const cmd = item.text.slice(1);
      const r = await new Promise((res) => {
        const child = spawn('sh', ['-c', cmd], { cwd: this.cwd, env: { ...this.env, ...ctx.bashMarkers() }, stdio: ['ignore', 'pipe', 'pipe'] });
        let so = '';
        let se = '';
        child.stdout.on('data', (d) => (so += d));
        child.stderr.on('data', (d) => (se += d));
        child.on('close', () => res({ so: so.replace(/\n$/, ''), se: se.replace(/\n$/, '') }));
        child.on('error', (e) => res({ so, se: String(e.message) }));
      });
      this.history.push({ kind: 'block', text: r.so || r.se || '(No content)', first: '  ⎿  ', rest: '     ' });
      modelPrompt = `<bash-stdout>${r.so}</bash-stdout><bash-stderr>${r.se}</bash-stderr>`;
      userEntries = [
        ctx.transcript.base({ promptId, type: 'user', message: { role: 'user', content: `<bash-input>${cmd}</bash-input>` } }),
        ctx.transcript.base({ promptId, type: 'user', message: { role: 'user', content: modelPrompt } }),
      ];
    } else if (item.upsFired) {
      await item.upsFired;
    } else if (item.taskNotification) {
      // The CLI's own turn when background work ended: a user entry from the system (real 2.1.332).
      userEntries = [
        ctx.transcript.base({
          promptId,
          type: 'user',
          message: { role: 'user', content: item.text },
          permissionMode: ctx.permissionMode,
          origin: { kind: 'task-notification' },
          promptSource: 'system',
          turnOrigin: 'task_notification',
          turnPosition: { promptIndex: ctx.promptIndex, turnIndex: ctx.promptIndex },
        }),
      ];
      await ctx.hooks.fire({ ...common(ctx, 'UserPromptSubmit', promptId), permission_mode: ctx.permissionMode, prompt: item.text });
    } else if (item.autoContinue) {
      // The automatic continue's prompt: a meta user entry from the system (real 2.1.328).
      userEntries = [
        ctx.transcript.base({
          promptId,
          type: 'user',
          message: { role: 'user', content: item.text },
          isMeta: true,
          permissionMode: ctx.permissionMode,
          origin: { kind: 'auto-continuation' },
          promptSource: 'system',
          queueSkipSlashCommands: true,
          turnOrigin: 'auto_continuation',
          turnPosition: { promptIndex: ctx.promptIndex, turnIndex: ctx.promptIndex },
          queuePriority: 'later',
        }),
      ];
      await ctx.hooks.fire({ ...common(ctx, 'UserPromptSubmit', promptId), permission_mode: ctx.permissionMode, prompt: item.text });
    } else {
      await ctx.hooks.fire({ ...common(ctx, 'UserPromptSubmit', promptId), permission_mode: ctx.permissionMode, prompt: item.text });
    }

    let toolItem;
    const io = {
      die: () => this.restoreTerminal(),
      assistantText: (text) => {
        this.history.push({ kind: 'block', text, first: '● ', rest: '  ' });
        this.scheduleRender();
      },
      toolStart: (command) => {
        toolItem = { kind: 'tool', command, sub: 'Running…' };
        this.history.push(toolItem);
        this.scheduleRender();
      },
      toolRunning: () => {
        if (toolItem) toolItem.sub = 'Running…';
        this.scheduleRender();
      },
      toolOutput: (out) => {
        if (toolItem) {
          const lines = out === '' ? ['(No content)'] : out.split('\n');
          toolItem.sub = lines.length > 3 ? `${lines.slice(0, 3).join('\n')}\n… +${lines.length - 3} lines (ctrl+o to expand)` : lines.join('\n');
        }
        this.scheduleRender();
      },
      setMode: (m) => this.setMode(m),
      still: (on) => {
        this.still = on;
      },
      askPermission: (req) => this.askPermission(req, toolItem),
    };
    const r = await runTurn(ctx, {
      prompt: item.text,
      modelPrompt,
      promptId,
      promptSource: item.queued ? 'queued' : 'typed',
      userEntries,
      io,
      signal: abort.signal,
    });

    if (r.outcome === 'completed') {
      this.history.push({ kind: 'block', text: r.text, first: '● ', rest: '  ' });
      this.history.push({ kind: 'line', text: '' });
      this.history.push({ kind: 'line', text: `✻ Worked for ${Math.round((Date.now() - this.busy.started) / 1000)}s` });
    } else if (r.outcome === 'error') {
      this.history.push({ kind: 'block', text: r.screenText ?? r.text, first: '  ⎿  ', rest: '     ' });
    } else if (r.outcome === 'interrupted') {
      if (toolItem && r.denied) toolItem.sub = 'Interrupted · What should Claude do instead?';
      else this.history.push({ kind: 'line', text: '  ⎿  Interrupted · What should Claude do instead?' });
      if (!r.afterOutput && !item.bash && !item.autoContinue && !item.taskNotification) {
        // §4 rule 5: interrupted before any output → the prompt goes back into the box
        this.history.splice(histIndex, 2);
        if (this.segments.length === 0) this.segments = [{ type: 'text', text: item.text }];
      }
    }
    this.history.push({ kind: 'line', text: '' });
    this.scheduleRender();
    if (r.outcome === 'completed') ctx.lastUsage = r.usage;
    await finishTurn(ctx, r, { tui: true, lastPrompt: item.text });
    this.busy = null;
    if (r.usageLimit) this.onUsageLimit(r, promptId);
    if (!this.exiting) {
      this.registry.set('idle');
      this.armIdleNotification();
    }
    this.statusLine?.refresh(promptId);
    this.scheduleRender();
  }

  /** A notice line in the history and a `system/informational` transcript entry (real 2.1.328). */
  inform(text) {
    this.history.push({ kind: 'block', text, first: '● ', rest: '  ' }, { kind: 'line', text: '' });
    this.ctx.transcript.write(this.ctx.transcript.base({ type: 'system', subtype: 'informational', content: text, isMeta: false, level: 'notice' }));
  }

  /**
   * After a subscription's usage limit: a reset within 24 h arms the automatic continue (the real
   * one's "Usage limit reached · continuing automatically at …"); a later one opens the
   * /rate-limit-options dialog.
   */
  onUsageLimit(r, promptId) {
    const { resetsAt } = r.usageLimit;
    if (resetsAt * 1000 - Date.now() > 86_400_000) return this.rateLimitOptions(r, promptId);
    this.armAutoContinue(resetsAt, promptId);
  }

  armAutoContinue(resetsAt, promptId) {
    const when = resetWording(resetsAt);
    this.inform(`Usage limit reached · continuing automatically at ${when.short} · esc to cancel`);
    this.clearTimer(this.autoContinue?.timer);
    const timer = this.setTimer(() => this.fireAutoContinue(promptId), Math.max(0, resetsAt * 1000 - Date.now()));
    this.autoContinue = { when, timer };
    this.scheduleRender();
  }

  cancelAutoContinue() {
    this.clearTimer(this.autoContinue?.timer);
    this.autoContinue = null;
    this.inform('Automatic continue cancelled · /rate-limit-options to re-arm');
    this.scheduleRender();
  }

  /** At the reset: Notification(quota_auto_resume_fired), then a system prompt continues the task. */
  async fireAutoContinue(promptId) {
    this.autoContinue = null;
    if (this.exiting) return;
    await this.ctx.hooks.fire({
      ...common(this.ctx, 'Notification', promptId),
      message: 'Usage limit reset — Claude is continuing your task',
      notification_type: 'quota_auto_resume_fired',
    });
    this.inform('Usage limit reset · Continuing automatically');
    this.queue.push({ text: AUTO_CONTINUE_PROMPT, display: AUTO_CONTINUE_PROMPT, pasted: [], bash: false, promptId: uuid(), autoContinue: true });
    this.pump();
  }

  /** The dialog the real one opens when the limit resets more than a day away. */
  async rateLimitOptions(r, promptId) {
    this.history.push({ kind: 'line', text: '❯ /rate-limit-options' }, { kind: 'line', text: '' });
    const when = resetWording(r.usageLimit.resetsAt);
    const pick = await this.choose(
      (w, idx) => [
        '─'.repeat(w),
        '  What do you want to do?',
        '',
        ...choices(['1. Stop and wait for limit to reset', `2. Wait here, then continue automatically at ${when.short}`, '3. Upgrade your plan'], idx, '  '),
        '',
        '  Enter to confirm · Esc to cancel',
      ],
      3,
      0,
    );
    if (pick === 1) this.armAutoContinue(r.usageLimit.resetsAt, promptId);
    this.scheduleRender();
  }

  armIdleNotification() {
    this.clearTimer(this.idleTimer);
    this.idleTimer = this.setTimer(() => {
      if (this.busy || this.exiting) return;
      this.ctx.hooks.fire({
        ...common(this.ctx, 'Notification', this.lastPromptId),
        message: 'Claude is waiting for your input',
        notification_type: 'idle_prompt',
      });
    }, this.idleThreshold);
  }

  /** §6.2 permission dialog; resolves 'yes' | 'always' | 'auto' | 'no'. */
  askPermission(req, toolItem) {
    if (toolItem) toolItem.sub = 'Waiting…';
    this.registry.set('waiting');
    const notifyMs = envMs(this.env, 'FAKE_CLAUDE_NOTIFY_MS', 6400);
    const lateMs = envMs(this.env, 'FAKE_CLAUDE_NOTIFY_AFTER_ANSWER_MS', undefined);
    const notify = () =>
      this.ctx.hooks.fire({
        ...common(this.ctx, 'Notification', req.promptId),
        message: 'Claude needs your permission',
        notification_type: 'permission_prompt',
      });
    const timer = this.setTimer(notify, notifyMs);
    const labels = [
      'Yes',
      `Yes, and always allow access to ${this.cwd} from this project`,
      'Yes, and switch to auto mode · auto mode handles these prompts for you',
      'No',
    ];
    const answers = ['yes', 'always', 'auto', 'no'];
    return new Promise((resolveAnswer) => {
      let idx = 0;
      const done = (i) => {
        this.clearTimer(timer);
        // the timer racing the answer: the notification still comes, after it
        if (lateMs !== undefined) this.setTimer(notify, lateMs);
        this.dialog = null;
        this.registry.set('busy');
        this.scheduleRender();
        resolveAnswer(answers[i]);
      };
      this.dialog = {
        lines: (w) => [
          '─'.repeat(w),
          ' Bash command',
          ' Tip: auto mode handles these prompts for you — choose "switch to auto mode" below',
          ` ${req.input.description}`,
          '╌'.repeat(w),
          ...block(req.command, ' ', ' ', w),
          '╌'.repeat(w),
          ' Do you want to proceed?',
          ...labels.map((l, i) => `${i === idx ? ' ❯ ' : '   '}${i + 1}. ${l}`),
          ' Esc to cancel · Tab to amend',
        ],
        onKey: (e) => {
          if (e.type === 'text' && /^[1-4]$/.test(e.text)) return done(Number(e.text) - 1);
          if (e.type !== 'key') return;
          if (e.name === 'up') idx = Math.max(0, idx - 1);
          else if (e.name === 'down') idx = Math.min(3, idx + 1);
          else if (e.name === 'enter') return done(idx);
          else if (e.name === 'escape' || e.name === 'ctrl-c') return done(3);
          this.scheduleRender();
        },
      };
      this.scheduleRender();
    });
  }

  /** `/clear`: SessionEnd(clear), new session id and file, SessionStart(clear) (§3). */
  async clear() {
    const { ctx } = this;
    await ctx.hooks.fire({ ...common(ctx, 'SessionEnd', this.lastPromptId), reason: 'clear' });
    await ctx.transcript.flush();
    ctx.sessionId = uuid();
    ctx.transcript.reset(ctx.sessionId, transcriptPathFor(this.paths, this.cwd, ctx.sessionId));
    ctx.turnsInFile = 0;
    ctx.promptIndex = 0;
    this.lastPromptId = undefined;
    this.history = [];
    this.banner();
    this.registry.set('idle', { sessionId: ctx.sessionId });
    this.scheduleRender();
    await ctx.hooks.fire({ ...common(ctx, 'SessionStart'), source: 'clear', model: ctx.model });
  }

  // ---------- exit ----------

  restoreTerminal() {
    this.write('\x1b[?2004l\x1b[?25h');
    try {
      if (process.stdin.isTTY) process.stdin.setRawMode(false);
    } catch {
      // tty gone
    }
  }

  /** Leave without SessionEnd (dialogs, onboarding failure). */
  finish(code) {
    this.dialog = null;
    this.state = 'done';
    this.render();
    this.write('\r\n');
    this.restoreTerminal();
    process.exit(code);
  }

  /** Clean exit: SessionEnd(reason), flush, remove sessions/<pid>.json (§9). */
  async exit(code, reason) {
    if (this.exiting) return;
    this.exiting = true;
    this.busy?.abort.abort();
    for (const t of this.timers) clearTimeout(t);
    clearInterval(this.spinTimer);
    this.statusLine?.stop();
    if (this.ctx && this.state === 'repl') {
      await this.ctx.hooks.fire({ ...common(this.ctx, 'SessionEnd', this.lastPromptId), reason });
      await this.ctx.transcript.flush();
    }
    this.registry?.remove();
    const extra = [];
    if (this.hadMessages && reason === 'prompt_input_exit') {
      const args = [];
      const raw = this.opts.raw;
      for (let i = 0; i < raw.length; i++) {
        if (raw[i] === this.opts.prompt && !raw[i].startsWith('-')) continue;
        if (['--session-id', '--resume', '-r'].includes(raw[i])) {
          i++;
          continue;
        }
        args.push(shq(raw[i]));
      }
      extra.push('', 'Resume this session with:', `claude ${[...args, '--resume', this.ctx.sessionId].join(' ')}`);
    }
    this.state = 'done';
    this.dialog = null;
    this.render(extra);
    this.write('\r\n');
    this.restoreTerminal();
    process.exit(code);
  }

  async onSignal(sig) {
    if (sig === 'SIGTERM') return this.exit(143, 'other');
    // SIGHUP / SIGINT: SessionEnd(other), then die by the signal (pane_dead_status empty).
    if (this.exiting) return;
    this.exiting = true;
    if (this.ctx && this.state === 'repl') {
      await this.ctx.hooks.fire({ ...common(this.ctx, 'SessionEnd', this.lastPromptId), reason: 'other' });
      await this.ctx.transcript.flush();
    }
    this.registry?.remove();
    this.restoreTerminal();
    process.removeAllListeners(sig);
    process.kill(process.pid, sig);
  }
}

/**
 * Run the TUI; never resolves normally (the process exits).
 * @returns {Promise<number>}
 */
export function runTui(opts, env, cwd, paths) {
  const tui = new Tui(opts, env, cwd, paths);
  // Validation that prints and exits before any screen (session id, settings).
  tui.ctx = createContext({ opts, env, cwd, paths, tui: true });
  return tui.run();
}
