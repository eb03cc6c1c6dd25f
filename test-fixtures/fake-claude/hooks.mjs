// Hook runner. Reference: claude-code.md §3. Each matching `{"type":"command"}` hook runs with
// `sh -c <command>`, the payload JSON on stdin, cwd = the worker's cwd, env = the process env plus
// the markers the real CLI adds (CLAUDECODE, CLAUDE_CODE_CHILD_SESSION, CLAUDE_PROJECT_DIR, …).
// The caller awaits the hooks of one event before continuing, like the real one.
import { spawn } from 'node:child_process';

/** Events whose matcher applies to a field of the payload, and which field. */
const MATCH_FIELD = {
  PreToolUse: 'tool_name',
  PostToolUse: 'tool_name',
  PostToolUseFailure: 'tool_name',
  PermissionRequest: 'tool_name',
  PermissionDenied: 'tool_name',
  Notification: 'notification_type',
  SessionStart: 'source',
  SessionEnd: 'reason',
  StopFailure: 'error',
  PreCompact: 'trigger',
  PostCompact: 'trigger',
};

/**
 * True when `matcher` selects `value`: missing, `*` or `""` match all; a plain name or `A|B` list
 * matches exactly; anything else is a regular expression.
 */
export function matcherMatches(matcher, value) {
  if (matcher === undefined || matcher === null || matcher === '' || matcher === '*') return true;
  const m = String(matcher);
  if (/^[A-Za-z0-9_|-]+$/.test(m)) return m.split('|').includes(String(value ?? ''));
  try {
    return new RegExp(m).test(String(value ?? ''));
  } catch {
    return false;
  }
}

/** Run one command hook; resolves with its exit code, stdout and stderr. */
function runCommand(command, payload, cwd, env, timeoutMs) {
  return new Promise((resolvePromise) => {
    const child = spawn('sh', ['-c', command], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.on('error', () => {});
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', () => {
      clearTimeout(timer);
      resolvePromise({ code: 127, stdout, stderr });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code: code ?? 1, stdout, stderr });
    });
    child.stdin.end(`${JSON.stringify(payload)}\n`);
  });
}

/** A comma-separated knob as a list (empty when unset). */
function listKnob(value) {
  return String(value ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/** Hooks from merged settings. */
export class HookRunner {
  /**
   * @param {{hooks: Record<string, any[]>, cwd: string, env: NodeJS.ProcessEnv, markers: () => Record<string,string>}} options
   */
  constructor({ hooks, cwd, env, markers }) {
    this.hooks = hooks;
    this.cwd = cwd;
    this.env = env;
    this.markers = markers;
  }

  /** True when at least one hook is configured for `event` (any matcher). */
  has(event) {
    return (this.hooks[event] ?? []).some((g) => Array.isArray(g?.hooks) && g.hooks.length > 0);
  }

  /**
   * Run every hook configured for `payload.hook_event_name` whose matcher fits; wait for all.
   * @param {Record<string, unknown>} payload
   * @param {Record<string,string>} [extraEnv]
   * @returns {Promise<{command:string, code:number, stdout:string, stderr:string, durationMs:number}[]>}
   */
  async fire(payload, extraEnv = {}) {
    const event = String(payload.hook_event_name);
    // Knobs for `umbel doctor`'s tests: hooks that never fire, payload fields that are missing.
    if (listKnob(this.env.FAKE_CLAUDE_SKIP_HOOKS).includes(event)) return [];
    const drop = listKnob(this.env.FAKE_CLAUDE_DROP_PAYLOAD_FIELDS);
    if (drop.length > 0) payload = Object.fromEntries(Object.entries(payload).filter(([key]) => !drop.includes(key)));
    const field = MATCH_FIELD[event];
    const commands = [];
    for (const group of this.hooks[event] ?? []) {
      if (field && !matcherMatches(group?.matcher, payload[field])) continue;
      for (const h of group?.hooks ?? []) {
        if (h?.type === 'command' && typeof h.command === 'string') commands.push(h);
      }
    }
    if (commands.length === 0) return [];
    const env = { ...this.env, ...this.markers(), CLAUDE_PROJECT_DIR: this.cwd, ...extraEnv };
    return Promise.all(
      commands.map(async (h) => {
        const started = Date.now();
        const timeoutMs = (Number(h.timeout) > 0 ? Number(h.timeout) : 600) * 1000;
        const r = await runCommand(h.command, payload, this.cwd, env, timeoutMs);
        return { command: h.command, ...r, durationMs: Date.now() - started };
      }),
    );
  }
}
