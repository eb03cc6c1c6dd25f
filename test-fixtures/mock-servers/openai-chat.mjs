#!/usr/bin/env node
// Local mock of the OpenAI Chat Completions API, as opencode 1.18.33 speaks it through its bundled
// `@ai-sdk/openai-compatible` provider (facts: test-fixtures/fake-opencode/FACTS.md). Drives the real
// opencode and the fake one alike. Dependency-free; listens on 127.0.0.1 only.
//
//   import { startChatMock } from './openai-chat.mjs';
//   const mock = await startChatMock({ logFile });   // mock.url = http://127.0.0.1:<port>/v1 (the baseURL)
//   mock.queue('ECHO hi'); mock.requests(); await mock.close();
//
// As a script: `node openai-chat.mjs [--port N] [--log FILE]` prints {"url","port"} on stdout and
// runs until SIGTERM/SIGINT.
//
// Routes: POST /v1/chat/completions (SSE when `stream: true`, else one JSON completion),
// GET /v1/models. Anything else: an OpenAI-style 404.
//
// Replies follow test-fixtures/lib/directives.mjs `plan()` applied to the prompt (the text of the
// last user message, `<system-reminder>` parts removed): ECHO, DELAY, TOOL (a call of opencode's
// shell tool `bash` (or Qwen Code's `run_shell_command`) with `{command}` (+ `description` when its schema declares one); the follow-up
// carrying the tool result gets toolResultReply()),
// AGENT/BGAGENT (a call of a subagent tool, in the foreground/background: Qwen Code's `agent`, opencode's and
// Copilot CLI's `task`, with the arguments its schema declares: agentArguments()),
// FAIL <status> [xN], LONG, else MOCK-REPLY. A `<task-notification>` prompt (Qwen Code's own turn after a
// background agent ended) is answered by the directives of its `<result>` (notificationDirectives()). Mock-local extension of FAIL: header tokens right after
// the status / xN, each `name=value`:
//   retry-after=S  retry-after-ms=MS  reset-requests=V  reset-tokens=V   (x-ratelimit-reset-*)
// e.g. `FAIL 429 x1 retry-after=1 ECHO ok` fails once with `retry-after: 1`, then answers "ok".
// The title side request (system prompt "You are a title generator") gets {@link MOCK_TITLE}.
import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { plan, toolResultReply } from '../lib/directives.mjs';
import {
  chunkText,
  createRequestLog,
  openSse,
  parseJson,
  readBody,
  redactHeaders,
  runMockCli,
  sendJson,
  startHttpServer,
  waitUnlessClosed,
} from './common.mjs';

/** Title the mock gives opencode's title side request. */
export const MOCK_TITLE = 'Mock session title';

/** What marks the title side request (in its system prompt). */
export const TITLE_MARKER = 'You are a title generator';

/** Models listed by GET /v1/models. */
export const MOCK_MODELS = ['mock-model', 'mock-model-2'];

/** opencode's shell tool. */
export const SHELL_TOOL = 'bash';

/** The shell tools TOOL calls, the first one a request offers: opencode's, then Qwen Code's. */
export const SHELL_TOOLS = [SHELL_TOOL, 'run_shell_command'];
/**
 * Subagent tools, by name: Qwen Code 0.15.10's `agent` {description, prompt, subagent_type,
 * run_in_background}; opencode 1.18.33's and Copilot CLI 1.0.102's `task` (their arguments follow
 * the tool's schema: {@link agentArguments}).
 */
const AGENT_TOOLS = ['agent', 'Agent', 'Task', 'task'];

const ERRORS = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
};

/** OpenAI-style error body for an HTTP status. */
export function errorBody(status, message) {
  const e = ERRORS[status] ?? (status >= 500 ? { type: 'server_error', code: 'server_error' } : { type: 'invalid_request_error', code: null });
  return { error: { message, type: e.type, param: null, code: e.code } };
}

const HEADER_TOKENS = {
  'retry-after': 'retry-after',
  'retry-after-ms': 'retry-after-ms',
  'reset-requests': 'x-ratelimit-reset-requests',
  'reset-tokens': 'x-ratelimit-reset-tokens',
};

/** Split leading `name=value` header tokens off a FAIL message: {headers, text}. */
export function takeHeaderTokens(text) {
  const headers = {};
  let rest = text;
  for (;;) {
    const m = /^([a-z-]+)=(\S+)(?:\s+|$)/.exec(rest);
    if (!m || !HEADER_TOKENS[m[1]]) break;
    headers[HEADER_TOKENS[m[1]]] = m[2];
    rest = rest.slice(m[0].length);
  }
  return { headers, text: rest };
}

const SYSTEM_REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>\n?/g;

/** The clock stamp GitHub Copilot CLI puts before every prompt (test-fixtures/real/COPILOT-FACTS.md). */
const CURRENT_DATETIME = /^<current_datetime>[^<]*<\/current_datetime>\n\n/;

/** The text parts of a message's content (a string is one part). */
export function textParts(content) {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.filter((c) => c && c.type === 'text' && typeof c.text === 'string').map((c) => c.text);
}

/** All text of a message's content, joined. */
export function contentText(content) {
  return textParts(content).join('');
}

/**
 * The prompt in a user message: its text parts with whole `<system-reminder>` blocks removed
 * (opencode adds one as a separate part in plan mode) and a leading `<current_datetime>` stamp
 * removed (Copilot CLI adds one), the last one that is not then empty.
 * A part is never trimmed: the prompt is byte-exact.
 */
export function promptOf(message) {
  const texts = textParts(message?.content)
    .map((t) => t.replace(SYSTEM_REMINDER, '').replace(CURRENT_DATETIME, ''))
    .filter((t) => t !== '');
  return texts.at(-1) ?? '';
}

function systemText(messages) {
  return messages
    .filter((m) => m?.role === 'system')
    .map((m) => contentText(m.content))
    .join('\n');
}

/**
 * Classify a chat-completions request body.
 * @returns {{kind: 'title'|'turn'|'tool-result'|'empty', prompt?: string, toolOutput?: string, callId?: string}}
 */
export function classifyRequest(body) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  let lastUser = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'user') {
      lastUser = i;
      break;
    }
  }
  const prompt = lastUser >= 0 ? promptOf(messages[lastUser]) : undefined;
  if (systemText(messages).includes(TITLE_MARKER)) return { kind: 'title', ...(prompt !== undefined ? { prompt } : {}) };
  if (prompt === undefined) return { kind: 'empty' };
  for (let i = messages.length - 1; i > lastUser; i--) {
    const m = messages[i];
    if (m?.role === 'tool') return { kind: 'tool-result', prompt, callId: m.tool_call_id, toolOutput: contentText(m.content) };
  }
  return { kind: 'turn', prompt };
}

/** The request's function tool named `name`, if it offers one. */
function toolOf(body, name) {
  return Array.isArray(body?.tools) ? body.tools.find((t) => (t?.function?.name ?? t?.name) === name) : undefined;
}

/**
 * Arguments of a shell call, following the tool's schema: `command`, plus `description` when the
 * schema declares one (opencode 1.18.33's `bash` declares command, timeout, workdir).
 */
export function shellArguments(tool, command) {
  const props = propertiesOf(tool);
  return { command, ...('description' in props ? { description: `Run ${command}`.slice(0, 80) } : {}) };
}

/** The properties a tool's schema declares (an empty object when it declares none). */
const propertiesOf = (tool) => tool?.function?.parameters?.properties ?? tool?.parameters?.properties ?? {};

/**
 * Arguments of a subagent call, following the tool's schema. A tool that declares none of the
 * switches below gets Qwen Code's `{description, prompt, subagent_type: "general-purpose",
 * run_in_background}`. Otherwise: `subagent_type` (opencode's `task`: its built-in `general`
 * agent, else `general-purpose`), `agent_type` + `name` (Copilot CLI's `task`), and the
 * background switch the tool declares: `run_in_background` (Qwen Code), `background` (opencode
 * with OPENCODE_EXPERIMENTAL_BACKGROUND_SUBAGENTS; only when true), `mode: sync|background` (Copilot CLI).
 */
export function agentArguments(name, tool, p) {
  const props = propertiesOf(tool);
  const args = { description: p.background ? 'Mock background agent' : 'Mock agent', prompt: p.prompt };
  const has = (key) => key in props;
  if (!['subagent_type', 'agent_type', 'run_in_background', 'background', 'mode'].some(has))
    return { ...args, subagent_type: 'general-purpose', run_in_background: p.background };
  return {
    ...args,
    ...(has('subagent_type') ? { subagent_type: name === 'task' ? 'general' : 'general-purpose' } : {}),
    ...(has('agent_type') ? { agent_type: 'general-purpose', name: 'mock-agent' } : {}),
    ...(has('run_in_background') ? { run_in_background: p.background } : {}),
    ...(has('background') && p.background ? { background: true } : {}),
    ...(has('mode') ? { mode: p.background ? 'background' : 'sync' } : {}),
  };
}

/** Normalise a queued reply (a directive string or a plan-like object) into a plan. */
function queuedPlan(reply) {
  if (typeof reply === 'string') return withHeaders(plan(reply));
  if (reply && typeof reply === 'object') {
    const delayMs = Number(reply.delayMs ?? 0);
    if (typeof reply.text === 'string') return { kind: 'text', text: reply.text, delayMs };
    if (typeof reply.command === 'string') return { kind: 'tool', command: reply.command, delayMs };
    if (typeof reply.status === 'number') {
      return {
        kind: 'error',
        status: reply.status,
        message: String(reply.message ?? 'mock failure'),
        times: 1,
        rest: '',
        headers: { ...(reply.headers ?? {}) },
        delayMs,
      };
    }
  }
  throw new TypeError(`queue(): unsupported reply ${JSON.stringify(reply)}`);
}

/** A plan with the FAIL header tokens resolved (message and rest without them). */
function withHeaders(p) {
  if (p.kind !== 'error') return p;
  const { headers, text } = takeHeaderTokens(p.message);
  // the shared FAIL options (directives.mjs) take `retry-after=` before this mock sees the message
  if (p.account?.retryAfter !== undefined && headers['retry-after'] === undefined) headers['retry-after'] = p.account.retryAfter;
  const rest = takeHeaderTokens(p.rest).text;
  return { ...p, headers, message: text.trim() || 'mock failure', rest };
}

/** A `<task-notification>` prompt's `<result>`: the background agent's answer. */
const NOTIFICATION_RESULT = /<task-notification>[\s\S]*?<result>([\s\S]*?)<\/result>/;

/**
 * What a prompt's directives are: a `<task-notification>` prompt (Qwen Code's own turn after a
 * background agent ended) is answered by its `<result>`, so `BGAGENT ECHO DELAY 15000 ECHO notified`
 * makes that turn last 15 s and answer `notified`; any other prompt is its own.
 */
export function notificationDirectives(prompt) {
  const m = NOTIFICATION_RESULT.exec(prompt);
  return m ? (m[1] ?? '').trim() : prompt;
}

/** The plan for a prompt: FAIL xN counted per prompt text, then the rest answered as a prompt. */
function resolvePlan(prompt, attempts) {
  const attempt = (attempts.get(prompt) ?? 0) + 1;
  attempts.set(prompt, attempt);
  const p = withHeaders(plan(prompt));
  if (p.kind === 'error' && attempt > p.times) return { ...withHeaders(plan(p.rest || 'recovered')), delayMs: p.delayMs };
  return p;
}

const id = (prefix, n = 12) => `${prefix}${randomBytes(n).toString('hex')}`;
const tokens = (n) => Math.max(1, Math.ceil(n / 4));

/** The assistant message of a reply plan: {content, tool_calls?, finish_reason}. */
function assistantOf(p, body) {
  const name = SHELL_TOOLS.find((n) => toolOf(body, n));
  const tool = name && toolOf(body, name);
  if (p.kind === 'tool' && tool) {
    const args = shellArguments(tool, p.command);
    const call = { id: id('call_'), type: 'function', function: { name, arguments: JSON.stringify(args) } };
    return { content: null, tool_calls: [call], finish_reason: 'tool_calls' };
  }
  const agent = p.kind === 'agent' ? AGENT_TOOLS.find((n) => toolOf(body, n)) : undefined;
  if (p.kind === 'agent' && agent) {
    const args = agentArguments(agent, toolOf(body, agent), p);
    const call = { id: id('call_'), type: 'function', function: { name: agent, arguments: JSON.stringify(args) } };
    return { content: null, tool_calls: [call], finish_reason: 'tool_calls' };
  }
  const text = p.kind === 'tool' ? `MOCK-NO-TOOL: the request offers no ${SHELL_TOOL} tool to run: ${p.command}` : p.text;
  return { content: text, finish_reason: 'stop' };
}

/** The chunks of one streamed completion (without the final `[DONE]`). */
export function streamChunks(msg, { model, promptTokens, includeUsage }) {
  const base = { id: id('chatcmpl-'), object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, system_fingerprint: 'fp_mock' };
  const chunk = (delta, finish = null) => ({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const out = [chunk({ role: 'assistant', content: '' })];
  if (msg.tool_calls) {
    msg.tool_calls.forEach((call, index) => {
      out.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
      for (const piece of chunkText(call.function.arguments, 2)) out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
  } else {
    for (const piece of chunkText(msg.content ?? '')) out.push(chunk({ content: piece }));
  }
  out.push(chunk({}, msg.finish_reason));
  const completion = tokens(JSON.stringify(msg).length);
  if (includeUsage) {
    out.push({ ...base, choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion } });
  }
  return out;
}

/** One non-streamed completion. */
export function completionOf(msg, { model, promptTokens }) {
  const completion = tokens(JSON.stringify(msg).length);
  const message = { role: 'assistant', content: msg.content, ...(msg.tool_calls ? { tool_calls: msg.tool_calls } : {}), refusal: null };
  return {
    id: id('chatcmpl-'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: msg.finish_reason }],
    usage: { prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion },
    system_fingerprint: 'fp_mock',
  };
}

/**
 * Start the mock on 127.0.0.1.
 *
 * Replies: `queue()`d replies first (turns and tool follow-ups, FIFO), else the prompt's directives.
 * Title side requests always get {@link MOCK_TITLE}.
 *
 * @param {{logFile?: string, port?: number, title?: string}} [options]
 * @returns {Promise<{url: string, port: number,
 *   queue: (reply: string | {text?: string, command?: string, status?: number, message?: string, headers?: Record<string,string>, delayMs?: number}) => void,
 *   requests: () => object[], close: () => Promise<void>}>}
 */
export async function startChatMock({ logFile, port = 0, title = MOCK_TITLE } = {}) {
  const log = createRequestLog(logFile);
  const attempts = new Map();
  const queued = [];

  async function handle(req, res) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const raw = await readBody(req);
    const body = parseJson(raw);
    const method = req.method ?? 'GET';
    const entry = {
      method,
      path: `${url.pathname}${url.search}`,
      headers: redactHeaders(req.headers),
      body: body ?? (raw.length > 0 ? raw.toString('utf8') : undefined),
    };
    if (method === 'GET' && /\/models\/?$/.test(url.pathname)) {
      log.add({ ...entry, kind: 'models' });
      return sendJson(res, 200, { object: 'list', data: MOCK_MODELS.map((m) => ({ id: m, object: 'model', created: 1767225600, owned_by: 'mock' })) });
    }
    if (method !== 'POST' || !/\/chat\/completions\/?$/.test(url.pathname)) {
      log.add({ ...entry, kind: 'other' });
      return sendJson(res, 404, errorBody(404, `mock: no route ${method} ${url.pathname}`));
    }
    if (!body || typeof body !== 'object') {
      log.add({ ...entry, kind: 'bad' });
      return sendJson(res, 400, errorBody(400, 'mock: the body is not JSON'));
    }
    const cls = classifyRequest(body);
    log.add({ ...entry, kind: cls.kind, prompt: cls.prompt, ...(cls.toolOutput !== undefined ? { callId: cls.callId, toolOutput: cls.toolOutput } : {}) });
    return answer(res, body, cls, raw.length);
  }

  async function answer(res, body, cls, rawLength) {
    let p;
    if (cls.kind === 'title') p = { kind: 'text', text: title, delayMs: 0 };
    else if (queued.length > 0) p = queuedPlan(queued.shift());
    else if (cls.kind === 'tool-result') p = { kind: 'text', text: toolResultReply(cls.toolOutput), delayMs: 0 };
    else if (cls.kind === 'empty') p = { kind: 'text', text: 'MOCK-REPLY: (no prompt)', delayMs: 0 };
    else p = resolvePlan(notificationDirectives(cls.prompt), attempts);
    if (!(await waitUnlessClosed(p.delayMs, res))) return;
    if (p.kind === 'error') return sendJson(res, p.status, errorBody(p.status, p.message), { 'x-request-id': id('req_'), ...p.headers });
    const msg = assistantOf(p, body);
    const model = typeof body.model === 'string' ? body.model : MOCK_MODELS[0];
    const promptTokens = tokens(rawLength);
    if (body.stream !== true) return sendJson(res, 200, completionOf(msg, { model, promptTokens }), { 'x-request-id': id('req_') });
    const sse = openSse(res, { 'x-request-id': id('req_') });
    for (const c of streamChunks(msg, { model, promptTokens, includeUsage: body.stream_options?.include_usage === true })) sse.send(null, c);
    sse.send(null, '[DONE]');
    sse.end();
  }

  const http = await startHttpServer(handle, { port });
  return {
    url: `${http.url}/v1`,
    port: http.port,
    /** Push a reply that wins over the directives for the next turn or tool follow-up. */
    queue(reply) {
      queuedPlan(reply); // validate now, fail at the caller
      queued.push(reply);
    },
    /** The requests seen so far (same records as the JSON-lines log). */
    requests() {
      return log.entries.slice();
    },
    close: http.close,
  };
}

const isMain = (() => {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
})();

if (isMain) await runMockCli((opts) => startChatMock(opts), process.argv.slice(2));
