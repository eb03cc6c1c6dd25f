// Hooks of the fake `gemini` (reference gemini.md §4): `settings.hooks.<Event>[{matcher, hooks:[{type:
// "command", command, name, timeout}]}]`, run through a shell with cwd = project dir, payload on stdin
// as one JSON line, full env plus GEMINI_PROJECT_DIR/GEMINI_CWD/GEMINI_SESSION_ID/CLAUDE_PROJECT_DIR.
// Synchronous: the agent waits for them. Non-JSON stdout is shown to the user.
import { spawn } from 'node:child_process';

/** Run every hook configured for `event`; resolves with the non-JSON outputs. */
export async function runHooks(settings, event, payload, ctx) {
  if (settings?.hooksConfig?.enabled === false) return [];
  const disabled = new Set(settings?.hooksConfig?.disabled ?? []);
  const groups = settings?.hooks?.[event];
  if (!Array.isArray(groups)) return [];
  const full = {
    session_id: ctx.sessionId,
    transcript_path: ctx.transcriptPath,
    cwd: ctx.cwd,
    hook_event_name: event,
    timestamp: new Date().toISOString(),
    ...payload,
  };
  const messages = [];
  for (const group of groups) {
    const matcher = group?.matcher ?? '';
    if (matcher && matcher !== '*' && payload.tool_name !== undefined && !new RegExp(matcher).test(payload.tool_name)) continue;
    for (const hook of group?.hooks ?? []) {
      if (hook?.type !== 'command' || typeof hook.command !== 'string' || disabled.has(hook.name)) continue;
      ctx.onRun?.(hook.name ?? hook.command);
      const out = await runOne(hook, full, ctx);
      const trimmed = out.trim();
      if (trimmed) {
        try {
          JSON.parse(trimmed);
        } catch {
          messages.push(trimmed);
        }
      }
    }
  }
  return messages;
}

function runOne(hook, payload, ctx) {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', hook.command], {
      cwd: ctx.cwd,
      env: {
        ...process.env,
        GEMINI_PROJECT_DIR: ctx.cwd,
        GEMINI_CWD: ctx.cwd,
        GEMINI_SESSION_ID: ctx.sessionId,
        CLAUDE_PROJECT_DIR: ctx.cwd,
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), Number(hook.timeout ?? 60000));
    child.on('error', () => {
      clearTimeout(timer);
      resolve('');
    });
    child.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    child.stdin.on('error', () => {});
    child.stdin.end(`${JSON.stringify(payload)}\n`);
  });
}
