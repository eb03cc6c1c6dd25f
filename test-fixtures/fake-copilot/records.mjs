// The records the fake `copilot` writes, as GitHub Copilot CLI 1.0.102 does (facts:
// test-fixtures/real/COPILOT-FACTS.md §3, §4): the session events file
// `$COPILOT_HOME|~/.copilot/session-state/<id>/events.jsonl` and the hooks of `--plugin-dir <dir>`
// (`hooks/hooks.json`, each command run with the payload on stdin).
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The state directory: `COPILOT_HOME`, else `~/.copilot`. */
export function copilotHome(env = process.env) {
  return env.COPILOT_HOME || join(env.HOME || '/', '.copilot');
}

/** An append-only events file for one session. */
export function openEvents(sessionId, env = process.env) {
  const dir = join(copilotHome(env), 'session-state', sessionId);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, 'events.jsonl');
  let parentId = null;
  return {
    path,
    /** Append one event `{type, data, id, timestamp, parentId}`. */
    add(type, data) {
      const id = randomUUID();
      appendFileSync(path, `${JSON.stringify({ type, data, id, timestamp: new Date().toISOString(), parentId })}\n`, { mode: 0o600 });
      parentId = id;
    },
  };
}

/** The hooks of a plugin dir (`hooks/hooks.json`), or none. */
export function loadHooks(pluginDir) {
  const file = pluginDir ? join(pluginDir, 'hooks', 'hooks.json') : undefined;
  if (!file || !existsSync(file)) return {};
  return JSON.parse(readFileSync(file, 'utf8')).hooks ?? {};
}

/** Run every command of one hook event with `payload` on stdin, one after another (Copilot waits for each). */
export function runHook(hooks, event, payload, cwd) {
  for (const hook of hooks[event] ?? []) {
    if (hook.type !== 'command' || typeof hook.bash !== 'string') continue;
    spawnSync('sh', ['-c', hook.bash], { input: JSON.stringify(payload), cwd, stdio: ['pipe', 'ignore', 'ignore'], timeout: (hook.timeoutSec ?? 30) * 1000 });
  }
}
