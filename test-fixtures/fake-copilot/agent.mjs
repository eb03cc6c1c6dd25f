// One turn of the fake `copilot`: the reply comes from test-fixtures/lib/directives.mjs `plan()`
// (ECHO, TOOL, FAIL, DELAY, LONG), computed here, and is written as Copilot 1.0.102 writes it
// (COPILOT-FACTS.md §3): user.message → assistant.turn_start → session.usage_record →
// assistant.message → assistant.turn_end (→ agentStop hook); a tool call adds tool.execution_* and a
// second model call; a failure ends with session.error after the last turn_end; an abort with `abort`.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { plan, toolResultReply } from '../lib/directives.mjs';

/** Commands Copilot runs without asking (read-only). */
const READ_ONLY = new Set(['echo', 'ls', 'cat', 'pwd', 'printf', 'true', 'date', 'head', 'tail', 'wc']);
/** Tries of one failing model call: Copilot gives up on a 401 after 3, on anything else after 5. */
const triesOf = (status) => (status === 401 ? 3 : 5);
const ERROR_TYPES = { 401: 'authentication', 403: 'authentication', 429: 'rate_limit' };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The session: its records, hooks and options; `ask(command)` resolves to true (approved) or false (Escape). */
export function createAgent({ events, runHook, sessionId, cwd, model, allowAll, allowTools, ask }) {
  const base = () => ({ sessionId, timestamp: Date.now(), cwd });
  let shells = 0;
  let started = false;

  function usage(outputTokens) {
    events.add('session.usage_record', {
      usage: {
        model,
        modelDisplayName: model,
        inputTokens: 12000,
        outputTokens,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        cost: 0,
        isByok: !!process.env.COPILOT_PROVIDER_BASE_URL,
      },
    });
  }
  function message(userId, content, toolRequests = []) {
    events.add('assistant.message', { messageId: randomUUID(), originatingMessageId: userId, model, content, toolRequests });
  }
  function fail(p, turnId) {
    events.add('assistant.turn_end', { turnId });
    const message =
      p.status === 401
        ? `Authentication failed with provider (HTTP 401).\n  ${p.message}`
        : `Failed to get response from the AI model; retried ${triesOf(p.status)} times. Last error: ${p.status} ${p.message}`;
    events.add('session.error', { errorType: ERROR_TYPES[p.status] ?? 'query', message, statusCode: p.status });
    return { error: message };
  }

  /** The tool step: ask when Copilot would, run it, record it; undefined when the user stopped the turn. */
  async function tool(command, userId, turnId) {
    const callId = `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
    const args = { command, description: `Run ${command}` };
    message(userId, '', [{ toolCallId: callId, name: 'bash', arguments: args, type: 'function' }]);
    runHook('preToolUse', { ...base(), toolName: 'bash', toolArgs: args });
    events.add('tool.execution_start', { toolCallId: callId, toolName: 'bash', arguments: args, turnId });
    const first = command.split(/\s+/)[0] ?? '';
    if (!allowAll && !READ_ONLY.has(first) && !allowTools.some((t) => t === 'shell' || t === `shell(${first})`)) {
      runHook('permissionRequest', { hookName: 'permissionRequest', ...base(), toolName: 'bash', toolInput: { command }, permissionSuggestions: [] });
      const requestId = randomUUID();
      events.add('permission.requested', { requestId, permissionRequest: { kind: 'shell', toolCallId: callId, fullCommandText: command } });
      if (!(await ask(command))) {
        events.add('assistant.turn_end', { turnId });
        events.add('abort', { reason: 'user_initiated' });
        events.add('permission.completed', { requestId, toolCallId: callId, result: { kind: 'cancelled', reason: 'Session aborted' } });
        return undefined;
      }
      events.add('permission.completed', { requestId, toolCallId: callId, result: { kind: 'approved' }, decisionSource: 'human_response' });
    }
    let out;
    let code = 0;
    try {
      out = execFileSync('sh', ['-c', command], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      out = `${e.stdout ?? ''}${e.stderr ?? ''}`;
      code = e.status ?? 1;
    }
    const content = `${out}\n<shellId: ${shells++} completed with exit code ${code}>`;
    events.add('tool.execution_complete', { toolCallId: callId, turnId, success: code === 0, result: { content } });
    runHook('postToolUse', {
      ...base(),
      toolName: 'bash',
      toolArgs: args,
      toolResult: { resultType: code === 0 ? 'success' : 'failure', textResultForLlm: content },
    });
    events.add('assistant.turn_end', { turnId });
    return content;
  }

  /** Run one prompt to its end: {answer} | {error} | {aborted}. */
  async function turn(prompt) {
    if (!started) runHook('sessionStart', { ...base(), source: 'new', initialPrompt: prompt });
    started = true;
    runHook('userPromptSubmitted', { ...base(), prompt });
    const userId = randomUUID();
    events.add('user.message', {
      content: prompt,
      transformedContent: `<current_datetime>${new Date().toISOString()}</current_datetime>\n\n${prompt}`,
      messageId: userId,
      turnId: '0',
    });
    let p = plan(prompt);
    events.add('assistant.turn_start', { turnId: '0' });
    while (p.kind === 'error') {
      const failing = Math.min(p.times, triesOf(p.status));
      for (let i = 0; i < failing; i += 1)
        runHook('errorOccurred', { ...base(), errorContext: 'model_call', recoverable: true, error: { message: p.message, name: 'Error' } });
      if (p.times >= triesOf(p.status)) return fail(p, '0');
      p = plan(p.rest);
    }
    if (p.delayMs) await sleep(p.delayMs);
    usage(20);
    let answer = p.kind === 'text' ? p.text : undefined;
    if (p.kind === 'tool') {
      const output = await tool(p.command, userId, '0');
      if (output === undefined) return { aborted: true };
      events.add('assistant.turn_start', { turnId: '1' });
      usage(10);
      answer = toolResultReply(output);
    }
    message(userId, answer);
    events.add('assistant.turn_end', { turnId: p.kind === 'tool' ? '1' : '0' });
    runHook('agentStop', { ...base(), transcriptPath: events.path, stopReason: 'end_turn', stop_hook_active: false });
    return { answer };
  }

  return { turn };
}
