#!/usr/bin/env node
// Local mock of the OpenAI Responses API, as OpenAI Codex 0.169.0 speaks it
// (reference/codex.md §2.2–§3). Dependency-free; listens on 127.0.0.1 only.
//
//   import { startResponsesMock } from './openai-responses.mjs';
//   const mock = await startResponsesMock({ logFile });   // mock.url = http://127.0.0.1:<port>/v1
//
// As a script: `node openai-responses.mjs [--port N] [--log FILE]` prints {"url","port"} on stdout
// and runs until SIGTERM/SIGINT.
//
// Replies come from test-fixtures/lib/directives.mjs `plan()` applied to the user's real prompt
// (codex's wrapper messages skipped). One mock-local extension, shared with the fake codex:
//   ASK <cmd>   -> like TOOL, but the call asks for escalation (sandbox_permissions
//                  "require_escalated", justification "Mock wants to run: <cmd>"), which makes the
//                  TUI show its approval prompt (§9).
// BGTOOL <cmd> calls exec_command with yield_time_ms 250: a longer command becomes a background terminal.
// AGENT/BGAGENT <prompt> calls spawn_agent {message: <prompt>} (codex's multi_agent subagent), whose
// own requests carry <prompt> as their last user message (see agentToolCall).
//
// Account errors and plan usage, as the OpenAI API / the ChatGPT (Codex) backend report them:
//   FAIL 429 [retry-after=<v>] [reset=<s>] <msg>  an API rate limit (code rate_limit_exceeded):
//                  `retry-after` when given; `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`
//                  (reset as a duration such as `1m30s`) when reset= is given
//   FAIL 429 type=insufficient_quota <msg>        the API account is out of credits
//   FAIL 429 limit=usage|weekly [reset=<s>] <msg> a ChatGPT plan's usage limit: error type
//                  usage_limit_reached with plan_type, resets_at (epoch s), resets_in_seconds, and the
//                  x-codex-{primary,secondary}-* usage headers (primary = 5 h, secondary = weekly)
//   FAIL 401|403 [type=<code>] <msg>              invalid_api_key / invalid_request_error
//   QUOTA 5h=<pct>[@<s>] 7d=<pct>[@<s>] <rest>    from then on every answer carries the
//                  x-codex-{primary,secondary}-* usage headers (also setQuota())
//
// For a (fake) ChatGPT login Codex also asks the ChatGPT backend (`chatgpt_base_url` = this mock +
// `/backend-api/`): GET …/wham/accounts/check (workspace routing; see accountsCheck) and
// GET …/wham/usage (the plan usage, see whamUsage). Other backend routes get the 404 answer.
import { createHash, randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { plan, toolResultReply } from '../lib/directives.mjs';

/** Title the mock gives the hidden title request (§2.4). */
export const MOCK_TITLE = 'Mock task title';

const TITLE_PREFIX = 'Generate a concise, single-line task title';

/** User messages codex adds around the real prompt (§2.2 input[] items 3, 4 and later wrappers). */
const WRAPPER_PATTERNS = [
  /^<environment_context>/,
  /^# AGENTS\.md instructions/,
  /^<INSTRUCTIONS>/,
  /^<user_instructions>/,
  /^<turn_aborted>/,
  /^<user_shell_command>/,
  /^<skills_instructions>/,
  /^<permissions instructions>/,
];

/** True when a user message is one of codex's wrappers rather than the user's prompt. */
export function isWrapperText(text) {
  const t = text.trimStart();
  return WRAPPER_PATTERNS.some((re) => re.test(t));
}

function messageText(item) {
  if (typeof item.content === 'string') return item.content;
  if (!Array.isArray(item.content)) return '';
  return item.content
    .filter((c) => c && (c.type === 'input_text' || c.type === 'output_text' || c.type === 'text'))
    .map((c) => c.text ?? '')
    .join('');
}

/**
 * Classify a Responses request body.
 * @returns {{kind:'title'|'turn'|'tool-result'|'empty', prompt?:string, toolOutput?:string, callId?:string}}
 */
export function classifyRequest(body, headers = {}) {
  const input = Array.isArray(body?.input) ? body.input : [];
  let meta = {};
  try {
    meta = JSON.parse(headers['x-codex-turn-metadata'] ?? '{}');
  } catch {}
  let lastUser = -1;
  for (let i = input.length - 1; i >= 0; i--) {
    const it = input[i];
    if (it?.type === 'message' && it.role === 'user' && !isWrapperText(messageText(it))) {
      lastUser = i;
      break;
    }
  }
  const prompt = lastUser >= 0 ? messageText(input[lastUser]) : undefined;
  const noTools = !Array.isArray(body?.tools) || body.tools.length === 0;
  const isTitle = meta.thread_source === 'thread_title' || (noTools && (prompt?.startsWith(TITLE_PREFIX) ?? false));
  if (isTitle) return { kind: 'title', prompt };
  if (prompt === undefined) return { kind: 'empty' };
  for (let i = input.length - 1; i > lastUser; i--) {
    const it = input[i];
    if (it?.type === 'function_call_output') {
      const raw = typeof it.output === 'string' ? it.output : JSON.stringify(it.output ?? '');
      const at = raw.indexOf('Output:\n');
      return { kind: 'tool-result', prompt, callId: it.call_id, toolOutput: at >= 0 ? raw.slice(at + 'Output:\n'.length) : raw };
    }
  }
  return { kind: 'turn', prompt };
}

/**
 * Pick codex's shell tool from the request's `tools` and build the call arguments. `background`
 * (BGTOOL): `exec_command` yields after 250 ms, codex's least, so a longer command runs on as a
 * background terminal (unified exec) after the call.
 */
export function shellToolCall(tools, command, escalate = false, background = false) {
  const names = new Set((Array.isArray(tools) ? tools : []).map((t) => t?.name).filter(Boolean));
  const extra = escalate ? { sandbox_permissions: 'require_escalated', justification: `Mock wants to run: ${command}` } : {};
  const yieldMs = background ? 250 : 30000;
  if (names.has('exec_command') || names.size === 0)
    return { name: 'exec_command', arguments: { cmd: command, login: false, yield_time_ms: yieldMs, ...extra } };
  if (names.has('shell_command')) return { name: 'shell_command', arguments: { command, ...extra } };
  if (names.has('shell')) return { name: 'shell', arguments: { command: ['bash', '-lc', command], ...extra } };
  return { name: 'exec_command', arguments: { cmd: command, login: false, yield_time_ms: 30000, ...extra } };
}

/**
 * AGENT/BGAGENT <prompt>: codex's subagent tool `spawn_agent` (multi_agent) with `message: <prompt>`,
 * when the request offers it (codex starts every spawned agent beside the turn: there is no
 * foreground form, so both directives make the same call). Undefined when it is not offered.
 */
export function agentToolCall(tools, prompt) {
  for (const t of Array.isArray(tools) ? tools : []) {
    if (t?.name === 'spawn_agent') return { name: 'spawn_agent', arguments: { message: prompt } };
    // 0.171.0 offers it inside a `namespace` tool (`multi_agent_v1`); its call names the namespace
    if (t?.type === 'namespace' && (t.tools ?? []).some((f) => f?.name === 'spawn_agent'))
      return { name: 'spawn_agent', namespace: t.name, arguments: { message: prompt } };
  }
  return undefined;
}

/** Plan a reply, with the mock-local `ASK` extension. */
export function planReply(prompt) {
  const m = /^ASK ([\s\S]+)$/.exec(prompt);
  if (m) return { kind: 'tool', command: m[1].trim(), delayMs: 0, escalate: true };
  const d = /^DELAY (\d+) (ASK [\s\S]+)$/.exec(prompt);
  if (d) return { ...planReply(d[2]), delayMs: Number(d[1]) };
  return plan(prompt);
}

const ERROR_CODES = {
  400: 'invalid_request_error',
  401: 'invalid_api_key',
  403: 'invalid_request_error',
  404: 'invalid_request_error',
  429: 'rate_limit_exceeded',
};

/**
 * OpenAI-style error body (§3); `type` (a FAIL `type=`) replaces both the code and the type, as the
 * API does for e.g. `insufficient_quota`.
 */
export function errorBody(status, message, type) {
  if (type) return { error: { message, type, param: null, code: type } };
  const code = status >= 500 ? 'server_error' : (ERROR_CODES[status] ?? 'invalid_request_error');
  const kind = status >= 500 ? 'server_error' : status === 429 ? 'requests' : 'invalid_request_error';
  return { error: { message, type: kind, param: null, code } };
}

/** An OpenAI rate-limit duration: 90 → `1m30s`, 0.5 → `500ms`, 6 → `6s`. */
export function rateLimitDuration(seconds) {
  if (seconds < 1) return `${Math.round(seconds * 1000)}ms`;
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.round((seconds % 60) * 1000) / 1000;
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${s}s`;
}

/** The ChatGPT plan windows Codex reads, by QUOTA window name → [header family, window minutes]. */
const PLAN_WINDOWS = { '5h': ['primary', 300], '7d': ['secondary', 10_080] };

/**
 * Absolute plan usage from a plan's relative `quota` (QUOTA directive).
 * @returns {Record<string, {percent: number, resetsAt: number}>}
 */
export function quotaState(quota, now = Date.now() / 1000) {
  const out = {};
  for (const [name, w] of Object.entries(quota ?? {})) {
    if (PLAN_WINDOWS[name]) out[name] = { percent: w.percent, resetsAt: Math.round(now + w.resetsInSeconds) };
  }
  return out;
}

/**
 * The `x-codex-{primary,secondary}-{used-percent,window-minutes,reset-after-seconds,reset-at}`
 * headers of a plan usage state (the ChatGPT backend's; primary = the 5-hour window, secondary = weekly).
 */
export function quotaHeaders(windows, now = Date.now() / 1000) {
  const h = {};
  for (const [name, w] of Object.entries(windows ?? {})) {
    const [family, minutes] = PLAN_WINDOWS[name] ?? [];
    if (!family) continue;
    h[`x-codex-${family}-used-percent`] = String(w.percent);
    h[`x-codex-${family}-window-minutes`] = String(minutes);
    h[`x-codex-${family}-reset-after-seconds`] = String(Math.max(0, Math.round(w.resetsAt - now)));
    h[`x-codex-${family}-reset-at`] = String(w.resetsAt);
  }
  return h;
}

/**
 * Status, headers and body of a FAIL plan (its `account` options applied; see the file header).
 * @param {{status: number, message: string, account?: {retryAfter?: string, resetSeconds?: number, limit?: string, type?: string}}} p
 * @param {Record<string, {percent: number, resetsAt: number}>} [windows] plan usage reported so far
 * @param {number} [now] epoch seconds
 * @returns {{headers: Record<string, string>, body: object}}
 */
export function accountError(p, windows = {}, now = Date.now() / 1000) {
  const a = p.account ?? {};
  const headers = {};
  let body = errorBody(p.status, p.message, a.type);
  if (a.limit === 'usage' || a.limit === 'weekly') {
    const name = a.limit === 'usage' ? '5h' : '7d';
    const resetsAt =
      a.resetSeconds !== undefined ? Math.round(now + a.resetSeconds) : (windows[name]?.resetsAt ?? Math.round(now + PLAN_WINDOWS[name][1] * 60));
    Object.assign(headers, quotaHeaders({ ...windows, [name]: { percent: 100, resetsAt } }, now));
    const inSeconds = Math.max(0, Math.round(resetsAt - now));
    body = { error: { type: a.type ?? 'usage_limit_reached', message: p.message, plan_type: 'plus', resets_at: resetsAt, resets_in_seconds: inSeconds } };
  } else if (a.resetSeconds !== undefined) {
    const reset = rateLimitDuration(a.resetSeconds);
    Object.assign(headers, {
      'x-ratelimit-limit-requests': '500',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': reset,
      'x-ratelimit-limit-tokens': '200000',
      'x-ratelimit-remaining-tokens': '0',
      'x-ratelimit-reset-tokens': reset,
    });
  }
  if (a.retryAfter !== undefined && a.retryAfter !== 'none') headers['retry-after'] = a.retryAfter;
  return { headers, body };
}

/** SSE events of one text answer (§2.3, §3). */
export function textEvents(text, { responseId = `resp_${randomUUID()}`, inputTokens = 0, phase = 'final_answer' } = {}) {
  const itemId = `msg_${randomUUID().replaceAll('-', '')}`;
  const base = { type: 'message', role: 'assistant', id: itemId };
  const ev = [];
  ev.push({ type: 'response.created', response: { id: responseId, object: 'response', status: 'in_progress' } });
  ev.push({ type: 'response.output_item.added', output_index: 0, item: { ...base, status: 'in_progress', content: [] } });
  ev.push({
    type: 'response.content_part.added',
    item_id: itemId,
    output_index: 0,
    content_index: 0,
    part: { type: 'output_text', text: '', annotations: [] },
  });
  for (let i = 0; i < text.length || i === 0; i += 400) {
    ev.push({ type: 'response.output_text.delta', item_id: itemId, output_index: 0, content_index: 0, delta: text.slice(i, i + 400) });
    if (text.length === 0) break;
  }
  ev.push({ type: 'response.output_text.done', item_id: itemId, output_index: 0, content_index: 0, text });
  ev.push({
    type: 'response.output_item.done',
    output_index: 0,
    item: { ...base, status: 'completed', ...(phase ? { phase } : {}), content: [{ type: 'output_text', text, annotations: [] }] },
  });
  ev.push(completed(responseId, inputTokens, Math.ceil(Buffer.byteLength(text) / 4)));
  return ev;
}

/** SSE events of one shell-tool call. */
export function toolEvents(call, { responseId = `resp_${randomUUID()}`, inputTokens = 0 } = {}) {
  const hex = randomUUID().replaceAll('-', '');
  const item = {
    type: 'function_call',
    id: `fc_${hex}`,
    call_id: `call_${hex.slice(0, 24)}`,
    name: call.name,
    ...(call.namespace ? { namespace: call.namespace } : {}),
    arguments: JSON.stringify(call.arguments),
  };
  return [
    { type: 'response.created', response: { id: responseId, object: 'response', status: 'in_progress' } },
    { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress' } },
    { type: 'response.output_item.done', output_index: 0, item: { ...item, status: 'completed' } },
    completed(responseId, inputTokens, 20),
  ];
}

function completed(id, input, output) {
  return {
    type: 'response.completed',
    response: {
      id,
      object: 'response',
      status: 'completed',
      usage: {
        input_tokens: input,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: input + output,
      },
    },
  };
}

/** Serialise events as SSE (`event: <type>\ndata: <json>\n\n`). */
export function sse(events) {
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('');
}

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });

/**
 * Start the mock.
 * @param {{logFile?: string, port?: number, title?: string, quota?: Record<string, {percent: number, resetsInSeconds: number}>}} [options]
 * @returns {Promise<{url: string, port: number, queue(reply: string|object): void, setQuota(q: object | null): void, requests(): object[], close(): Promise<void>}>}
 *   `url` is the provider base_url (`http://127.0.0.1:<port>/v1`). `queue(reply)` overrides the answer
 *   to the next user turn(s), FIFO: a directive string (as if it were the prompt) or a plan object
 *   (an error plan may carry `account` options and extra `headers`). `quota` / `setQuota()`: plan
 *   usage reported on every answer through the x-codex-* headers.
 */
export async function startResponsesMock({ logFile, port = 0, title = MOCK_TITLE, quota } = {}) {
  const log = [];
  const queued = [];
  /** Plan usage reported so far (absolute resets); {} = none (an API key's answers carry no x-codex-* headers). */
  let planUsage = quotaState(quota);
  const failures = new Map();
  const sockets = new Set();

  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((err) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify(errorBody(500, `mock crashed: ${err?.message ?? err}`)));
      });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  function record(entry) {
    log.push(entry);
    if (logFile) appendFileSync(logFile, `${JSON.stringify(entry)}\n`);
  }

  async function handle(req, res, raw) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    let body;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    const entry = { at: new Date().toISOString(), method: req.method, path: url.pathname, headers: req.headers, body };
    if (req.method === 'GET' && /\/wham\/accounts\/check\/?$/.test(url.pathname)) {
      record({ ...entry, kind: 'accounts-check' });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(accountsCheck(req.headers['chatgpt-account-id'], 'https://chatgpt.com')));
      return;
    }
    if (req.method === 'POST' && /\/oauth\/token\/?$/.test(url.pathname)) {
      // the ChatGPT login's token refresh (CODEX_REFRESH_TOKEN_URL_OVERRIDE = this route): refused, as for an expired login
      record({ ...entry, kind: 'token-refresh' });
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'refresh_token_expired', message: 'Your refresh token has expired. Please sign in again.' } }));
      return;
    }
    if (req.method === 'GET' && /\/wham\/usage\/?$/.test(url.pathname)) {
      record({ ...entry, kind: 'usage' });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(whamUsage(planUsage)));
      return;
    }
    if (req.method === 'GET' && /\/models\/?$/.test(url.pathname)) {
      record({ ...entry, kind: 'models' });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'mock-model', object: 'model', owned_by: 'mock' }], models: [] }));
      return;
    }
    if (req.method !== 'POST' || !/\/responses\/?$/.test(url.pathname)) {
      record({ ...entry, kind: 'other' });
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(errorBody(404, `mock: no route ${req.method} ${url.pathname}`)));
      return;
    }
    if (!body) {
      record({ ...entry, kind: 'bad' });
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify(errorBody(400, 'mock: body is not JSON')));
      return;
    }
    const cls = classifyRequest(body, req.headers);
    record({ ...entry, kind: cls.kind, prompt: cls.prompt, toolOutput: cls.toolOutput });
    const inputTokens = Math.ceil(raw.length / 4);
    const abort = new AbortController();
    res.on('close', () => abort.abort());

    if (cls.kind === 'title') return stream(res, textEvents(JSON.stringify({ title }), { inputTokens, phase: undefined }));
    if (cls.kind === 'tool-result') return stream(res, textEvents(toolResultReply(cls.toolOutput), { inputTokens }));
    if (cls.kind === 'empty') return stream(res, textEvents('MOCK-REPLY: (no prompt)', { inputTokens }));

    let p = queued.length > 0 ? queued.shift() : planReply(cls.prompt);
    if (p.quota) planUsage = { ...planUsage, ...quotaState(p.quota) };
    for (;;) {
      await sleep(p.delayMs ?? 0, abort.signal);
      if (abort.signal.aborted) return;
      if (p.kind !== 'error') break;
      const key = `${cls.prompt}`;
      const n = (failures.get(key) ?? 0) + 1;
      failures.set(key, n);
      if (n <= (p.times ?? Infinity)) {
        const failure = accountError(p, planUsage);
        res.writeHead(p.status, { 'content-type': 'application/json', ...quotaHeaders(planUsage), ...failure.headers, ...(p.headers ?? {}) });
        res.end(JSON.stringify(failure.body));
        return;
      }
      p = { ...planReply(p.rest || 'recovered'), delayMs: 0 };
    }
    if (p.kind === 'tool') return stream(res, toolEvents(shellToolCall(body.tools, p.command, p.escalate, p.background), { inputTokens }));
    const agent = p.kind === 'agent' ? agentToolCall(body.tools, p.prompt) : undefined;
    if (agent) return stream(res, toolEvents(agent, { inputTokens }));
    return stream(res, textEvents(p.text, { inputTokens }));
  }

  function stream(res, events) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...quotaHeaders(planUsage) });
    res.end(sse(events));
  }

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const actual = server.address().port;
  return {
    url: `http://127.0.0.1:${actual}/v1`,
    port: actual,
    queue(reply) {
      queued.push(typeof reply === 'string' ? planReply(reply) : reply);
    },
    /** Report this plan usage (QUOTA form) on every answer from now on; null stops it. */
    setQuota(q) {
      planUsage = q ? quotaState(q) : {};
    },
    requests() {
      return log.slice();
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The ChatGPT backend's `GET /backend-api/wham/accounts/check` answer for one (fake) account, as
 * Codex's own tests mock it: what its TUI asks at the start of a ChatGPT login ("workspace routing
 * discovery"; without an answer the TUI exits with `account/read failed`). The backend origin is
 * the mock itself.
 */
export function accountsCheck(accountId, origin) {
  const id = String(accountId || 'acct-umbel-mock');
  return { accounts: [{ id, plan_type: 'plus', workspace_backend_origin: origin, account_routing_override: 'NO_CONSTRAINT' }], account_ordering: [id] };
}

/**
 * The ChatGPT backend's `GET /backend-api/wham/usage` answer (what Codex's `/status` shows as
 * Limits for a ChatGPT login) for a plan usage state: primary = 5 h, secondary = weekly.
 */
export function whamUsage(windows, now = Date.now() / 1000) {
  const win = (name) => {
    const w = windows?.[name];
    if (!w) return null;
    return {
      used_percent: w.percent,
      limit_window_seconds: PLAN_WINDOWS[name][1] * 60,
      reset_after_seconds: Math.max(0, Math.round(w.resetsAt - now)),
      reset_at: w.resetsAt,
    };
  };
  const limitReached = Object.values(windows ?? {}).some((w) => w.percent >= 100);
  return {
    plan_type: 'plus',
    rate_limit: { allowed: !limitReached, limit_reached: limitReached, primary_window: win('5h'), secondary_window: win('7d') },
    credits: { has_credits: false, unlimited: false, balance: '0' },
  };
}

/** Short digest of a body, handy in logs. */
export function bodyDigest(raw) {
  return createHash('sha256').update(raw).digest('hex').slice(0, 16);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const opt = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const mock = await startResponsesMock({ port: Number(opt('--port') ?? 0), logFile: opt('--log') });
  process.stdout.write(`${JSON.stringify({ url: mock.url, port: mock.port })}\n`);
  const stop = () => mock.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
