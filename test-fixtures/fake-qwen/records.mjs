// The fake Qwen Code's records, in the real 0.15.10's shapes (test-fixtures/real/QWEN-FACTS.md §5-6):
// the chat recording `<QWEN_HOME or ~/.qwen>/projects/<cwd, / → ->/chats/<session>.jsonl` and the
// hooks of every settings layer (system `QWEN_CODE_SYSTEM_SETTINGS_PATH`, user, workspace),
// concatenated, run one after the other with the payload on stdin.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export const VERSION = '0.15.10';

/** `~/.qwen`, or `QWEN_HOME`. */
export function qwenDir() {
  return process.env.QWEN_HOME || join(process.env.HOME || homedir(), '.qwen');
}

function readJson(path) {
  try {
    return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
  } catch {
    return {};
  }
}

/** The settings layers, lowest first: user, workspace, system. */
export function settingsLayers(cwd) {
  const system = process.env.QWEN_CODE_SYSTEM_SETTINGS_PATH || '/etc/qwen-code/settings.json';
  return [join(qwenDir(), 'settings.json'), join(cwd, '.qwen', 'settings.json'), system].map(readJson);
}

/** The chat recording of one session. */
export class Chat {
  constructor(cwd, sessionId) {
    this.cwd = cwd;
    this.sessionId = sessionId;
    this.path = join(qwenDir(), 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'), 'chats', `${sessionId}.jsonl`);
    this.parent = null;
    this.prompts = 0;
  }

  write(type, fields) {
    mkdirSync(dirname(this.path), { recursive: true });
    const uuid = randomUUID();
    const record = {
      uuid,
      parentUuid: this.parent,
      sessionId: this.sessionId,
      timestamp: new Date().toISOString(),
      type,
      cwd: this.cwd,
      version: VERSION,
      ...fields,
    };
    appendFileSync(this.path, `${JSON.stringify(record)}\n`);
    this.parent = uuid;
  }

  /** A prompt; `subtype: 'notification'` for the CLI's own `<task-notification>` prompt. */
  user(text, extra = {}) {
    this.write('user', { ...extra, message: { role: 'user', parts: [{ text }] } });
    this.promptId = `${this.sessionId}########${this.prompts++}`;
  }

  assistant(parts, model, usage) {
    this.write('assistant', { model, message: { role: 'model', parts }, usageMetadata: usage });
  }

  toolResult(call, output) {
    const functionResponse = { id: call.id, name: call.name, response: { output } };
    this.write('tool_result', { message: { role: 'user', parts: [{ functionResponse }] }, toolCallResult: { callId: call.id, status: 'success' } });
  }

  apiError(model, status, type, message) {
    const uiEvent = {
      'event.name': 'qwen-code.api_error',
      'event.timestamp': new Date().toISOString(),
      model,
      prompt_id: this.promptId,
      auth_type: 'openai',
      error_message: message,
      error_type: type,
      ...(status ? { status_code: status } : {}),
    };
    this.write('system', { subtype: 'ui_telemetry', systemPayload: { uiEvent } });
  }
}

/** Where a background agent of this chat records: `<project dir>/subagents/<session>/agent-<id>.jsonl` (+ `.meta.json`). */
export function agentRecordPath(chat, agentId) {
  return join(dirname(dirname(chat.path)), 'subagents', chat.sessionId, `agent-${agentId}.jsonl`);
}

/** Append one record of a background agent (its prompt or its answer). */
export function recordAgent(path, type, text) {
  mkdirSync(dirname(path), { recursive: true });
  appendFileSync(path, `${JSON.stringify({ uuid: randomUUID(), timestamp: new Date().toISOString(), type, message: { parts: [{ text }] } })}\n`);
}

function runOne(command, input) {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], { stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('error', () => resolve());
    child.on('close', () => resolve());
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}

/** Run every layer's hooks of `event` (after each other), the common fields added. */
export async function runHooks(layers, event, payload, chat) {
  const full = {
    session_id: chat.sessionId,
    transcript_path: chat.path,
    cwd: chat.cwd,
    hook_event_name: event,
    timestamp: new Date().toISOString(),
    ...payload,
  };
  for (const layer of layers) {
    for (const group of layer?.hooks?.[event] ?? []) {
      for (const hook of group?.hooks ?? []) if (hook?.type === 'command' && typeof hook.command === 'string') await runOne(hook.command, JSON.stringify(full));
    }
  }
}
