// The statusLine of the fake `claude`: settings `statusLine: {type: "command", command, refreshInterval?}`
// (the highest-precedence settings source wins, so a --settings one replaces the user's own, as in the
// real 2.1.328). The command runs with `sh -c`, the session's JSON on stdin (the shape recorded from
// the real one: test-fixtures/real/recorded/account/claude-statusline.json), at startup, after every
// turn and on a permission-mode change (plus every refreshInterval seconds when set); its output lines
// show above the footer. `rate_limits` is there only for a subscription whose server reported plan usage.
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { displayName, rateLimitsOf } from './account.mjs';
import { encodeCwd, VERSION } from './config.mjs';

/** The JSON the statusLine command gets on stdin (field order as the real one prints it). */
export function statusLineInput(ctx, { promptId, startedAt }) {
  const u = ctx.lastUsage;
  const inputTokens = u ? u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) : 0;
  const size = 1_000_000;
  const used = u ? Math.round((inputTokens / size) * 100) || 1 : null;
  const rateLimits = rateLimitsOf(ctx.world ?? {}, ctx.planUsage);
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return {
    session_id: ctx.sessionId,
    transcript_path: ctx.transcript.path,
    cwd: ctx.cwd,
    scratchpad_dir: join(ctx.env.TMPDIR || tmpdir(), `claude-${uid}`, encodeCwd(ctx.cwd), ctx.sessionId, 'scratchpad'),
    ...(promptId ? { prompt_id: promptId } : {}),
    effort: { level: 'medium' },
    model: { id: ctx.model, display_name: displayName(ctx.model) },
    workspace: { current_dir: ctx.cwd, project_dir: ctx.cwd, added_dirs: [] },
    version: VERSION,
    output_style: { name: 'default' },
    cost: {
      total_cost_usd: 0,
      total_duration_ms: Date.now() - startedAt,
      total_api_duration_ms: ctx.apiMsTotal ?? 0,
      total_lines_added: 0,
      total_lines_removed: 0,
    },
    context_window: {
      total_input_tokens: inputTokens,
      total_output_tokens: u?.output_tokens ?? 0,
      context_window_size: size,
      current_usage: u ? { input_tokens: u.input_tokens, output_tokens: u.output_tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } : null,
      used_percentage: used,
      remaining_percentage: used === null ? null : 100 - used,
    },
    exceeds_200k_tokens: false,
    fast_mode: false,
    thinking: { enabled: true },
    ...(rateLimits ? { rate_limits: rateLimits } : {}),
  };
}

/** Run one statusLine command; resolves with its stdout (empty on failure or after 5 s). */
function runStatusCommand(command, input, cwd, env) {
  return new Promise((resolvePromise) => {
    const child = spawn('sh', ['-c', command], { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stdin.on('error', () => {});
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.on('error', () => {
      clearTimeout(timer);
      resolvePromise('');
    });
    child.on('close', () => {
      clearTimeout(timer);
      resolvePromise(out);
    });
    child.stdin.end(JSON.stringify(input));
  });
}

/** The statusLine of one TUI session: `refresh(promptId?)` runs the command; `lines` is what it printed. */
export class StatusLine {
  /** @param {any} ctx session context; @param {() => void} onChange called when the shown lines change */
  constructor(ctx, onChange) {
    this.ctx = ctx;
    this.onChange = onChange;
    this.config = ctx.settings.disableAllHooks ? undefined : ctx.settings.statusLine;
    this.lines = [];
    this.startedAt = Date.now();
    this.running = Promise.resolve();
    const every = Number(this.config?.refreshInterval);
    if (this.config && every > 0) this.timer = setInterval(() => this.refresh(this.promptId), Math.max(1, every) * 1000);
  }

  /** Run the command once more (calls are serialised, like the real one's). */
  refresh(promptId) {
    if (!this.config || this.config.type !== 'command') return this.running;
    if (promptId) this.promptId = promptId;
    this.running = this.running.then(async () => {
      const input = statusLineInput(this.ctx, { promptId: this.promptId, startedAt: this.startedAt });
      const out = await runStatusCommand(this.config.command, input, this.ctx.cwd, this.ctx.env);
      this.lines = out
        .replace(/\n+$/, '')
        .split('\n')
        .filter((l) => l !== '');
      this.onChange();
    });
    return this.running;
  }

  stop() {
    clearInterval(this.timer);
  }
}
