// Hooks of echo-agent, read from the settings file given with --settings:
//   {"hooks": {"SessionStart": ["cmd", …], "UserPromptSubmit": […], "Stop": […], "StopFailure": […],
//              "PermissionRequest": […], "TurnInterrupted": […], "SessionEnd": […]}}
// Each command runs with `/bin/sh -c`, the event's JSON payload on its stdin, one after the other;
// echo-agent waits for it (at most 10 s) before it goes on, as the real CLIs do.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

export const HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'Stop', 'StopFailure', 'PermissionRequest', 'TurnInterrupted', 'SessionEnd'];

/** The hooks of a settings file; throws with a readable message when it cannot be used. */
export function readHooks(path) {
  if (!path) return {};
  let settings;
  try {
    settings = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read settings ${path}: ${error.message}`);
  }
  const hooks = settings?.hooks ?? {};
  for (const [event, commands] of Object.entries(hooks)) {
    if (!HOOK_EVENTS.includes(event)) throw new Error(`settings ${path}: unknown hook event '${event}' (known: ${HOOK_EVENTS.join(', ')})`);
    if (![commands].flat().every((c) => typeof c === 'string')) throw new Error(`settings ${path}: hooks.${event} must be a command or a list of commands`);
  }
  return hooks;
}

function runOne(command, payload) {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], { stdio: ['pipe', 'ignore', 'ignore'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    child.on('error', done);
    child.on('close', done);
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

/** Run the commands of one event, in order. */
export async function fireHook(hooks, event, payload) {
  for (const command of [hooks[event] ?? []].flat()) await runOne(command, { hook_event_name: event, ...payload });
}
