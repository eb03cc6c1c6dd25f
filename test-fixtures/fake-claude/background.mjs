// Background shells of the fake claude, as the real 2.1.332 reports them (test-fixtures/real/REVIVE-FACTS.md §4):
// a Bash call with `run_in_background: true` starts the command and answers at once with its task
// id; every Stop payload lists the tasks still running in `background_tasks`
// ({id, type: "shell", status: "running", description, command}). When one ends the real CLI starts a
// turn of its own with a <task-notification> prompt (BACKGROUND-FACTS.md §2); so does the fake's TUI
// (`ctx.onBackgroundDone`, set by tui.mjs; print mode has none).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/** The real CLI's task ids: 9 lowercase letters and digits. */
const taskId = () => [...randomBytes(9)].map((b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');

/**
 * Start `command` in the background for this session; its task id.
 * @param {any} ctx the session (its `backgroundTasks` map is made on first use)
 */
export function startBackgroundShell(ctx, command, description, env) {
  const id = taskId();
  const task = { id, type: 'shell', status: 'running', description, command };
  ctx.backgroundTasks ??= new Map();
  ctx.backgroundTasks.set(id, task);
  const child = spawn('sh', ['-c', command], { cwd: ctx.cwd, env, stdio: 'ignore', detached: true });
  const done = (status) => () => {
    if (!ctx.backgroundTasks.has(id)) return;
    task.status = status;
    ctx.backgroundTasks.delete(id);
    ctx.onBackgroundDone?.(task);
  };
  child.on('exit', (code) => done(code === 0 ? 'completed' : 'failed')());
  child.on('error', done('failed'));
  child.unref();
  return id;
}

/** The tool result the model gets for a background start (the real text's first sentence). */
export const backgroundStartedText = (id) => `Command running in background with ID: ${id}.`;

/** The Stop payload's `background_tasks`: the tasks still running. */
export function runningBackground(ctx) {
  return [...(ctx.backgroundTasks?.values() ?? [])].map((task) => ({ ...task }));
}

/** The prompt of the turn the real CLI starts by itself when a background shell ends (2.1.332's shape). */
export function taskNotificationPrompt(task) {
  const status = task.status === 'completed' ? 'completed' : 'failed';
  return [
    '<task-notification>',
    `<task-id>${task.id}</task-id>`,
    `<status>${status}</status>`,
    `<summary>Background command "${task.description}" ${status}</summary>`,
    '</task-notification>',
  ].join('\n');
}
