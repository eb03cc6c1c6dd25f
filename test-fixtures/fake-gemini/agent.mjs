// One agent turn of the fake `gemini`, shared by the TUI and `-p` (reference gemini.md §4, §5, §7):
// BeforeAgent → user record → model steps (tool calls with BeforeTool / Notification(ToolPermission) /
// approval / AfterTool) → AfterAgent with prompt_response. Cancel, rejection and API errors rewrite
// the chat and drop the prompt; a rejection fires no AfterAgent.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { runHooks } from './hooks.mjs';
import { modelStep } from './model.mjs';

export const NO_RESPONSE = '[no response text]';

/** Commands that run without asking in the default mode (plain read-only commands, no redirection). */
const READ_ONLY = new Set(['echo', 'ls', 'cat', 'pwd', 'true', 'date', 'whoami', 'head', 'tail', 'wc', 'grep', 'printf']);

export function rootCommand(command) {
  return command.trim().split(/\s+/)[0] ?? '';
}

export function needsApproval(command, session) {
  if (session.approvalMode === 'yolo') return false;
  const root = rootCommand(command);
  if (session.allowedRoots.has(root)) return false;
  if (/[><|;&`$]/.test(command)) return true;
  return !READ_ONLY.has(root);
}

function runShell(command, cwd) {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', (e) => resolve({ out: String(e.message), code: 127, pid: child.pid }));
    child.on('close', (code) => resolve({ out: out.replace(/\n$/, ''), code, pid: child.pid }));
  });
}

/**
 * Run one turn.
 * @param {object} s  the session: {chat, settings, cwd, sessionId, model, approvalMode, allowedRoots,
 *                    contents, env, headless, firstTurn}
 * @param {{parts: object[], display?: object[], hookPrompt: string, signal: AbortSignal,
 *          ask?: (command: string) => Promise<'once'|'session'|'reject'>, onActivity?: (text: string) => void}} t
 * @returns {Promise<{status: 'completed'|'cancelled'|'rejected'|'error', response: string, error?: {status:number, body:string}}>}
 */
export async function runTurn(s, t) {
  const ctx = { sessionId: s.sessionId, transcriptPath: s.chat.path, cwd: s.cwd, onRun: (name) => t.onActivity?.(`Executing Hooks: ${name}`) };
  await runHooks(s.settings, 'BeforeAgent', { prompt: t.hookPrompt }, ctx);
  s.telemetry?.('gemini_cli.user_prompt', { prompt_length: t.hookPrompt.length });
  const promptMsg = s.chat.user(t.parts, t.display);
  const snapshot = s.contents.length;
  const userParts = s.contents.length === 0 ? [{ text: s.chat.messages[0].content[0].text }, ...t.parts] : t.parts;
  s.contents.push({ role: 'user', parts: userParts });
  const texts = [];
  const stop = async (response) => {
    await runHooks(s.settings, 'AfterAgent', { prompt: t.hookPrompt, prompt_response: response, stop_hook_active: false }, ctx);
  };
  const maxAttempts = Number(s.settings?.general?.maxAttempts ?? 10);
  for (;;) {
    t.onActivity?.('Thinking...');
    await runHooks(s.settings, 'BeforeModel', { llm_request: { model: s.model, messages: [] } }, ctx);
    const r = await modelStep({ contents: s.contents, model: s.model, env: s.env, signal: t.signal, maxAttempts, telemetry: s.telemetry });
    if (r.kind === 'aborted' || t.signal.aborted) {
      s.contents.length = snapshot;
      s.chat.info('Request cancelled.');
      s.chat.rewriteDropping(promptMsg);
      await stop(NO_RESPONSE);
      return { status: 'cancelled', response: NO_RESPONSE };
    }
    // A 429 the CLI deems retryable: the real TUI keeps retrying, with no error shown, until Esc.
    if (r.kind === 'error' && r.quota === 'retryable' && !s.headless) continue;
    // A used-up daily quota: the TUI asks "Usage limit reached for <model>" (1. Keep trying, 2. Stop).
    if (r.kind === 'error' && r.quota === 'terminal' && !s.headless && t.quotaDialog && (await t.quotaDialog(s.model)) === 'keep') continue;
    if (r.kind === 'error') {
      s.contents.length = snapshot;
      s.chat.rewriteDropping(promptMsg);
      s.chat.error(`[API Error: ${r.display ?? r.body}]${r.hint ? `\n${r.hint}` : ''}`);
      s.chat.info('This request failed. Press F12 for diagnostics, or run /settings and change "Error Verbosity" to full for full details.');
      await stop(NO_RESPONSE);
      return { status: 'error', response: NO_RESPONSE, error: { status: r.status, body: r.body, message: r.message, display: r.display, hint: r.hint } };
    }
    if (r.kind === 'text') {
      s.chat.gemini(r.text, s.model);
      if (r.text !== '') texts.push(r.text);
      s.contents.push({ role: 'model', parts: [{ text: r.text }] });
      const response = texts.join('\n');
      await stop(response);
      return { status: 'completed', response };
    }
    // tool call
    const call = r.call;
    const command = String(call.args?.command ?? '');
    const callId = `${call.name}__${call.name}_${Date.now()}_0`;
    const step = s.chat.gemini(r.text ?? '', s.model);
    if (r.text) texts.push(r.text);
    const input = { command, description: call.args?.description ?? '' };
    await runHooks(s.settings, 'BeforeTool', { tool_name: call.name, tool_input: input }, ctx);
    let output;
    let display;
    if (call.name !== 'run_shell_command' || (s.headless && s.approvalMode !== 'yolo')) {
      output = `Tool "${call.name}" not found. Did you mean one of: "read_file", "glob"?`;
      display = output;
    } else {
      if (needsApproval(command, s) && !s.headless) {
        await runHooks(
          s.settings,
          'Notification',
          {
            notification_type: 'ToolPermission',
            message: 'Tool Confirm Shell Command requires execution',
            details: { type: 'exec', title: 'Confirm Shell Command', command, rootCommand: rootCommand(command) },
          },
          ctx,
        );
        const decision = t.signal.aborted ? 'reject' : await t.ask(command);
        if (decision === 'reject') {
          s.contents.length = snapshot;
          s.chat.info('Request cancelled.');
          s.chat.rewriteDropping(promptMsg, { regenerate: true });
          return { status: 'rejected', response: '' };
        }
        if (decision === 'session') s.allowedRoots.add(rootCommand(command));
      }
      t.onActivity?.(`Shell ${command}`);
      const res = await runShell(command, s.cwd);
      output = `<untrusted_context>\nOutput: ${res.out || '(empty)'}${res.code ? `\nExit Code: ${res.code}` : ''}\nProcess Group PGID: ${res.pid}\n</untrusted_context>`;
      display = res.out;
    }
    await runHooks(s.settings, 'AfterTool', { tool_name: call.name, tool_input: input, tool_response: { llmContent: output, returnDisplay: display } }, ctx);
    const fr = { functionResponse: { id: callId, name: call.name, response: { output } } };
    s.chat.put({
      ...step,
      toolCalls: [
        {
          id: callId,
          name: call.name,
          args: call.args,
          result: [fr],
          status: 'success',
          timestamp: new Date().toISOString(),
          resultDisplay: display,
          description: input.description,
          displayName: 'Shell',
          renderOutputAsMarkdown: false,
        },
      ],
    });
    s.chat.put({ id: randomUUID(), timestamp: new Date().toISOString(), type: 'user', content: [fr] });
    s.contents.push({ role: 'model', parts: [{ functionCall: call, thoughtSignature: 'skip_thought_signature_validator' }] });
    s.contents.push({ role: 'user', parts: [fr] });
  }
}
