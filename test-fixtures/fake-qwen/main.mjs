#!/usr/bin/env node
// A fake of Qwen Code 0.15.10 (`qwen`) for umbel's tests, writing the records the real one writes
// (test-fixtures/real/QWEN-FACTS.md): hooks of every settings layer, the chat recording, and a TUI
// shaped like the real one (banner with the auth label, history, the input box between two rules,
// the shell approval box). It calls the OpenAI chat-completions mock (test-fixtures/mock-servers/
// openai-chat.mjs) at OPENAI_BASE_URL with OPENAI_API_KEY; replies follow test-fixtures/lib/directives.mjs.
// Without a key (and no security.auth.selectedType) it shows the auth dialog and never gets ready.
// 429 and 5xx are retried every FAKE_QWEN_RETRY_MS (default 1500) for ever, one api_error record
// each, as the real one does for minutes; Escape aborts. Knob: FAKE_QWEN_SIGNED_OUT=1.
// A prompt submitted while a turn runs is queued (the box empties) and starts, with its
// UserPromptSubmit, once the CLI is idle (several queued ones joined by a blank line, as 0.15.10
// drains them). The `agent` tool runs a subagent against the same mock: in the foreground the turn
// waits for its answer; in the background (`run_in_background`) the tool answers at once, the agent
// records to `<project dir>/subagents/<session>/agent-<id>.jsonl`, and once it ended and the CLI is
// idle the CLI runs a `<task-notification>` turn of its own: a `user` record of subtype
// `notification`, NO UserPromptSubmit, then a bare Stop (BACKGROUND-FACTS.md §4).
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { agentRecordPath, Chat, recordAgent, runHooks, settingsLayers, VERSION } from './records.mjs';
import { AGENT_TOOL, callModel, SHELL_TOOL } from './model.mjs';
import { Screen } from './screen.mjs';

function parseArgs(argv) {
  const o = { approvalMode: 'default' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-m' || a === '--model') o.model = argv[++i];
    else if (a === '--approval-mode') o.approvalMode = argv[++i];
    else if (a === '-y' || a === '--yolo') o.approvalMode = 'yolo';
    else if (a === '--append-system-prompt') o.append = argv[++i];
    else if (a === '-v' || a === '--version') o.version = true;
  }
  return o;
}

const args = parseArgs(process.argv.slice(2));
if (args.version) {
  process.stdout.write(`${VERSION}\n`);
  process.exit(0);
}

const cwd = process.cwd();
const layers = settingsLayers(cwd);
const selected = layers.map((l) => l?.security?.auth?.selectedType).findLast(Boolean);
const signedIn = process.env.FAKE_QWEN_SIGNED_OUT !== '1' && Boolean(process.env.OPENAI_API_KEY || selected);
const model = args.model || process.env.OPENAI_MODEL || 'coder-model';
const chat = new Chat(cwd, randomUUID());
const screen = new Screen({ version: VERSION, auth: signedIn ? 'API Key' : 'Unknown', model, cwd, signIn: !signedIn });
const retryMs = Number(process.env.FAKE_QWEN_RETRY_MS ?? 1500);
const history = [];
let abort;
/** Prompts submitted while a turn ran, and the `<task-notification>` prompts of background agents that ended. */
const queue = [];
const notifications = [];

const hook = (event, payload) => runHooks(layers, event, payload, chat);
const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });

function runShell(command) {
  return new Promise((resolve) => {
    execFile('/bin/bash', ['-c', command], { cwd }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve(`Command: ${command}\nDirectory: (root)\nOutput: ${stdout.trim() || '(empty)'}\nError: ${stderr.trim() || '(none)'}\nExit Code: ${code}`);
    });
  });
}

/** Ask for approval of a shell call (unless yolo, or a read-only `echo`): true when approved. */
async function approve(call) {
  const command = call.args.command ?? '';
  if (args.approvalMode === 'yolo' || /^echo\b/.test(command)) return true;
  await hook('PermissionRequest', { permission_mode: args.approvalMode, tool_name: SHELL_TOOL, tool_input: call.args });
  await hook('Notification', {
    message: `Qwen Code needs your permission to use ${SHELL_TOOL}`,
    notification_type: 'permission_prompt',
    title: 'Permission needed',
  });
  return screen.askPermission(command);
}

/** One model call, retried on 429/5xx until it answers or Escape aborts it: the reply, or {failed} / {aborted}. */
async function callUntilAnswered(messages, signal) {
  for (;;) {
    const r = await callModel({ model, messages, signal, append: args.append });
    if (r.ok) return r;
    chat.apiError(model, r.status, r.type, r.message);
    if (r.aborted) return r;
    if (!(r.status === 429 || r.status >= 500)) return r;
    await sleep(retryMs, signal);
    if (signal.aborted) {
      chat.apiError(model, undefined, 'APIUserAbortError', 'Request was aborted.');
      return { aborted: true };
    }
  }
}

/** The `<task-notification>` prompt of a background agent that ended (the recorded 0.15.10 shape, usage left out). */
function notificationPrompt(id, call, answer, file) {
  return [
    '<task-notification>',
    `<task-id>${id}</task-id>`,
    `<tool-use-id>${call.id}</tool-use-id>`,
    '<status>completed</status>',
    `<summary>Agent "${call.args.description ?? ''}" completed.</summary>`,
    `<result>${answer}</result>`,
    `<output-file>${file}</output-file>`,
    '</task-notification>',
  ].join('\n');
}

/** Run the `agent` tool: the subagent's answer (foreground), or the launch text at once (background). */
async function runAgent(call) {
  const a = call.args;
  const id = `${a.subagent_type ?? 'general-purpose'}-${call.id}`;
  const file = agentRecordPath(chat, id);
  const sub = async () => {
    recordAgent(file, 'user', a.prompt ?? '');
    const r = await callModel({ model, messages: [{ role: 'user', content: a.prompt ?? '' }] });
    const answer = r.ok ? (r.content ?? '') : `[API Error: ${r.message}]`;
    recordAgent(file, 'assistant', answer);
    return answer;
  };
  if (!a.run_in_background) return sub();
  void sub().then((answer) => {
    screen.say(`● Background agent "${a.subagent_type}: ${a.description}" completed.`);
    notifications.push(notificationPrompt(id, call, answer, file));
    next();
  });
  return `Background agent launched successfully.\nagentId: ${id}\noutput_file: ${file}`;
}

/** A tool call of the turn: its output, or undefined when the user did not allow it. */
async function runTool(call) {
  if (call.name === AGENT_TOOL) {
    await hook('PreToolUse', {
      permission_mode: args.approvalMode,
      tool_name: AGENT_TOOL,
      tool_input: call.args,
      tool_use_id: `toolu_${Date.now()}_${call.id}`,
    });
    const output = await runAgent(call);
    screen.say(`✓  Agent ${call.args.description ?? ''}`);
    return output;
  }
  const ok = await approve(call);
  if (ok)
    await hook('PreToolUse', {
      permission_mode: args.approvalMode,
      tool_name: SHELL_TOOL,
      tool_input: call.args,
      tool_use_id: `toolu_${Date.now()}_${call.id}`,
    });
  const output = ok ? await runShell(call.args.command ?? '') : undefined;
  screen.say(`${ok ? '✓' : '-'}  Shell ${call.args.command}`);
  return output;
}

const STOP_FAILURE = { 400: 'invalid_request', 401: 'authentication_failed', 403: 'authentication_failed', 429: 'rate_limit' };

/** One turn; `notification`: the CLI's own `<task-notification>` turn (no UserPromptSubmit). */
async function turn(prompt, notification) {
  chat.user(prompt, notification ? { subtype: 'notification' } : {});
  if (!notification) await hook('UserPromptSubmit', { prompt });
  history.push({ role: 'user', content: prompt });
  abort = new AbortController();
  for (;;) {
    const r = await callUntilAnswered(history, abort.signal);
    if (r.aborted) return screen.say('● Request cancelled.');
    if (!r.ok) {
      const text = `[API Error: ${r.message}]`;
      screen.say(`✕ ${text} (Press Ctrl+Y to retry)`);
      const error = STOP_FAILURE[r.status] ?? (r.status >= 500 ? 'server_error' : 'unknown');
      return hook('StopFailure', { error, error_details: r.message, last_assistant_message: text });
    }
    const { content, call, usage } = r;
    const parts = call ? [{ functionCall: { id: call.id, name: call.name, args: call.args } }] : [{ text: content }];
    chat.assistant(parts, model, usage);
    if (!call) {
      history.push({ role: 'assistant', content });
      screen.say(`✦ ${content}`);
      return hook('Stop', { stop_hook_active: true, last_assistant_message: content });
    }
    history.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } }],
    });
    const output = await runTool(call);
    chat.toolResult(call, output ?? '[Operation Cancelled] Reason: User did not allow tool call');
    if (output === undefined) return;
    history.push({ role: 'tool', tool_call_id: call.id, content: output });
    await hook('UserPromptSubmit', { prompt: '' });
  }
}

async function submit(text, notification = false) {
  if (!notification && /^\/[A-Za-z]/.test(text)) return screen.say(`(fake) ran the command ${text.split(/\s/)[0]}`);
  screen.say(notification ? '✦ (background agent notification)' : `> ${text}`);
  screen.busy(true);
  try {
    await turn(text, notification);
  } finally {
    await hook('Notification', { message: 'Qwen Code is waiting for your input', notification_type: 'idle_prompt', title: 'Waiting for input' });
    screen.busy(false);
    next();
  }
}

/** Once idle: an ended background agent's notification turn first, then the prompts queued meanwhile. */
function next() {
  if (screen.isBusy) return;
  const note = notifications.shift();
  if (note !== undefined) return void submit(note, true);
  if (queue.length === 0) return;
  const text = queue.splice(0).join('\n\n');
  screen.queued = [];
  void submit(text);
}

function enqueue(text) {
  queue.push(text.trim());
  screen.queued = [...queue];
}

screen.start({ onSubmit: submit, onQueue: enqueue, onCancel: () => abort?.abort(), onExit: () => process.exit(0) });
if (signedIn) {
  await hook('SessionStart', { permission_mode: args.approvalMode, source: 'startup', model });
  screen.ready();
}
