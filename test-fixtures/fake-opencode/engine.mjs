// The turn engine of the fake opencode, shared by the TUI and `run`: sessions created at the first
// prompt, the chat.message hook (which may edit the parts), the event sequence of a turn
// (FACTS.md §b, recorded/tui-turns.events.jsonl), the bash tool with permission asks, API errors
// and retries, aborts. Every event goes to the plugins and to `onEvent` (what `run` prints from).
import { spawn } from 'node:child_process';
import { BASH_TOOL, PLAN_REMINDER, SYSTEM_PROMPT, chat, generateTitle } from './model.mjs';
import { newId, newSessionDoc, saveSession } from './store.mjs';

const ZERO_TOKENS = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } };
export const REJECTED = 'The user rejected permission to use this specific tool call.';

/** The bash permission of a config: 'ask' | 'allow' | 'deny' (default allow). */
export function bashPermission(config) {
  const p = config.permission;
  if (typeof p === 'string') return p;
  const b = p?.bash;
  if (typeof b === 'string') return b;
  if (b && typeof b === 'object') return b['*'] ?? 'allow';
  return 'allow';
}

/** Run a shell command like the bash tool: stdout+stderr together, exit code. */
function runBash(command, cwd, env) {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('error', (err) => resolve({ output: String(err.message), exit: 127 }));
    child.on('close', (code) => resolve({ output: out, exit: code ?? 1 }));
  });
}

export class Engine {
  /**
   * @param {{cwd: string, env: object, config: object, worktree: string, model: {providerID: string, modelID: string, provider: object, name: string},
   *   plugins: {emit: Function, trigger: Function}, askPermission?: (req: object) => Promise<string>, onEvent?: (e: object) => void, onChange?: () => void}} o
   */
  constructor(o) {
    Object.assign(this, o);
    this.doc = undefined;
    this.agent = 'build';
    this.busy = false;
    this.retry = undefined;
    this.always = new Set();
    this.abort = undefined;
  }

  async emit(type, properties) {
    const event = { id: newId('evt'), type, properties };
    this.onEvent?.(event);
    this.onChange?.();
    await this.plugins.emit(event);
  }

  save() {
    if (this.doc) {
      this.doc.info.time.updated = Date.now();
      saveSession(this.doc, this.env);
    }
  }

  async part(msg, part) {
    const i = msg.parts.findIndex((p) => p.id === part.id);
    if (i >= 0) msg.parts[i] = part;
    else msg.parts.push(part);
    this.save();
    await this.emit('message.part.updated', { sessionID: this.doc.info.id, part: structuredClone(part), time: Date.now() });
  }

  async ensureSession() {
    if (this.doc) return false;
    this.doc = newSessionDoc({ directory: this.cwd, worktree: this.worktree, model: this.model, agent: this.agent });
    this.save();
    await this.emit('session.created', { sessionID: this.doc.info.id, info: structuredClone(this.doc.info) });
    return true;
  }

  /** Submit one prompt and run the turn to its end. Resolves {error?, aborted?}. */
  async submit(text) {
    if (this.busy) throw new Error('busy');
    this.busy = true;
    this.abort = new AbortController();
    try {
      const first = await this.ensureSession();
      const sid = this.doc.info.id;
      const model = { providerID: this.model.providerID, modelID: this.model.modelID };
      const info = { id: newId('msg'), role: 'user', sessionID: sid, time: { created: Date.now() }, agent: this.agent, model };
      const parts = [{ type: 'text', text, messageID: info.id, sessionID: sid, id: newId('prt') }];
      await this.plugins.trigger('chat.message', { sessionID: sid, agent: this.agent, model }, { message: info, parts });
      const user = { info, parts };
      this.doc.messages.push(user);
      this.save();
      await this.emit('message.updated', { sessionID: sid, info: structuredClone(info) });
      for (const p of parts) await this.emit('message.part.updated', { sessionID: sid, part: structuredClone(p), time: Date.now() });
      await this.emit('session.updated', { sessionID: sid, info: structuredClone(this.doc.info) });
      await this.emit('session.status', { sessionID: sid, status: { type: 'busy' } });
      if (first) await this.title(parts);
      return await this.loop(user);
    } finally {
      this.busy = false;
      this.retry = undefined;
      this.abort = undefined;
      this.onChange?.();
    }
  }

  async title(parts) {
    const prompt = parts.map((p) => p.text ?? '').join('');
    await this.plugins.trigger('chat.params', { sessionID: this.doc.info.id, agent: 'title' }, { maxOutputTokens: 32000, options: {} });
    const t = await generateTitle({ provider: this.model.provider, modelID: this.model.modelID, prompt, sessionID: this.doc.info.id });
    if (!t) return;
    this.doc.info.title = t;
    this.save();
    await this.emit('session.updated', { sessionID: this.doc.info.id, info: structuredClone(this.doc.info) });
  }

  /** The chat-completions messages of the session so far. */
  requestMessages() {
    const out = [{ role: 'system', content: SYSTEM_PROMPT }];
    const lastUser = this.doc.messages.findLastIndex((m) => m.info.role === 'user');
    this.doc.messages.forEach((m, i) => {
      if (m.info.role === 'user') {
        const texts = m.parts.filter((p) => p.type === 'text').map((p) => ({ type: 'text', text: p.text }));
        if (i === lastUser && this.agent === 'plan') texts.push({ type: 'text', text: PLAN_REMINDER });
        out.push({ role: 'user', content: texts.length === 1 ? texts[0].text : texts });
        return;
      }
      const text = m.parts
        .filter((p) => p.type === 'text')
        .map((p) => p.text)
        .join('');
      const tools = m.parts.filter((p) => p.type === 'tool' && p.state.status !== 'pending');
      if (tools.length === 0) {
        if (text) out.push({ role: 'assistant', content: text });
        return;
      }
      out.push({
        role: 'assistant',
        content: text,
        tool_calls: tools.map((t) => ({ id: t.callID, type: 'function', function: { name: t.tool, arguments: JSON.stringify(t.state.input) } })),
      });
      for (const t of tools) out.push({ role: 'tool', tool_call_id: t.callID, content: t.state.output ?? t.state.error ?? '' });
    });
    return out;
  }

  async loop(user) {
    const sid = this.doc.info.id;
    for (;;) {
      const info = {
        id: newId('msg'),
        parentID: user.info.id,
        role: 'assistant',
        mode: this.agent,
        agent: this.agent,
        path: { cwd: this.cwd, root: this.worktree },
        cost: 0,
        tokens: structuredClone(ZERO_TOKENS),
        modelID: this.model.modelID,
        providerID: this.model.providerID,
        time: { created: Date.now() },
        sessionID: sid,
      };
      const msg = { info, parts: [] };
      this.doc.messages.push(msg);
      this.save();
      await this.emit('message.updated', { sessionID: sid, info: structuredClone(info) });
      const step = await this.step(msg);
      if (step.error || step.aborted) return this.endFailed(msg, step);
      info.finish = step.finish;
      await this.emit('message.updated', { sessionID: sid, info: structuredClone(info) });
      info.time.completed = Date.now();
      this.save();
      await this.emit('message.updated', { sessionID: sid, info: structuredClone(info) });
      await this.emit('session.status', { sessionID: sid, status: { type: 'busy' } });
      if (!step.again) break;
    }
    await this.emit('session.status', { sessionID: sid, status: { type: 'idle' } });
    await this.emit('session.idle', { sessionID: sid });
    await this.emit('session.updated', { sessionID: sid, info: structuredClone(this.doc.info) });
    await this.emit('session.diff', { sessionID: sid, diff: [] });
    user.info.summary = { diffs: [] };
    this.save();
    await this.emit('message.updated', { sessionID: sid, info: structuredClone(user.info) });
    return {};
  }

  async endFailed(msg, step) {
    const sid = this.doc.info.id;
    msg.info.time.completed = Date.now();
    if (step.error) {
      msg.info.error = step.error;
      await this.emit('session.error', { sessionID: sid, error: step.error });
      await this.emit('session.status', { sessionID: sid, status: { type: 'idle' } });
      await this.emit('session.idle', { sessionID: sid });
    }
    this.save();
    await this.emit('message.updated', { sessionID: sid, info: structuredClone(msg.info) });
    await this.emit('session.status', { sessionID: sid, status: { type: 'idle' } });
    await this.emit('session.idle', { sessionID: sid });
    return step;
  }

  /** One model step: stream the answer, run the tool calls. */
  async step(msg) {
    const sid = this.doc.info.id;
    const user = this.doc.messages.find((m) => m.info.id === msg.info.parentID);
    await this.emit('session.updated', { sessionID: sid, info: structuredClone(this.doc.info) });
    await this.emit('session.diff', { sessionID: sid, diff: [] });
    if (user) await this.emit('message.updated', { sessionID: sid, info: structuredClone(user.info) });
    await this.emit('session.status', { sessionID: sid, status: { type: 'busy' } });
    await this.plugins.trigger('chat.params', { sessionID: sid, agent: this.agent }, { maxOutputTokens: 32000, options: {} });
    let textPart;
    const pending = [];
    let started = false;
    const onStart = () => {
      if (started) return;
      started = true;
      const part = { id: newId('prt'), messageID: msg.info.id, sessionID: sid, type: 'step-start' };
      msg.parts.push(part);
      this.save();
      pending.push(this.emit('message.part.updated', { sessionID: sid, part: structuredClone(part), time: Date.now() }));
    };
    let r;
    try {
      r = await chat({
        provider: this.model.provider,
        modelID: this.model.modelID,
        messages: this.requestMessages(),
        tools: [BASH_TOOL],
        sessionID: sid,
        signal: this.abort.signal,
        onStart,
        onDelta: (delta) => {
          if (!textPart) {
            textPart = { id: newId('prt'), messageID: msg.info.id, sessionID: sid, type: 'text', text: '', time: { start: Date.now() } };
            msg.parts.push(textPart);
            pending.push(this.emit('message.part.updated', { sessionID: sid, part: structuredClone(textPart), time: Date.now() }));
          }
          textPart.text += delta;
          pending.push(this.emit('message.part.delta', { sessionID: sid, messageID: msg.info.id, partID: textPart.id, field: 'text', delta }));
        },
        onRetry: (status) => {
          this.retry = status;
          pending.push(this.emit('session.status', { sessionID: sid, status: { type: 'retry', ...status } }));
        },
      });
    } catch (err) {
      await Promise.all(pending);
      if (this.abort.signal.aborted) return { aborted: true };
      return { error: err?.name === 'APIError' ? err : { name: 'UnknownError', data: { message: String(err?.message ?? err) } } };
    }
    await Promise.all(pending);
    this.retry = undefined;
    if (textPart) {
      const out = await this.plugins.trigger(
        'experimental.text.complete',
        { sessionID: sid, messageID: msg.info.id, partID: textPart.id },
        { text: textPart.text },
      );
      textPart.text = out.text;
      textPart.time.end = Date.now();
      await this.part(msg, textPart);
    }
    let again = false;
    for (const call of r.toolCalls) {
      const res = await this.tool(msg, call);
      // a rejected call ends the step as a tool step, and the turn with it (no further model request)
      if (res === 'rejected') return this.finishStep(msg, r, 'tool-calls', false);
      again = true;
    }
    return this.finishStep(msg, r, r.toolCalls.length ? 'tool-calls' : 'stop', again);
  }

  async finishStep(msg, r, reason, again) {
    const u = r.usage ?? {};
    const tokens = { total: u.total_tokens ?? 0, input: u.prompt_tokens ?? 0, output: u.completion_tokens ?? 0, reasoning: 0, cache: { write: 0, read: 0 } };
    msg.info.tokens = tokens;
    await this.part(msg, { id: newId('prt'), reason, messageID: msg.info.id, sessionID: this.doc.info.id, type: 'step-finish', tokens, cost: 0 });
    return { finish: reason === 'tool-calls' ? 'tool-calls' : 'stop', again };
  }

  /** One bash call: before hook, permission, run, after hook. Returns 'rejected' or 'done'. */
  async tool(msg, call) {
    const sid = this.doc.info.id;
    let args = {};
    try {
      args = JSON.parse(call.arguments || '{}');
    } catch {}
    const part = {
      type: 'tool',
      tool: call.name,
      callID: call.id,
      state: { status: 'pending', input: {}, raw: '' },
      id: newId('prt'),
      messageID: msg.info.id,
      sessionID: sid,
    };
    await this.part(msg, part);
    const before = await this.plugins.trigger('tool.execute.before', { tool: call.name, sessionID: sid, callID: call.id }, { args });
    args = before.args;
    const start = Date.now();
    part.state = { status: 'running', input: args, time: { start } };
    await this.part(msg, part);
    const command = String(args.command ?? '');
    const perm = bashPermission(this.config);
    const allowKey = `${command.split(' ')[0]} *`;
    if (perm === 'deny' || (perm === 'ask' && !this.always.has(allowKey))) {
      const reply = perm === 'deny' ? 'reject' : await this.askFor(call, msg, command, allowKey);
      if (reply === 'reject') {
        part.state = { status: 'error', input: args, error: REJECTED, time: { start, end: Date.now() } };
        await this.part(msg, part);
        return 'rejected';
      }
    }
    const shellEnv = await this.plugins.trigger('shell.env', { cwd: this.cwd, sessionID: sid, callID: call.id }, { env: {} });
    part.state = { metadata: { output: '' }, status: 'running', input: args, time: { start } };
    await this.part(msg, part);
    const { output, exit } = await runBash(command, args.workdir || this.cwd, { ...this.env, ...shellEnv.env });
    part.state = { metadata: { output }, status: 'running', input: args, time: { start } };
    await this.part(msg, part);
    const after = await this.plugins.trigger(
      'tool.execute.after',
      { tool: call.name, sessionID: sid, callID: call.id, args },
      { title: command, output, metadata: { output, exit, truncated: false } },
    );
    part.state = { status: 'completed', input: args, output: after.output, metadata: after.metadata, title: after.title, time: { start, end: Date.now() } };
    await this.part(msg, part);
    return 'done';
  }

  async askFor(call, msg, command, allowKey) {
    const sid = this.doc.info.id;
    const req = {
      id: newId('per'),
      sessionID: sid,
      permission: 'bash',
      patterns: [command],
      metadata: { command },
      always: [allowKey],
      tool: { messageID: msg.info.id, callID: call.id },
    };
    this.pendingPermission = req;
    await this.emit('permission.asked', structuredClone(req));
    const reply = this.askPermission ? await this.askPermission(req) : 'reject';
    this.pendingPermission = undefined;
    if (reply === 'always') this.always.add(allowKey);
    await this.emit('permission.replied', { sessionID: sid, requestID: req.id, reply });
    return reply;
  }

  /** Stop the running turn (Escape twice in the TUI). */
  interrupt() {
    this.abort?.abort();
  }
}
