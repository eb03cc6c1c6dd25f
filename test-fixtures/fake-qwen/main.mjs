#!/usr/bin/env node
// A fake of Qwen Code 0.15.10 (`qwen`) for umbel's tests, writing the records the real one writes
// (test-fixtures/real/QWEN-FACTS.md): hooks of every settings layer, the chat recording, and a TUI
// shaped like the real one (banner with the auth label, history, the input box between two rules,
// the shell approval box). It calls the OpenAI chat-completions mock (test-fixtures/mock-servers/
// openai-chat.mjs) at OPENAI_BASE_URL with OPENAI_API_KEY; replies follow test-fixtures/lib/directives.mjs.
// Without a key (and no security.auth.selectedType) it shows the auth dialog and never gets ready.
// 429 and 5xx are retried every FAKE_QWEN_RETRY_MS (default 1500) for ever, one api_error record
// each, as the real one does for minutes; Escape aborts. Knob: FAKE_QWEN_SIGNED_OUT=1.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Chat, runHooks, settingsLayers, VERSION } from './records.mjs';
import { callModel, SHELL_TOOL } from './model.mjs';
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

const STOP_FAILURE = { 400: 'invalid_request', 401: 'authentication_failed', 403: 'authentication_failed', 429: 'rate_limit' };

async function turn(prompt) {
  chat.user(prompt);
  await hook('UserPromptSubmit', { prompt });
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
    const ok = await approve(call);
    if (ok)
      await hook('PreToolUse', {
        permission_mode: args.approvalMode,
        tool_name: SHELL_TOOL,
        tool_input: call.args,
        tool_use_id: `toolu_${Date.now()}_${call.id}`,
      });
    const output = ok ? await runShell(call.args.command ?? '') : '[Operation Cancelled] Reason: User did not allow tool call';
    screen.say(`${ok ? '✓' : '-'}  Shell ${call.args.command}`);
    chat.toolResult(call, output);
    if (!ok) return;
    history.push({ role: 'tool', tool_call_id: call.id, content: output });
    await hook('UserPromptSubmit', { prompt: '' });
  }
}

async function submit(text) {
  if (/^\/[A-Za-z]/.test(text)) return screen.say(`(fake) ran the command ${text.split(/\s/)[0]}`);
  screen.say(`> ${text}`);
  screen.busy(true);
  try {
    await turn(text);
  } finally {
    screen.busy(false);
    await hook('Notification', { message: 'Qwen Code is waiting for your input', notification_type: 'idle_prompt', title: 'Waiting for input' });
  }
}

screen.start({ onSubmit: submit, onCancel: () => abort?.abort(), onExit: () => process.exit(0) });
if (signedIn) {
  await hook('SessionStart', { permission_mode: args.approvalMode, source: 'startup', model });
  screen.ready();
}
