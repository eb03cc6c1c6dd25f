#!/usr/bin/env node
// Local mock of the Anthropic Messages API for the real `claude` binary (and for anything else
// speaking the Messages API). Facts: /work/shared/reference/claude-code.md §1. Dependency-free.
//
// Library:  const mock = await startAnthropicMock({ logFile, port: 0 });
//           mock.url → 'http://127.0.0.1:<port>' (use as ANTHROPIC_BASE_URL); mock.queue('ECHO hi');
//           mock.requests() → logged requests; await mock.close();
// Script:   node anthropic.mjs [--log FILE] [--port N]  → prints {"url":…,"port":…}; exits 0 on SIGTERM.
//
// Replies follow test-fixtures/lib/directives.mjs (ECHO, DELAY, TOOL, BGTOOL, AGENT, BGAGENT, FAIL, LONG, QUOTA, default
// MOCK-REPLY), chosen from the prompt (last user message, text blocks minus <system-reminder> blocks,
// last non-empty).
//
// Account errors and plan usage, as the real API reports them (see accountErrorHeaders, quotaHeaders):
//   FAIL 429 [retry-after=<v>] [reset=<s>] <msg>   an API rate limit: `retry-after` when given, the
//                                  `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-*`
//                                  headers (reset = RFC 3339 time) when reset= is given
//   FAIL 429 limit=usage|weekly [reset=<s>] <msg>  a subscription's 5-hour / weekly limit: the
//                                  `anthropic-ratelimit-unified-*` headers (status rejected, reset in
//                                  epoch seconds) and `retry-after` = seconds to the reset
//                                  (`retry-after=none` leaves it out)
//   FAIL 401|403 [type=<t>] <msg>  authentication_error / permission_error (type= overrides)
//   QUOTA 5h=<pct>[@<s>] 7d=<pct>[@<s>] <rest>  from then on every Messages answer carries the
//                                  unified headers with that usage (what Claude's statusLine shows);
//                                  also startAnthropicMock({quota}) / mock.setQuota()
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
  resolveDirective,
  runMockCli,
  sendJson,
  startHttpServer,
  waitUnlessClosed,
} from './common.mjs';

/** Marker of Claude Code's auto-mode classifier requests (in their system prompt). */
export const CLASSIFIER_MARKER = 'security monitor for autonomous AI coding agents';

/** Title the mock gives the title side-request (as `{"title":…}` JSON when the request asks for a JSON schema). */
export const MOCK_TITLE = 'Mock session title';

/** Models listed by GET /v1/models. */
export const MOCK_MODELS = ['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-fable-5-2', 'claude-sonnet-5'];

const ERROR_TYPES = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** Anthropic error type for an HTTP status (§1): e.g. 500 → api_error, 529 → overloaded_error. */
export function errorTypeFor(status) {
  return ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** Plan-usage windows the unified headers carry, by QUOTA window name → [header prefix, claim name, length in s]. */
const UNIFIED_WINDOWS = { '5h': ['5h', 'five_hour', 18_000], '7d': ['7d', 'seven_day', 604_800] };

/**
 * Absolute plan usage from a plan's relative `quota` (QUOTA directive): window → percent used and
 * the reset as epoch seconds.
 * @param {Record<string, {percent: number, resetsInSeconds: number}> | undefined} quota
 * @param {number} [now] epoch seconds
 * @returns {Record<string, {percent: number, resetsAt: number}>}
 */
export function quotaState(quota, now = Date.now() / 1000) {
  const out = {};
  for (const [name, w] of Object.entries(quota ?? {})) {
    if (UNIFIED_WINDOWS[name]) out[name] = { percent: w.percent, resetsAt: Math.round(now + w.resetsInSeconds) };
  }
  return out;
}

/**
 * The unified (subscription plan) rate-limit headers of a plan usage state: per window its
 * `-utilization` (a fraction: 42 % → `0.42`), `-reset` (epoch seconds) and `-status`; overall the
 * `status`, `reset` and `representative-claim` of the window nearest its limit (or of `rejected`,
 * the window whose limit is hit, with the overage refused).
 * @param {Record<string, {percent: number, resetsAt: number}>} windows
 * @param {{rejected?: '5h' | '7d'}} [opts]
 * @returns {Record<string, string>}
 */
export function quotaHeaders(windows, { rejected } = {}) {
  const h = {};
  const statusOf = (name, percent) => (name === rejected ? 'rejected' : percent >= 80 ? 'allowed_warning' : 'allowed');
  let claim;
  for (const [name, w] of Object.entries(windows ?? {})) {
    const [prefix] = UNIFIED_WINDOWS[name] ?? [];
    if (!prefix) continue;
    const status = statusOf(name, w.percent);
    h[`anthropic-ratelimit-unified-${prefix}-utilization`] = String(w.percent / 100);
    h[`anthropic-ratelimit-unified-${prefix}-reset`] = String(w.resetsAt);
    h[`anthropic-ratelimit-unified-${prefix}-status`] = status;
    if (status === 'allowed_warning') h[`anthropic-ratelimit-unified-${prefix}-surpassed-threshold`] = '0.8';
    if (rejected ? name === rejected : !claim || w.percent > claim.percent) claim = { name, ...w };
  }
  if (!claim) return h;
  h['anthropic-ratelimit-unified-status'] = rejected ? 'rejected' : statusOf(claim.name, claim.percent);
  h['anthropic-ratelimit-unified-reset'] = String(claim.resetsAt);
  h['anthropic-ratelimit-unified-representative-claim'] = UNIFIED_WINDOWS[claim.name][1];
  if (rejected) {
    h['anthropic-ratelimit-unified-overage-status'] = 'rejected';
    h['anthropic-ratelimit-unified-overage-disabled-reason'] = 'org_level_disabled';
  }
  return h;
}

/** Limits the API rate-limit headers report (per minute), by header kind. */
const API_LIMITS = [
  ['requests', 50],
  ['tokens', 40_000],
  ['input-tokens', 30_000],
  ['output-tokens', 8_000],
];

/**
 * Response headers of an account error from a `FAIL` plan's `account` options: the unified plan-limit
 * headers plus `retry-after` = seconds to the reset (`limit=usage|weekly`), the API rate-limit headers
 * `anthropic-ratelimit-<kind>-{limit,remaining,reset}` with an RFC 3339 reset (`reset=<s>`), and
 * `retry-after` as given (`retry-after=none` drops the one a plan limit adds).
 * @param {{account?: {retryAfter?: string, resetSeconds?: number, limit?: string}}} p
 * @param {Record<string, {percent: number, resetsAt: number}>} [windows] plan usage reported so far
 * @param {number} [now] epoch seconds
 * @returns {Record<string, string>}
 */
export function accountErrorHeaders(p, windows = {}, now = Date.now() / 1000) {
  const a = p.account ?? {};
  const h = {};
  if (a.limit === 'usage' || a.limit === 'weekly') {
    const name = a.limit === 'usage' ? '5h' : '7d';
    const resetsAt = a.resetSeconds !== undefined ? Math.round(now + a.resetSeconds) : (windows[name]?.resetsAt ?? Math.round(now + UNIFIED_WINDOWS[name][2]));
    Object.assign(h, quotaHeaders({ ...windows, [name]: { percent: 100, resetsAt } }, { rejected: name }));
    h['retry-after'] = String(Math.max(0, Math.round(resetsAt - now)));
  } else if (a.resetSeconds !== undefined) {
    const reset = new Date(Math.round(now + a.resetSeconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    for (const [kind, limit] of API_LIMITS) {
      h[`anthropic-ratelimit-${kind}-limit`] = String(limit);
      h[`anthropic-ratelimit-${kind}-remaining`] = kind === 'requests' ? '0' : String(limit);
      h[`anthropic-ratelimit-${kind}-reset`] = reset;
    }
  }
  if (a.retryAfter === 'none') delete h['retry-after'];
  else if (a.retryAfter !== undefined) h['retry-after'] = a.retryAfter;
  return h;
}

const SYSTEM_REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;

function textsOf(content) {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.filter((b) => b && b.type === 'text' && typeof b.text === 'string').map((b) => b.text);
}

function lastUserMessage(body) {
  const msgs = Array.isArray(body?.messages) ? body.messages : [];
  for (let i = msgs.length - 1; i >= 0; i--) if (msgs[i]?.role === 'user') return msgs[i];
  return undefined;
}

/**
 * The prompt of a Messages API request (§1 "Finding the prompt"): in the last `role:"user"` message,
 * its text blocks with whole `<system-reminder>…</system-reminder>` blocks removed, the last non-empty one.
 * @param {any} body parsed request body
 * @returns {string | undefined}
 */
export function findPrompt(body) {
  const msg = lastUserMessage(body);
  if (!msg) return undefined;
  const texts = textsOf(msg.content)
    .map((t) => t.replace(SYSTEM_REMINDER, ''))
    .filter((t) => t.trim() !== '');
  return texts.at(-1);
}

/**
 * The tool_result content of a tool follow-up request (last user message carries `tool_result`), else undefined.
 * @param {any} body
 * @returns {string | undefined}
 */
export function findToolResult(body) {
  const msg = lastUserMessage(body);
  if (!msg || !Array.isArray(msg.content)) return undefined;
  const results = msg.content.filter((b) => b && b.type === 'tool_result');
  if (results.length === 0) return undefined;
  const c = results.at(-1).content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return textsOf(c).join('\n');
  return '';
}

function systemText(body) {
  const s = body?.system;
  if (typeof s === 'string') return s;
  if (Array.isArray(s)) return s.map((b) => (typeof b === 'string' ? b : (b?.text ?? ''))).join('\n');
  return '';
}

function offersTool(body, name) {
  return Array.isArray(body?.tools) && body.tools.some((t) => t?.name === name);
}

/** The name of the subagent tool the request offers (Claude Code 2.1: `Agent`; earlier `Task`), if any. */
function agentTool(body) {
  return ['Agent', 'Task'].find((name) => offersTool(body, name));
}

/**
 * Claude Code's plan-usage probe, sent at startup by a subscription session (claude.ai login or
 * CLAUDE_CODE_OAUTH_TOKEN) to read the unified rate-limit headers: `max_tokens: 1`, one user
 * message "quota", no system prompt, no tools, not streamed.
 */
function isQuotaProbe(body) {
  const msgs = Array.isArray(body?.messages) ? body.messages : [];
  return body?.max_tokens === 1 && msgs.length === 1 && msgs[0]?.role === 'user' && msgs[0]?.content === 'quota' && body?.system === undefined;
}

/**
 * What kind of Messages request this is: 'classifier' | 'title' | 'quota' | 'tool-result' | 'main'.
 * @param {any} body
 */
export function classifyRequest(body) {
  if (systemText(body).includes(CLASSIFIER_MARKER)) return 'classifier';
  if (isQuotaProbe(body)) return 'quota';
  const noTools = !Array.isArray(body?.tools) || body.tools.length === 0;
  if (noTools && (findPrompt(body) ?? '').startsWith('<session>')) return 'title';
  if (findToolResult(body) !== undefined) return 'tool-result';
  return 'main';
}

const id = (prefix) => `${prefix}_mock${randomBytes(10).toString('hex')}`;
const tokens = (n) => Math.max(1, Math.ceil(n / 4));

/**
 * Apply the request's stop_sequences to a text reply like the real API: cut before the first
 * stop sequence found and report it.
 */
function applyStopSequences(text, body) {
  const seqs = Array.isArray(body?.stop_sequences) ? body.stop_sequences.filter((s) => typeof s === 'string' && s) : [];
  let cut;
  for (const s of seqs) {
    const at = text.indexOf(s);
    if (at >= 0 && (cut === undefined || at < cut.at)) cut = { at, s };
  }
  if (!cut) return { text, stopReason: 'end_turn', stopSequence: null };
  return { text: text.slice(0, cut.at), stopReason: 'stop_sequence', stopSequence: cut.s };
}

/** Normalise a queued reply (a directive string or a plan-like object) into a plan. */
function queuedPlan(reply) {
  if (typeof reply === 'string') return plan(reply);
  if (reply && typeof reply === 'object') {
    const delayMs = Number(reply.delayMs ?? 0);
    if (reply.kind === 'text' || typeof reply.text === 'string') return { kind: 'text', text: String(reply.text ?? ''), delayMs };
    if (reply.kind === 'tool' || typeof reply.command === 'string') {
      return { kind: 'tool', command: String(reply.command), withText: Boolean(reply.withText), delayMs };
    }
    if (reply.kind === 'error' || typeof reply.status === 'number') {
      return {
        kind: 'error',
        status: Number(reply.status),
        message: String(reply.message ?? 'mock failure'),
        delayMs,
        account: { ...(reply.account ?? {}), ...(reply.errorType ? { type: String(reply.errorType) } : {}) },
        ...(reply.headers ? { headers: { ...reply.headers } } : {}),
      };
    }
  }
  throw new TypeError(`queue(): unsupported reply ${JSON.stringify(reply)}`);
}

/**
 * Start the mock Anthropic Messages API on 127.0.0.1.
 *
 * Replies: `queue()`d replies first (main and tool follow-up requests only, in order), else the
 * directives of the prompt. Title side-requests get {@link MOCK_TITLE}; auto-mode classifier
 * requests get `<block>no` (or a block when `classifier: 'block'`); the startup plan-usage probe
 * (`quota`) gets a one-word answer (and the plan usage headers, like every answer).
 *
 * Plan usage (`quota`, as the QUOTA directive writes it: `{'5h': {percent, resetsInSeconds}}`), once
 * set, is reported on every Messages answer through the unified headers ({@link quotaHeaders}).
 * Errors carry {@link accountErrorHeaders}; a queued error may add its own `headers`.
 *
 * @param {{logFile?: string, port?: number, classifier?: 'allow' | 'block', quota?: Record<string, {percent: number, resetsInSeconds: number}>}} [opts]
 * @returns {Promise<{url: string, port: number,
 *   queue: (reply: string | {text?: string, command?: string, withText?: boolean, status?: number, message?: string, errorType?: string, account?: object, headers?: Record<string, string>, delayMs?: number}) => void,
 *   setQuota: (quota: Record<string, {percent: number, resetsInSeconds: number}> | null) => void,
 *   requests: () => object[], close: () => Promise<void>}>}
 */
export async function startAnthropicMock({ logFile, port = 0, classifier = 'allow', quota } = {}) {
  const log = createRequestLog(logFile);
  const attempts = new Map();
  const queued = [];
  /** Plan usage reported so far (absolute resets); {} = none (an API-key account's answers carry no unified headers). */
  let planUsage = quotaState(quota);

  async function handle(req, res) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const raw = await readBody(req);
    const body = parseJson(raw);
    const method = req.method ?? 'GET';
    const path = url.pathname;
    const entry = {
      method,
      path: `${url.pathname}${url.search}`,
      headers: redactHeaders(req.headers),
      body: body ?? (raw.length > 0 ? raw.toString('utf8') : undefined),
    };

    if (method === 'POST' && /\/v1\/messages\/?$/.test(path)) {
      const kind = classifyRequest(body);
      const prompt = findPrompt(body);
      log.add({ ...entry, kind, prompt });
      return answerMessages(res, body, kind, prompt);
    }
    log.add(entry);
    if (method === 'POST' && /\/v1\/messages\/count_tokens\/?$/.test(path)) {
      return sendJson(res, 200, { input_tokens: tokens(raw.length) });
    }
    if (method === 'GET' && /\/v1\/models\/?$/.test(path)) {
      const data = MOCK_MODELS.map((m) => ({ type: 'model', id: m, display_name: m, created_at: '2026-01-01T00:00:00Z' }));
      return sendJson(res, 200, { data, has_more: false, first_id: data[0].id, last_id: data.at(-1).id });
    }
    if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') {
      res.writeHead(200, { 'content-length': 0 });
      return res.end();
    }
    return sendJson(res, 200, {});
  }

  async function answerMessages(res, body, kind, prompt) {
    const model = typeof body?.model === 'string' ? body.model : 'claude-opus-5-5';
    const inputTokens = tokens(JSON.stringify(body ?? {}).length);
    let p;
    if (kind === 'classifier') {
      p = {
        kind: 'text',
        text:
          classifier === 'block'
            ? '<block>yes</block><category>Mock Rule</category><reason>[Mock Rule] blocked by mock classifier</reason>'
            : '<block>no</block>',
        delayMs: 0,
      };
    } else if (kind === 'quota') {
      p = { kind: 'text', text: 'ok', delayMs: 0 };
    } else if (kind === 'title') {
      // 2.1.328 asks for `output_config.format: {type:"json_schema", schema:{title:string}}`.
      const wantsJson = body?.output_config?.format?.type === 'json_schema';
      p = { kind: 'text', text: wantsJson ? JSON.stringify({ title: MOCK_TITLE }) : MOCK_TITLE, delayMs: 0 };
    } else if (queued.length > 0) {
      p = queuedPlan(queued.shift());
    } else if (kind === 'tool-result') {
      p = { kind: 'text', text: toolResultReply(findToolResult(body)), delayMs: 0 };
    } else {
      p = resolveDirective(prompt ?? '', attempts);
    }

    if (p.quota) planUsage = { ...planUsage, ...quotaState(p.quota) };

    if (!(await waitUnlessClosed(p.delayMs, res))) return;

    if (p.kind === 'error') {
      const requestId = id('req');
      return sendJson(
        res,
        p.status,
        { type: 'error', error: { type: p.account?.type ?? errorTypeFor(p.status), message: p.message }, request_id: requestId },
        { 'request-id': requestId, ...quotaHeaders(planUsage), ...accountErrorHeaders(p, planUsage), ...(p.headers ?? {}) },
      );
    }

    /** @type {object[]} content blocks */
    let content;
    let stopReason;
    let stopSequence = null;
    if (p.kind === 'tool' && offersTool(body, 'Bash')) {
      const toolUse = {
        type: 'tool_use',
        id: id('toolu'),
        name: 'Bash',
        input: { command: p.command, description: `Run ${p.command}`.slice(0, 80), ...(p.background ? { run_in_background: true } : {}) },
      };
      content = p.withText ? [{ type: 'text', text: `Running: ${p.command}` }, toolUse] : [toolUse];
      stopReason = 'tool_use';
    } else if (p.kind === 'agent' && agentTool(body)) {
      const input = {
        description: p.background ? 'Mock background agent' : 'Mock agent',
        prompt: p.prompt,
        subagent_type: 'general-purpose',
        run_in_background: p.background,
      };
      content = [{ type: 'tool_use', id: id('toolu'), name: agentTool(body), input }];
      stopReason = 'tool_use';
    } else {
      const text = p.kind === 'tool' ? `MOCK-NO-TOOL: the request offers no Bash tool to run: ${p.command}` : p.text;
      const cut = applyStopSequences(text, body);
      content = [{ type: 'text', text: cut.text }];
      stopReason = cut.stopReason;
      stopSequence = cut.stopSequence;
    }
    const outputTokens = tokens(JSON.stringify(content).length);
    const usage = { input_tokens: inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: outputTokens };
    const message = { id: id('msg'), type: 'message', role: 'assistant', model, content, stop_reason: stopReason, stop_sequence: stopSequence, usage };
    const requestId = id('req');
    const headers = { 'request-id': requestId, ...quotaHeaders(planUsage) };

    if (body?.stream !== true) return sendJson(res, 200, message, headers);

    const sse = openSse(res, headers);
    sse.send('message_start', {
      type: 'message_start',
      message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
    });
    content.forEach((block, index) => {
      if (block.type === 'text') {
        sse.send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        if (index === 0) sse.send('ping', { type: 'ping' });
        for (const piece of chunkText(block.text)) {
          sse.send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
        }
      } else {
        sse.send('content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } });
        for (const piece of chunkText(JSON.stringify(block.input), 2)) {
          sse.send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
        }
      }
      sse.send('content_block_stop', { type: 'content_block_stop', index });
    });
    sse.send('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: stopSequence },
      usage: { output_tokens: outputTokens },
    });
    sse.send('message_stop', { type: 'message_stop' });
    sse.end();
  }

  const http = await startHttpServer(handle, { port });
  return {
    url: http.url,
    port: http.port,
    /** Push a reply that wins over the directives for the next main / tool follow-up request. */
    queue(reply) {
      queuedPlan(reply); // validate now, fail at the caller
      queued.push(reply);
    },
    /** Report this plan usage from now on (null: stop reporting it, as for an API-key account). */
    setQuota(q) {
      planUsage = q ? quotaState(q) : {};
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

if (isMain) {
  await runMockCli((opts) => startAnthropicMock(opts), process.argv.slice(2));
}
