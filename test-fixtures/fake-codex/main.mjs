#!/usr/bin/env node
// A faithful fake of OpenAI Codex CLI 0.169.0 (reference/codex.md §13) for umbel's e2e tests.
// It never calls the network: answers come from test-fixtures/lib/directives.mjs `plan()` (plus
// the mock-local `ASK <cmd>` escalation directive shared with mock-servers/openai-responses.mjs).
//
// What it reproduces: $CODEX_HOME/config.toml (+ hooks.json) with hook trust hashes (§6.2) and
// the "Hooks need review" dialog, project trust and the "Trust this folder?" dialog (git repos),
// the sign-in screen, the app-server daemon (a detached child that outlives the TUI unless
// `features.daemon_auto_start = false` or --no-daemon), hooks with the §6.3 payloads, notify (with
// the turn-1 title-thread double fire), the rollout JSONL of §7, the §5.3 screens, the paste-burst
// rule of §8, `/` and `!` handling, the §9 approval prompt, the §10 exit trailer, `codex resume <id>`
// (resume.mjs; test-fixtures/real/REVIVE-FACTS.md §1; fake-only RECALL and KILLSELF <SIG>) and `codex exec`
// (§4), and account trouble like the real 0.169.0 (account.mjs: task_complete.error
// {message, codex_error_info} for 429 / plan limits / 401 / 403, QUOTA → token_count.rate_limits,
// the "Approaching rate limits" dialog, the /status Account line; test-fixtures/real/ACCOUNT-FACTS.md).
//
// Knobs (env, or a `[fake_codex]` table in config.toml; env wins):
//   FAKE_CODEX_SIGNED_OUT=1|auto  sign-in screen (1: always; auto: built-in provider and no auth.json)
//   FAKE_CODEX_UPDATE=1           "Update available!" dialog (unless check_for_update_on_startup=false)
//   FAKE_CODEX_READY_MS=<ms>      delay before the status line appears (default 300)
//   FAKE_CODEX_BURST_WINDOW_MS=<ms> Enter within this time after a typed burst is a newline (default 20)
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, realpathSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { toolResultReply } from '../lib/directives.mjs';
import { planReply } from '../mock-servers/openai-responses.mjs';
import { accountError, applyQuota, nudgeDialog, rateLimitsRecord, statusAccountLines } from './account.mjs';
import { findRollout, noSuchSession, rolloutPrompts, rolloutRecords } from './resume.mjs';
import { parseOverrideValue, parseToml } from './toml.mjs';

const VERSION = '0.169.0';
const TITLE = 'Mock task title';
const TITLE_PROMPT =
  'Generate a concise, single-line task title of at most 36 characters that summarizes the user request. Do not answer the request.\n\nUser prompt:\n';
const EVENTS = {
  SessionStart: 'session_start',
  SessionEnd: 'session_end',
  UserPromptSubmit: 'user_prompt_submit',
  PreToolUse: 'pre_tool_use',
  PermissionRequest: 'permission_request',
  PostToolUse: 'post_tool_use',
  PreCompact: 'pre_compact',
  PostCompact: 'post_compact',
  SubagentStart: 'subagent_start',
  SubagentStop: 'subagent_stop',
  Stop: 'stop',
  Interrupt: 'interrupt',
};

// ---------------------------------------------------------------------------------------------
// argv

function usageExit(msg) {
  process.stderr.write(`error: ${msg}\n\nUsage: codex [OPTIONS] [PROMPT]\n\nFor more information, try '--help'.\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = { sub: undefined, overrides: [], enable: [], disable: [], positional: [], flags: new Set() };
  const takes = new Set([
    '-c',
    '--config',
    '-m',
    '--model',
    '-s',
    '--sandbox',
    '-a',
    '--ask-for-approval',
    '-C',
    '--cd',
    '-p',
    '--profile',
    '--enable',
    '--disable',
    '-o',
    '--output-last-message',
    '-i',
    '--image',
    '--add-dir',
    '--color',
    '--output-schema',
    '--thread-source',
    '--local-provider',
  ]);
  const bools = new Set([
    '--no-daemon',
    '--dangerously-bypass-approvals-and-sandbox',
    '--dangerously-bypass-hook-trust',
    '--skip-git-repo-check',
    '--json',
    '--ephemeral',
    '--oss',
    '--strict-config',
    '--trust',
    '--ignore-user-config',
    '--ignore-rules',
    '--last',
    '--search',
    '--approve-for-me',
    '--worktree',
  ]);
  let k = 0;
  if (argv[0] === 'exec' || argv[0] === 'e') {
    o.sub = 'exec';
    k = 1;
    if (argv[1] === 'resume') {
      o.resume = true;
      k = 2;
    }
  } else if (argv[0] === 'resume') {
    o.sub = 'resume';
    k = 1;
  }
  for (; k < argv.length; k++) {
    let a = argv[k];
    let v;
    if (a === '--') {
      o.positional.push(...argv.slice(k + 1));
      break;
    }
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    if (eq > 0) {
      v = a.slice(eq + 1);
      a = a.slice(0, eq);
    }
    if (a === '--version' || a === '-V') {
      process.stdout.write(`codex-cli ${VERSION}\n`);
      process.exit(0);
    }
    if (a === '--help' || a === '-h') {
      process.stdout.write('Codex CLI (fake)\n\nUsage: codex [OPTIONS] [PROMPT]\n       codex exec [OPTIONS] [PROMPT]\n');
      process.exit(0);
    }
    if (takes.has(a)) {
      if (v === undefined) {
        if (k + 1 >= argv.length) usageExit(`a value is required for '${a} <VALUE>' but none was supplied`);
        v = argv[++k];
      }
      if (a === '-c' || a === '--config') o.overrides.push(v);
      else if (a === '--enable') o.enable.push(v);
      else if (a === '--disable') o.disable.push(v);
      else if (a === '-m' || a === '--model') o.model = v;
      else if (a === '-s' || a === '--sandbox') {
        if (!['read-only', 'workspace-write', 'danger-full-access'].includes(v)) usageExit(`invalid value '${v}' for '--sandbox <SANDBOX_MODE>'`);
        o.sandbox = v;
      } else if (a === '-a' || a === '--ask-for-approval') {
        if (o.sub === 'exec') usageExit(`unexpected argument '${a}' found`);
        if (!['on-request', 'never'].includes(v))
          usageExit(`invalid value '${v}' for '--ask-for-approval <APPROVAL_POLICY>'\n  [possible values: on-request, never]`);
        o.approval = v;
      } else if (a === '-C' || a === '--cd') o.cd = v;
      else if (a === '-p' || a === '--profile') o.profile = v;
      else if (a === '-o' || a === '--output-last-message') o.outputFile = v;
      continue;
    }
    if (bools.has(a)) {
      o.flags.add(a);
      continue;
    }
    if (a.startsWith('-') && a !== '-') usageExit(`unexpected argument '${a}' found`);
    o.positional.push(argv[k]);
  }
  return o;
}

// ---------------------------------------------------------------------------------------------
// config

const sortKeys = (v) =>
  Array.isArray(v)
    ? v.map(sortKeys)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, sortKeys(v[k])]),
        )
      : v;

/** §6.2: the trusted_hash of one handler. */
export function hookHash(eventSnake, handler, matcher) {
  let timeout = handler.timeout ?? 600;
  if (eventSnake === 'interrupt' || eventSnake === 'session_end') timeout = Math.min(timeout, 3);
  const h = { async: handler.async ?? false, command: handler.command, timeout, type: handler.type ?? 'command' };
  if (handler.statusMessage !== undefined) h.statusMessage = handler.statusMessage;
  const id = { event_name: eventSnake, hooks: [h] };
  if (matcher !== undefined) id.matcher = matcher;
  return `sha256:${createHash('sha256')
    .update(JSON.stringify(sortKeys(id)))
    .digest('hex')}`;
}

function setPath(obj, dotted, value) {
  const parts = [];
  const re = /\s*("(?:[^"\\]|\\.)*"|'[^']*'|[^.]+)\s*(?:\.|$)/gy;
  let m;
  while ((m = re.exec(dotted)) && m[0] !== '') parts.push(m[1].startsWith('"') ? JSON.parse(m[1]) : m[1].replace(/^'|'$/g, ''));
  let o = obj;
  for (const p of parts.slice(0, -1)) o = o[p] && typeof o[p] === 'object' ? o[p] : (o[p] = {});
  o[parts[parts.length - 1]] = value;
  return parts;
}

function loadConfig(home, args) {
  const file = join(home, 'config.toml');
  let cfg = {};
  if (existsSync(file)) {
    try {
      cfg = parseToml(readFileSync(file, 'utf8'));
    } catch (err) {
      process.stderr.write(`Error: loading config.toml: ${file}:${err.message}\n`);
      process.exit(1);
    }
  }
  const fileCfg = structuredClone(cfg);
  const flagHooks = {};
  for (const ov of args.overrides) {
    const eq = ov.indexOf('=');
    if (eq < 0) {
      process.stderr.write(`Error: Invalid override (missing '='): ${ov}\n`);
      process.exit(1);
    }
    const key = ov.slice(0, eq).trim();
    const value = parseOverrideValue(ov.slice(eq + 1).trim());
    if (key.startsWith('hooks.state')) {
      process.stderr.write(`session-flags: \`${key}\` is ignored.\n`);
      continue;
    }
    if (key.startsWith('projects')) continue; // not honoured via -c (§5.2)
    if (key.startsWith('hooks.')) {
      setPath(flagHooks, key.slice('hooks.'.length), value);
      continue;
    }
    setPath(cfg, key, value);
  }
  for (const f of args.enable) setPath(cfg, `features.${f}`, true);
  for (const f of args.disable) setPath(cfg, `features.${f}`, false);
  if (args.model) cfg.model = args.model;
  return { cfg, fileCfg, flagHooks };
}

/** Every hook handler, with its trust key and whether it is trusted. */
function collectHooks(home, fileCfg, flagHooks, bypass) {
  const sources = [];
  const hooksJson = join(home, 'hooks.json');
  if (existsSync(hooksJson)) {
    try {
      sources.push({ file: hooksJson, hooks: JSON.parse(readFileSync(hooksJson, 'utf8')).hooks ?? {} });
    } catch (err) {
      process.stderr.write(`warning: could not parse ${hooksJson}: ${err.message}\n`);
    }
  }
  const { state: _state, ...tomlHooks } = fileCfg.hooks ?? {};
  if (Object.keys(tomlHooks).length > 0) sources.push({ file: join(home, 'config.toml'), hooks: tomlHooks });
  if (Object.keys(flagHooks).length > 0) sources.push({ file: '/<session-flags>/config.toml', hooks: flagHooks });
  const states = fileCfg.hooks?.state ?? {};
  const out = [];
  for (const src of sources) {
    for (const [event, groups] of Object.entries(src.hooks)) {
      const snake = EVENTS[event];
      if (!snake || !Array.isArray(groups)) continue;
      groups.forEach((group, g) => {
        (group?.hooks ?? []).forEach((handler, h) => {
          if (handler?.type !== 'command' || typeof handler.command !== 'string') return;
          const key = `${src.file}:${snake}:${g}:${h}`;
          const hash = hookHash(snake, handler, group.matcher);
          const trusted = bypass || states[key]?.trusted_hash === hash;
          let timeout = handler.timeout ?? 600;
          if (snake === 'interrupt' || snake === 'session_end') timeout = Math.min(timeout, 3);
          out.push({ event, key, hash, trusted, command: handler.command, timeout, matcher: group.matcher });
        });
      });
    }
  }
  return out;
}

function gitRoot(dir) {
  let d = dir;
  for (;;) {
    if (existsSync(join(d, '.git'))) return d;
    const up = dirname(d);
    if (up === d) return undefined;
    d = up;
  }
}

function isTrusted(cfg, cwd) {
  const projects = cfg.projects ?? {};
  const root = gitRoot(cwd);
  return [cwd, root].some((d) => d && projects[d]?.trust_level === 'trusted');
}

/** Append TOML tables to config.toml, as codex does when a dialog is answered. */
function appendConfig(home, text) {
  const file = join(home, 'config.toml');
  const prev = existsSync(file) ? readFileSync(file, 'utf8') : '';
  writeFileSync(file, `${prev}${prev === '' || prev.endsWith('\n') ? '' : '\n'}\n${text}`);
}

const q = (s) => JSON.stringify(s);

// ---------------------------------------------------------------------------------------------
// ids, rollout

function uuidv7() {
  const b = randomBytes(16);
  let ts = BigInt(Date.now());
  for (let k = 5; k >= 0; k--) {
    b[k] = Number(ts & 0xffn);
    ts >>= 8n;
  }
  b[6] = (b[6] & 0x0f) | 0x70;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const pad = (n, w = 2) => String(n).padStart(w, '0');

class Rollout {
  constructor(home, threadId, created, disabled) {
    const d = created;
    const dir = join(home, 'sessions', String(d.getFullYear()), pad(d.getMonth() + 1), pad(d.getDate()));
    this.path = join(
      dir,
      `rollout-${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}-${pad(d.getMinutes())}-${pad(d.getSeconds())}-${threadId}.jsonl`,
    );
    this.dir = dir;
    this.ordinal = 0;
    this.disabled = disabled;
    this.started = false;
  }
  write(type, payload) {
    if (this.disabled) return;
    if (!this.started) {
      mkdirSync(this.dir, { recursive: true });
      this.started = true;
    }
    appendFileSync(this.path, `${JSON.stringify({ timestamp: new Date().toISOString(), ordinal: this.ordinal++, type, payload })}\n`);
  }
  event(payload) {
    this.write('event_msg', payload);
  }
}

// ---------------------------------------------------------------------------------------------
// session: everything shared by the TUI and exec

class Session {
  constructor({ home, cwd, cfg, fileCfg, flagHooks, args, client }) {
    this.home = home;
    this.cwd = cwd;
    this.cfg = cfg;
    this.args = args;
    this.client = client; // 'codex-tui' | 'codex_exec'
    this.model = cfg.model ?? 'gpt-5.5';
    this.providerId = cfg.model_provider ?? 'openai';
    this.provider = cfg.model_providers?.[this.providerId];
    this.bypass = args.flags.has('--dangerously-bypass-approvals-and-sandbox');
    this.approval = this.bypass || client === 'codex_exec' ? 'never' : (args.approval ?? cfg.approval_policy ?? 'on-request');
    this.permissionMode = this.bypass ? 'bypassPermissions' : 'default';
    this.hooks = collectHooks(home, fileCfg, flagHooks, args.flags.has('--dangerously-bypass-hook-trust'));
    this.threadId = uuidv7();
    this.created = new Date();
    this.rollout = new Rollout(home, this.threadId, this.created, args.flags.has('--ephemeral'));
    this.sessionStarted = false;
    this.userMessages = [];
    this.turns = 0;
    this.tokens = { input: 0, output: 0 };
    this.failures = new Map();
    this.hookLog = [];
    /** Plan usage the "server" reported (QUOTA, plan limits): {primary?, secondary?} (account.mjs). */
    this.rateLimits = {};
  }

  /** `codex resume <id>`: continue thread `id` in its own rollout file (resume.mjs). */
  resumeThread(id, path) {
    this.threadId = id;
    this.resumedFrom = path;
    Object.assign(this.rollout, { path, dir: dirname(path), started: true, ordinal: rolloutRecords(path).length });
    this.sessionStarted = true;
    this.userMessages = rolloutPrompts(path);
  }

  /**
   * Fake-only directives: `KILLSELF <SIG>` dies mid-turn (no SessionEnd); `RECALL` answers with the
   * thread's earlier prompts read back from its rollout file (so only a real resume shows them).
   */
  fakeOnlyReply(prompt) {
    const m = /^KILLSELF ([A-Z0-9]+)\s*$/.exec(prompt);
    if (m) {
      for (const s of ['SIGTERM', 'SIGHUP', 'SIGINT']) process.removeAllListeners(s);
      process.kill(process.pid, m[1].startsWith('SIG') ? m[1] : `SIG${m[1]}`);
    }
    if (!/^RECALL\s*$/.test(prompt)) return undefined;
    const earlier = this.rollout.disabled ? [] : rolloutPrompts(this.rollout.path).slice(0, -1);
    return planReply(`ECHO RECALL: ${earlier.length ? earlier.join(' | ') : '(nothing)'}`);
  }

  async hook(event, extra, { turnId, toolName } = {}) {
    const handlers = this.hooks.filter((h) => h.event === event && h.trusted);
    if (handlers.length === 0) return;
    const body = {
      session_id: this.threadId,
      ...(turnId ? { turn_id: turnId } : {}),
      transcript_path: this.rollout.disabled ? null : this.rollout.path,
      cwd: this.cwd,
      hook_event_name: event,
    };
    if (event !== 'SessionEnd') Object.assign(body, { model: this.model, permission_mode: this.permissionMode });
    Object.assign(body, extra);
    const json = JSON.stringify(body);
    for (const h of handlers) {
      if (h.matcher && toolName && !new RegExp(`^(?:${h.matcher})$`).test(toolName)) continue;
      const shell = process.env.SHELL || '/bin/sh';
      const argv = process.env.SHELL ? [shell, ['-lc', h.command]] : ['/bin/sh', ['-c', h.command]];
      const ok = await new Promise((res) => {
        const child = spawn(argv[0], argv[1], { cwd: this.cwd, env: process.env, stdio: ['pipe', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', () => {});
        const t = setTimeout(() => child.kill('SIGKILL'), h.timeout * 1000);
        child.on('error', () => {
          clearTimeout(t);
          res(false);
        });
        child.on('close', (code) => {
          clearTimeout(t);
          const trimmed = out.trim();
          let jsonOk = trimmed === '';
          if (!jsonOk) {
            try {
              JSON.parse(trimmed);
              jsonOk = true;
            } catch {}
          }
          res(code === 0 && jsonOk);
        });
        child.stdin.on('error', () => {});
        child.stdin.end(json);
      });
      this.hookLog.push(`hook: ${event} ${ok ? 'Completed' : 'Failed'}`);
    }
  }

  notify(payload) {
    const argv = Array.isArray(this.cfg.notify) ? this.cfg.notify : undefined;
    if (!argv || argv.length === 0) return;
    try {
      const child = spawn(argv[0], [...argv.slice(1), JSON.stringify(payload)], { cwd: this.cwd, stdio: 'ignore', detached: true });
      child.on('error', () => {});
      child.unref();
    } catch {}
  }

  startSession() {
    if (this.sessionStarted) return;
    this.sessionStarted = true;
    this.rollout.write('session_meta', {
      account_scoped: true,
      session_id: this.threadId,
      id: this.threadId,
      timestamp: this.created.toISOString(),
      cwd: this.cwd,
      runtime_workspace_roots: [this.cwd],
      originator: this.client,
      cli_version: VERSION,
      source: this.client === 'codex-tui' ? 'cli' : 'exec',
      thread_source: 'user',
      model_provider: this.providerId,
      base_instructions: { text: 'You are a coding agent running in the Codex CLI (fake).' },
      history_mode: 'paginated',
      context_window: { window_id: uuidv7() },
    });
  }

  apiError(status, message) {
    if (status >= 500) return { message: 'We’re currently experiencing high demand, which may cause temporary errors.', info: 'internal_server_error' };
    if (status === 429) return { message: 'exceeded retry limit, last status: 429 Too Many Requests', info: 'other' };
    if (status === 400)
      return {
        message: JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code: 'invalid_request_error' } }),
        info: 'bad_request',
      };
    const reason = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' }[status] ?? 'Error';
    const base = this.provider?.base_url ?? 'https://api.openai.com/v1';
    return { message: `unexpected status ${status} ${reason}: ${message}, url: ${base}/responses`, info: 'other' };
  }

  /**
   * One model turn.
   * ui: { busy(text), approve(cmd, justification) -> Promise<boolean>, signal: AbortSignal, shown(line) }
   * Returns {status:'complete', answer} | {status:'error', message} | {status:'aborted'}.
   */
  async runTurn(prompt, ui) {
    this.startSession();
    const turnId = uuidv7();
    const startedAt = Date.now();
    this.turns++;
    const first = this.turns === 1;
    if (first && this.client === 'codex-tui') await this.hook('SessionStart', { source: this.resumedFrom ? 'resume' : 'startup' });
    this.rollout.event({
      type: 'task_started',
      turn_attribution: {
        turn_id: turnId,
        turn_trigger: this.client === 'codex-tui' ? 'user' : 'exec',
        parent_turn_id: null,
        initiating_agent_path: null,
        root_turn_id: turnId,
      },
      turn_id: turnId,
      root_turn_id: turnId,
      started_at: Math.floor(startedAt / 1000),
      model_context_window: 258400,
      collaboration_mode_kind: 'default',
    });
    const meta = (kinds) => ({ turn_id: turnId, create_time: Date.now() / 1000, content_item_kinds: kinds });
    if (first && !this.resumedFrom) {
      this.rollout.write('response_item', {
        type: 'message',
        id: `msg_${uuidv7()}`,
        role: 'developer',
        content: [{ type: 'input_text', text: '<permissions instructions>(fake)</permissions instructions>' }],
        internal_chat_message_metadata_passthrough: meta(['developer']),
      });
      this.rollout.write('response_item', {
        type: 'message',
        id: `msg_${uuidv7()}`,
        role: 'user',
        content: [{ type: 'input_text', text: `<environment_context>\n  <cwd>${this.cwd}</cwd>\n  <shell>bash</shell>\n</environment_context>` }],
        internal_chat_message_metadata_passthrough: meta(['environments.environment_context']),
      });
    }
    this.rollout.write('turn_context', {
      turn_id: turnId,
      root_turn_id: turnId,
      cwd: this.cwd,
      approval_policy: this.approval,
      model: this.model,
      sandbox_policy: { type: this.bypass ? 'danger-full-access' : (this.args.sandbox ?? 'workspace-write') },
    });
    this.rollout.write('response_item', {
      type: 'message',
      id: `msg_${uuidv7()}`,
      role: 'user',
      content: [{ type: 'input_text', text: prompt }],
      internal_chat_message_metadata_passthrough: meta(['user.text']),
    });
    this.rollout.event({
      type: 'item_completed',
      thread_id: this.threadId,
      turn_id: turnId,
      item: { type: 'UserMessage', id: uuidv7(), content: [{ type: 'text', text: prompt, text_elements: [] }] },
      started_at_ms: Date.now(),
      completed_at_ms: Date.now(),
    });
    this.userMessages.push(prompt);
    await this.hook('UserPromptSubmit', { prompt }, { turnId });

    const aborted = () => {
      this.rollout.event({
        type: 'turn_aborted',
        root_turn_id: turnId,
        turn_id: turnId,
        reason: 'interrupted',
        started_at: Math.floor(startedAt / 1000),
        completed_at: Math.floor(Date.now() / 1000),
        duration_ms: Date.now() - startedAt,
      });
      return { status: 'aborted', turnId };
    };
    const interruptHook = () => this.hook('Interrupt', {}, { turnId });

    let p = this.fakeOnlyReply(prompt) ?? planReply(prompt);
    if (p.quota) this.rateLimits = applyQuota(this.rateLimits, p.quota);
    ui.busy?.();
    if (first && !this.resumedFrom && this.client === 'codex-tui') this.titleThread(prompt);
    for (;;) {
      if (p.delayMs > 0) await sleep(p.delayMs, ui.signal);
      if (ui.signal?.aborted) {
        await interruptHook();
        return aborted();
      }
      if (p.kind !== 'error') break;
      const n = (this.failures.get(prompt) ?? 0) + 1;
      this.failures.set(prompt, n);
      if (n <= p.times) {
        const err = accountError(p, this) ?? this.apiError(p.status, p.message);
        if (err.limits) this.rateLimits = err.limits;
        const rateLimits = rateLimitsRecord(this.rateLimits);
        if (rateLimits) this.rollout.event({ type: 'token_count', info: null, rate_limits: rateLimits });
        this.rollout.event({
          type: 'task_complete',
          root_turn_id: turnId,
          turn_id: turnId,
          last_agent_message: null,
          error: { message: err.message, codex_error_info: err.info },
          started_at: Math.floor(startedAt / 1000),
          completed_at: Math.floor(Date.now() / 1000),
          duration_ms: Date.now() - startedAt,
          time_to_first_token_ms: null,
        });
        return { status: 'error', message: err.message, turnId, nudge: Boolean(err.nudge) };
      }
      p = { ...planReply(p.rest || 'recovered'), delayMs: 0 };
    }

    let answer;
    if (p.kind === 'tool') {
      const callId = `call_${randomBytes(12).toString('hex')}`;
      const args = {
        cmd: p.command,
        login: false,
        yield_time_ms: 30000,
        ...(p.escalate ? { sandbox_permissions: 'require_escalated', justification: `Mock wants to run: ${p.command}` } : {}),
      };
      this.rollout.write('response_item', {
        type: 'function_call',
        id: `fc_${randomBytes(12).toString('hex')}`,
        name: 'exec_command',
        arguments: JSON.stringify(args),
        call_id: callId,
      });
      await this.hook('PreToolUse', { tool_name: 'Bash', tool_input: { command: p.command }, tool_use_id: callId }, { turnId, toolName: 'Bash' });
      let output;
      if (p.escalate && this.approval === 'never') {
        output = `approval policy is Never; reject command — you cannot ask for escalated permissions if the approval policy is Never`;
      } else {
        if (p.escalate) {
          const waiting = ui.approve(p.command, args.justification);
          await this.hook('PermissionRequest', { tool_name: 'Bash', tool_input: { command: p.command, description: args.justification } }, { turnId });
          const ok = await waiting;
          if (!ok) {
            await interruptHook();
            return aborted();
          }
        }
        ui.shown?.(`• Running ${p.command}`);
        const t0 = Date.now();
        let out = '';
        let code = 0;
        try {
          out = execFileSync('/bin/bash', ['-c', p.command], { cwd: this.cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 30000 });
        } catch (err) {
          out = `${err.stdout ?? ''}${err.stderr ?? ''}`;
          code = typeof err.status === 'number' ? err.status : 1;
        }
        this.rollout.event({
          type: 'item_completed',
          thread_id: this.threadId,
          turn_id: turnId,
          item: {
            type: 'CommandExecution',
            id: callId,
            process_id: String(process.pid),
            command: ['/bin/bash', '-c', p.command],
            cwd: `file://${this.cwd}`,
            status: 'completed',
            aggregated_output: out,
            exit_code: code,
            duration: { secs: Math.floor((Date.now() - t0) / 1000), nanos: 0 },
            source: 'unified_exec_startup',
          },
          started_at_ms: t0,
          completed_at_ms: Date.now(),
        });
        ui.ran?.(p.command, out);
        await this.hook(
          'PostToolUse',
          { tool_name: 'Bash', tool_input: { command: p.command }, tool_response: out, tool_use_id: callId },
          { turnId, toolName: 'Bash' },
        );
        output = `Chunk ID: ${randomBytes(3).toString('hex')}\nWall time: 0.0000 seconds\nProcess exited with code ${code}\nOriginal token count: ${Math.ceil(out.length / 4)}\nOutput:\n${out}`;
      }
      this.rollout.write('response_item', { type: 'function_call_output', id: `fco_${randomBytes(8).toString('hex')}`, call_id: callId, output });
      if (ui.signal?.aborted) {
        await interruptHook();
        return aborted();
      }
      const at = output.indexOf('Output:\n');
      answer = toolResultReply(at >= 0 ? output.slice(at + 8) : output);
    } else {
      answer = p.text;
    }

    const msgId = `msg_${randomBytes(16).toString('hex')}`;
    this.rollout.event({
      type: 'item_completed',
      thread_id: this.threadId,
      turn_id: turnId,
      item: { type: 'AgentMessage', id: msgId, content: [{ type: 'Text', text: answer }], phase: 'final_answer' },
      started_at_ms: Date.now(),
      completed_at_ms: Date.now(),
    });
    this.rollout.write('response_item', {
      type: 'message',
      status: 'completed',
      id: msgId,
      role: 'assistant',
      content: [{ type: 'output_text', text: answer, annotations: [] }],
      phase: 'final_answer',
      internal_chat_message_metadata_passthrough: { turn_id: turnId, content_item_kinds: ['unknown'] },
    });
    const input = 13000 + Math.ceil(prompt.length / 4);
    const output = Math.ceil(answer.length / 4);
    this.tokens.input += input;
    this.tokens.output += output;
    const usage = {
      input_tokens: input,
      cached_input_tokens: 0,
      cache_write_input_tokens: 0,
      output_tokens: output,
      reasoning_output_tokens: 0,
      total_tokens: input + output,
    };
    const total = { ...usage, input_tokens: this.tokens.input, output_tokens: this.tokens.output, total_tokens: this.tokens.input + this.tokens.output };
    this.rollout.write('token_usage_record', {
      thread_id: this.threadId,
      turn_id: turnId,
      session_id: this.threadId,
      root_turn_id: turnId,
      response_id: `resp_${randomUUID()}`,
      usage,
      turn_token_usage: usage,
      thread_token_usage: total,
    });
    this.rollout.event({
      type: 'token_count',
      info: { total_token_usage: total, last_token_usage: usage, last_usage_includes_reasoning: false, model_context_window: 258400 },
      rate_limits: rateLimitsRecord(this.rateLimits),
    });
    await this.hook('Stop', { stop_hook_active: false, last_assistant_message: answer }, { turnId });
    this.rollout.event({
      type: 'task_complete',
      root_turn_id: turnId,
      turn_id: turnId,
      last_agent_message: answer,
      started_at: Math.floor(startedAt / 1000),
      completed_at: Math.floor(Date.now() / 1000),
      duration_ms: Date.now() - startedAt,
      time_to_first_token_ms: 50,
    });
    this.notify({
      type: 'agent-turn-complete',
      'thread-id': this.threadId,
      'turn-id': turnId,
      cwd: this.cwd,
      client: this.client,
      'input-messages': [...this.userMessages],
      'last-assistant-message': answer,
    });
    return { status: 'complete', answer, turnId, durationMs: Date.now() - startedAt };
  }

  /** §2.4: the hidden title thread (no rollout, no hooks, but a notify). */
  titleThread(prompt) {
    const titleThread = uuidv7();
    setTimeout(() => {
      this.title = TITLE;
      this.notify({
        type: 'agent-turn-complete',
        'thread-id': titleThread,
        'turn-id': uuidv7(),
        cwd: this.cwd,
        client: this.client,
        'input-messages': [`${TITLE_PROMPT}${prompt}`],
        'last-assistant-message': JSON.stringify({ title: TITLE }),
      });
      this.onTitle?.();
    }, 30);
  }

  /** `!cmd` in the composer: a local shell command, no hooks (§6.5). */
  runShell(cmd) {
    this.startSession();
    const turnId = uuidv7();
    const t0 = Date.now();
    this.rollout.event({
      type: 'task_started',
      turn_attribution: { turn_id: turnId, turn_trigger: 'user', parent_turn_id: null, initiating_agent_path: null, root_turn_id: turnId },
      turn_id: turnId,
      root_turn_id: turnId,
      started_at: Math.floor(t0 / 1000),
      model_context_window: 258400,
      collaboration_mode_kind: 'default',
    });
    let out = '';
    let code = 0;
    try {
      out = execFileSync('/bin/bash', ['-c', cmd], { cwd: this.cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 30000 });
    } catch (err) {
      out = `${err.stdout ?? ''}${err.stderr ?? ''}`;
      code = err.status ?? 1;
    }
    this.rollout.write('response_item', {
      type: 'message',
      id: `msg_${uuidv7()}`,
      role: 'user',
      content: [
        {
          type: 'input_text',
          text: `<user_shell_command>\n<command>\n${cmd}\n</command>\n<result>\nExit code: ${code}\nOutput:\n${out}</result>\n</user_shell_command>`,
        },
      ],
      internal_chat_message_metadata_passthrough: { turn_id: turnId, content_item_kinds: ['user_shell_command'] },
    });
    this.rollout.event({
      type: 'task_complete',
      root_turn_id: turnId,
      turn_id: turnId,
      last_agent_message: null,
      started_at: Math.floor(t0 / 1000),
      completed_at: Math.floor(Date.now() / 1000),
      duration_ms: Date.now() - t0,
      time_to_first_token_ms: null,
    });
    return out;
  }
}

const sleep = (ms, signal) =>
  new Promise((res) => {
    if (signal?.aborted) return res();
    const t = setTimeout(res, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      res();
    });
  });

// ---------------------------------------------------------------------------------------------
// daemon (§5.1)

function maybeStartDaemon(home, cfg, args) {
  const auto = cfg.features?.daemon_auto_start ?? true;
  if (!auto || args.flags.has('--no-daemon')) return false;
  const child = spawn(process.execPath, ['-e', 'process.title="codex-app-server-daemon";setInterval(()=>{},1<<30)', 'app-server', '--managed-daemon'], {
    detached: true,
    stdio: 'ignore',
    cwd: '/',
  });
  child.unref();
  mkdirSync(home, { recursive: true });
  appendFileSync(join(home, 'fake-codex-daemon.pids'), `${child.pid}\n`);
  return true;
}

// ---------------------------------------------------------------------------------------------
// exec (§4)

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

async function runExec(ctx) {
  const { args, cfg, cwd } = ctx;
  const sess = new Session({ ...ctx, client: 'codex_exec' });
  let prompt = args.positional[0];
  const stdinIsTty = process.stdin.isTTY === true;
  if (prompt === '-' || prompt === undefined) {
    if (stdinIsTty) {
      process.stderr.write('No prompt provided. Either specify one as an argument or pipe the prompt into stdin.\n');
      process.exit(1);
    }
    if (prompt === undefined) process.stderr.write('Reading prompt from stdin...\n');
    prompt = await readStdin();
    if (prompt.trim() === '') {
      process.stderr.write('No prompt provided via stdin.\n');
      process.exit(1);
    }
  } else if (!stdinIsTty) {
    process.stderr.write('Reading additional input from stdin...\n');
    const extra = await readStdin();
    if (extra.trim() !== '') prompt = `${prompt}\n\n<stdin>\n${extra}</stdin>`;
  }
  if (!args.flags.has('--skip-git-repo-check') && !gitRoot(cwd) && !isTrusted(cfg, cwd)) {
    process.stderr.write('Not inside a trusted directory and --skip-git-repo-check was not specified.\n');
    process.exit(1);
  }
  if (sess.provider?.env_key && !process.env[sess.provider.env_key]) {
    process.stderr.write(`ERROR: Missing environment variable: \`${sess.provider.env_key}\`.\n`);
    process.exit(1);
  }
  const trusted = isTrusted(cfg, cwd);
  const sandbox = sess.bypass ? 'danger-full-access' : (args.sandbox ?? (trusted ? 'workspace-write' : 'read-only'));
  const json = args.flags.has('--json');
  const err = (s) => process.stderr.write(s);
  if (!json) {
    err(
      `OpenAI Codex v${VERSION}\n--------\nworkdir: ${cwd}\nmodel: ${sess.model}\nprovider: ${sess.providerId}\napproval: never\nsandbox: ${sandbox === 'workspace-write' ? 'workspace-write [workdir, /tmp, $TMPDIR]' : sandbox}\nreasoning effort: none\nreasoning summaries: none\nsession id: ${sess.threadId}\n--------\nuser\n${prompt}\n`,
    );
  } else {
    process.stdout.write(`${JSON.stringify({ type: 'thread.started', thread_id: sess.threadId })}\n`);
    process.stdout.write(`${JSON.stringify({ type: 'turn.started' })}\n`);
  }
  const ui = {
    approve: async () => false,
    ran: (cmd, out) => {
      if (json)
        process.stdout.write(
          `${JSON.stringify({ type: 'item.completed', item: { id: 'item_1', type: 'command_execution', command: `/bin/bash -c '${cmd}'`, aggregated_output: out, exit_code: 0, status: 'completed' } })}\n`,
        );
      else err(`exec\n/bin/bash -c '${cmd}' in ${cwd}\n succeeded in 0ms:\n${out}`);
    },
  };
  const r = await sess.runTurn(prompt, ui);
  if (args.outputFile) writeFileSync(args.outputFile, r.status === 'complete' ? r.answer : '');
  if (r.status !== 'complete') {
    if (json) {
      process.stdout.write(`${JSON.stringify({ type: 'error', message: r.message })}\n`);
      process.stdout.write(`${JSON.stringify({ type: 'turn.failed', error: { message: r.message } })}\n`);
    } else err(`ERROR: ${r.message}\n`);
    process.exit(1);
  }
  if (json) {
    process.stdout.write(`${JSON.stringify({ type: 'item.completed', item: { id: 'item_2', type: 'agent_message', text: r.answer } })}\n`);
    process.stdout.write(
      `${JSON.stringify({ type: 'turn.completed', usage: { input_tokens: sess.tokens.input, cached_input_tokens: 0, cache_write_input_tokens: 0, output_tokens: sess.tokens.output, reasoning_output_tokens: 0 } })}\n`,
    );
  } else {
    err(`codex\n${r.answer}\n`);
    for (const l of sess.hookLog) err(`${l}\n`);
    err(`tokens used\n${(sess.tokens.input + sess.tokens.output).toLocaleString('en-US')}\n`);
    process.stdout.write(`${r.answer}\n`);
  }
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
// TUI (§5, §8, §9, §10)

function knob(cfg, name, envName) {
  if (process.env[envName] !== undefined) return process.env[envName];
  const v = cfg.fake_codex?.[name];
  return v === undefined ? undefined : String(v);
}

async function runTui(ctx) {
  const { home, cfg, cwd, args } = ctx;
  const out = process.stdout;
  const rows = () => out.rows || 50;
  const sess = new Session({ ...ctx, client: 'codex-tui' });
  if (args.sub === 'resume') {
    const id = args.positional.shift();
    const path = id ? findRollout(home, id) : undefined;
    if (!path) noSuchSession(id);
    sess.resumeThread(id, path);
  }
  const daemon = maybeStartDaemon(home, cfg, args);
  const readyMs = Number(knob(cfg, 'ready_ms', 'FAKE_CODEX_READY_MS') ?? 300);
  const burstWindow = Number(knob(cfg, 'burst_window_ms', 'FAKE_CODEX_BURST_WINDOW_MS') ?? 20);
  const pasteBurst = cfg.tui?.disable_paste_burst !== true;
  const signedOutKnob = knob(cfg, 'signed_out', 'FAKE_CODEX_SIGNED_OUT');
  const signedOut =
    signedOutKnob === '1' ||
    signedOutKnob === 'true' ||
    (signedOutKnob === 'auto' && (sess.providerId === 'openai' || !sess.provider) && !existsSync(join(home, 'auth.json')));
  const updateKnob = knob(cfg, 'update_available', 'FAKE_CODEX_UPDATE');

  const history = [];
  let composer = '';
  let ready = false;
  let mode = 'start';
  let dialog; // {kind, options, sel, lines}
  let busy; // {started, abort, prompt}
  let approval; // {resolve, command}
  const warning = '⚠ 1 warning · f2 to view';

  const dialogs = [];
  if (updateKnob === '1' && cfg.check_for_update_on_startup !== false) {
    dialogs.push({
      kind: 'update',
      lines: ['  ✨ Update available! 0.169.0 -> 0.170.0', '', '  Release notes: https://github.com/openai/codex/releases/latest', ''],
      options: ['Update now (runs `npm install -g @openai/codex`)', 'Skip', 'Skip until next version'],
      footer: '  Press enter to continue',
    });
  }
  const root = gitRoot(cwd);
  if (root && !isTrusted(cfg, cwd)) {
    dialogs.push({
      kind: 'trust',
      lines: [
        '  Folder access',
        `  ${cwd}`,
        '',
        '  Trust this folder? Codex can read, edit, and run files here, subject to your permission settings. Folder settings can run code automatically,',
        '  even without a model request. Continue only if you trust these files. Your trust decision will be saved.',
        '',
      ],
      options: ['Trust and continue', 'Back to Agent Command Center'],
      footer: '  enter continue · esc back',
    });
  }
  const untrusted = sess.hooks.filter((h) => !h.trusted);
  if (untrusted.length > 0) {
    dialogs.push({
      kind: 'hooks',
      lines: [
        '  Hooks need review',
        '',
        `  ${untrusted.length} hook${untrusted.length === 1 ? ' is' : 's are'} new or changed.`,
        '  Hooks can run outside the sandbox after you trust them.',
        '',
      ],
      options: ['Review hooks', 'Trust all and continue', "Continue without trusting (hooks won't run)"],
      footer: '  enter confirm · esc skip',
    });
  }

  function statusLine() {
    return `  ${sess.model} default · ${cwd}${sess.title ? ` · ${sess.title}` : ''}`;
  }

  function render() {
    const lines = [`  >_ OpenAI Codex (v${VERSION})`, `     ${cwd}`, ''];
    if (mode === 'signin') {
      lines.push(
        "  Welcome to Codex, OpenAI's command-line coding agent",
        '',
        '  Sign in with ChatGPT to use Codex as part of your paid plan',
        '  or connect an API key for usage-based billing',
        '',
        '  Choose how you want to use Codex.',
        '',
        '> 1. Sign in with ChatGPT',
        '     Usage included with Plus, Pro, Business, and Enterprise plans',
        '  2. Sign in with Device Code',
        '     Sign in from another device with a one-time code',
        '  3. Sign in another way',
        '     Use an API key or another provider',
        '',
        '  Press enter to continue',
      );
    } else if (mode === 'dialog' && dialog) {
      lines.push(...dialog.lines);
      dialog.options.forEach((o, k) => {
        lines.push(`${k === dialog.sel ? '›' : ' '} ${k + 1}. ${o}`);
      });
      lines.push('', dialog.footer);
    } else {
      lines.push(...history);
      if (approval) {
        lines.push(
          `• Running ${approval.command}`,
          '  Would you like to run the following command?',
          '  Environment: local',
          `  Reason: ${approval.justification}`,
          `  $ ${approval.command}`,
          '› 1. Yes, proceed (y)',
          `  2. Yes, and don't ask again for commands that start with \`${approval.command}\` (p)`,
          '  3. No, and tell Codex what to do differently (esc)',
          '  Press enter to confirm or esc to cancel',
        );
      } else {
        if (busy) {
          const s = Math.floor((Date.now() - busy.started) / 1000);
          lines.push('', `${s % 2 ? '◦' : '•'} Working (${s}s • esc to interrupt)`);
        }
        lines.push('');
        const shown = composer.length > 1000 ? `[Pasted Content ${composer.length} chars]` : composer;
        const cl = shown === '' ? ['Ask Codex to do anything'] : shown.split('\n');
        cl.forEach((l, k) => {
          lines.push(`${k === 0 ? '›' : ' '} ${l}`);
        });
        if (ready) {
          lines.push(statusLine());
          lines.push(`  ← for agents · ? for shortcuts${' '.repeat(40)}${warning}`);
        }
      }
    }
    const n = rows();
    const visible = lines.slice(Math.max(0, lines.length - n));
    out.write(`\x1b[H\x1b[2J${visible.join('\r\n')}`);
  }

  function exitTui(code = 0) {
    out.write('\x1b[?2004l\x1b[?1049l');
    if (mode !== 'signin') {
      if (daemon && code === 0) {
        out.write(`Disconnected from this task. Any running work continues. To reconnect, run: codex resume ${sess.threadId}\n`);
      } else if (sess.turns > 0) {
        const t = sess.tokens;
        out.write(
          `Token usage: total=${(t.input + t.output).toLocaleString('en-US')} input=${t.input.toLocaleString('en-US')} output=${t.output.toLocaleString('en-US')}\nTo continue this session, run:\n  codex resume ${sess.threadId}\n${sess.title ? `Or run codex resume and select ${sess.title}.\n` : ''}`,
        );
      } else out.write(`Session ID: ${sess.threadId}\n`);
    }
    try {
      process.stdin.setRawMode?.(false);
    } catch {}
    process.exit(code);
  }

  async function quit() {
    if (sess.sessionStarted) await sess.hook('SessionEnd', { reason: 'other' });
    exitTui(0);
  }

  function nextDialog() {
    dialog = dialogs.shift();
    if (dialog) {
      dialog.sel = 0;
      mode = 'dialog';
      render();
      return;
    }
    if (signedOut) {
      mode = 'signin';
      render();
      return;
    }
    mode = 'main';
    render();
    setTimeout(() => {
      ready = true;
      render();
      const initial = args.positional[0];
      if (initial) submit(initial);
    }, readyMs);
  }

  function chooseDialog(k) {
    const d = dialog;
    if (d.kind === 'rate-limit-nudge') {
      if (k === 0) sess.model = 'gpt-6-luna';
      dialog = undefined;
      mode = 'main';
      render();
      return;
    }
    if (d.kind === 'update') {
      if (k === 0) {
        out.write('\x1b[?1049l');
        process.stderr.write('Updating Codex via `npm install -g @openai/codex`...\n(fake: refusing to update)\n');
        process.exit(1);
      }
    } else if (d.kind === 'trust') {
      if (k !== 0) exitTui(0);
      appendConfig(home, `[projects.${q(root ?? cwd)}]\ntrust_level = "trusted"\n`);
    } else if (d.kind === 'hooks') {
      if (k === 0) return; // "Review hooks" would open a list; stay on the dialog
      if (k === 1) {
        appendConfig(home, untrusted.map((h) => `[hooks.state.${q(h.key)}]\ntrusted_hash = ${q(h.hash)}\n`).join('\n'));
        for (const h of untrusted) h.trusted = true;
      }
    }
    nextDialog();
  }

  async function submit(raw) {
    if (raw.startsWith('/')) {
      const cmd = raw.trim().split(/\s+/)[0];
      if (cmd === '/quit' || cmd === '/exit') return quit();
      history.push(`› ${raw.trim()}`);
      if (cmd === '/status') history.push(`  Session: ${sess.threadId}`, `  Model: ${sess.model}`, ...statusAccountLines(sess), `  Directory: ${cwd}`);
      else history.push(`■ Unrecognized command '${cmd}'. Type "/" for a list of supported commands.`);
      history.push('');
      render();
      return;
    }
    if (raw.startsWith('!')) {
      const cmd = raw.slice(1).trim();
      history.push(`› ${raw.trim()}`);
      const o = sess.runShell(cmd);
      history.push(
        `• You ran ${cmd}`,
        ...o
          .trimEnd()
          .split('\n')
          .map((l, k) => `${k === 0 ? '  └ ' : '    '}${l}`),
        '',
      );
      render();
      return;
    }
    const prompt = raw.trim();
    if (prompt === '') return;
    if (busy) {
      // steer: the same turn continues with the new message (simplified: the reply is for the new text)
      busy.steer = prompt;
      return;
    }
    history.push(...prompt.split('\n').map((l, k) => `${k === 0 ? '›' : ' '} ${l}`), '');
    const abort = new AbortController();
    busy = { started: Date.now(), abort, prompt };
    const tick = setInterval(render, 500);
    render();
    const r = await sess.runTurn(prompt, {
      signal: abort.signal,
      approve: (command, justification) =>
        new Promise((resolveApproval) => {
          approval = { command, justification, resolve: resolveApproval };
          render();
        }),
      ran: (command, o) => {
        history.push(
          `• Ran ${command}`,
          ...o
            .trimEnd()
            .split('\n')
            .map((l, k) => `${k === 0 ? '  └ ' : '    '}${l}`),
          '',
        );
        render();
      },
    });
    clearInterval(tick);
    const secs = Math.floor((Date.now() - busy.started) / 1000);
    busy = undefined;
    if (r.status === 'complete') {
      history.push(
        ...r.answer.split('\n').map((l, k) => `${k === 0 ? '•' : ' '} ${l}`),
        `  Worked for ${secs < 1 ? '<1s' : `${secs}s`} • ${new Date().toTimeString().slice(0, 5)}`,
        '',
      );
    } else if (r.status === 'error') {
      history.push(`■ ${r.message}`, '');
      // a plan limit: the real TUI then offers a cheaper model (a blocking dialog) unless hidden
      if (r.nudge && cfg.notice?.hide_rate_limit_model_nudge !== true) {
        dialog = { ...nudgeDialog(), sel: 0 };
        mode = 'dialog';
      }
    } else {
      history.push('■ Conversation interrupted - use /feedback if something went wrong', '');
    }
    render();
  }

  let lastTypedAt = 0;
  let run = 0;
  let burstAt = -Infinity;
  let inPaste = false;
  let pasteBuf = '';

  function insertTyped(ch) {
    const now = Date.now();
    run = now - lastTypedAt <= 8 ? run + 1 : 1;
    lastTypedAt = now;
    if (pasteBurst && run >= 6) burstAt = now;
    composer += ch;
  }

  function onEnter() {
    if (!ready || (pasteBurst && Date.now() - burstAt <= burstWindow)) {
      composer += '\n'; // §5.3 keys before readiness / §8 paste-burst: Enter becomes a newline
      return;
    }
    const raw = composer;
    composer = '';
    submit(raw);
  }

  function onKey(key) {
    if (mode === 'signin') {
      if (key === '\x03' || key === '\x04') exitTui(0);
      return;
    }
    if (mode === 'dialog') {
      if (key === '\x1b[B' || key === '\x1bOB' || key === 'j') dialog.sel = Math.min(dialog.options.length - 1, dialog.sel + 1);
      else if (key === '\x1b[A' || key === '\x1bOA' || key === 'k') dialog.sel = Math.max(0, dialog.sel - 1);
      else if (key === '\r') return chooseDialog(dialog.sel);
      else if (/^[1-9]$/.test(key) && Number(key) <= dialog.options.length) return chooseDialog(Number(key) - 1);
      else if (key === '\x1b') return chooseDialog(dialog.kind === 'update' ? 1 : dialog.options.length - 1);
      else if (key === '\x03') exitTui(0);
      render();
      return;
    }
    if (mode !== 'main') return;
    if (approval) {
      const a = approval;
      if (key === 'y' || key === '\r' || key === 'p' || key === '1' || key === '2') {
        approval = undefined;
        history.push(`✔ You approved codex to run ${a.command} this time`);
        a.resolve(true);
      } else if (key === '\x1b' || key === 'n' || key === '3' || key === '\x03') {
        approval = undefined;
        history.push(`✗ You canceled the request to run ${a.command}`);
        busy?.abort.abort();
        a.resolve(false);
      }
      render();
      return;
    }
    switch (key) {
      case '\r':
        onEnter();
        break;
      case '\n':
        composer += '\n';
        break;
      case '\x7f':
      case '\b':
        composer = [...composer].slice(0, -1).join('');
        break;
      case '\x03':
        if (busy) busy.abort.abort();
        else if (composer !== '') composer = '';
        else return void quit();
        break;
      case '\x04':
        if (!busy && composer === '') return void quit();
        break;
      case '\x1b':
        if (busy) busy.abort.abort();
        break;
      default:
        if (key.startsWith('\x1b')) break; // arrows etc.
        if (key === '?' && composer === '') {
          history.push('  (shortcuts overlay)');
          break;
        }
        insertTyped(key);
    }
    render();
  }

  function onData(buf) {
    const s = buf.toString('utf8');
    let k = 0;
    while (k < s.length) {
      if (inPaste) {
        const end = s.indexOf('\x1b[201~', k);
        if (end < 0) {
          pasteBuf += s.slice(k);
          return;
        }
        pasteBuf += s.slice(k, end);
        k = end + 6;
        inPaste = false;
        if (mode === 'main' && !approval) composer += pasteBuf.replaceAll('\r', '\n');
        pasteBuf = '';
        render();
        continue;
      }
      if (s.startsWith('\x1b[200~', k)) {
        inPaste = true;
        k += 6;
        continue;
      }
      if (s[k] === '\x1b') {
        const m = /^\x1b(\[[0-9;]*[A-Za-z~]|O[A-Za-z])/.exec(s.slice(k));
        if (m) {
          onKey(m[0]);
          k += m[0].length;
        } else {
          onKey('\x1b');
          k++;
        }
        continue;
      }
      const cp = s.codePointAt(k);
      const ch = String.fromCodePoint(cp);
      k += ch.length;
      onKey(ch);
    }
  }

  sess.onTitle = () => render();
  if (process.stdin.isTTY) process.stdin.setRawMode(true);
  out.write('\x1b[?1049h\x1b[?2004h');
  process.stdin.on('data', onData);
  process.stdin.on('end', () => quit());
  process.on('SIGHUP', () => process.exit(129));
  process.on('SIGTERM', () => process.exit(143));
  out.on('resize', render);
  setTimeout(nextDialog, 50);
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const home = process.env.CODEX_HOME ? resolve(process.env.CODEX_HOME) : join(homedir(), '.codex');
  if (process.env.CODEX_HOME && (!existsSync(home) || !statSync(home).isDirectory())) {
    process.stderr.write(`Error: CODEX_HOME points to ${q(home)}, but that path does not exist\n`);
    process.exit(1);
  }
  let cwd = args.cd ? resolve(args.cd) : process.cwd();
  try {
    cwd = realpathSync(cwd);
  } catch {}
  const { cfg, fileCfg, flagHooks } = loadConfig(home, args);
  const ctx = { home, cwd, cfg, fileCfg, flagHooks, args };
  if (args.sub === 'exec') return runExec(ctx);
  return runTui(ctx);
}

main().catch((err) => {
  try {
    writeSync(2, `Error: ${err?.stack ?? err}\n`);
  } catch {}
  process.exit(1);
});
