#!/usr/bin/env node
// Local mock of the Gemini API (generativelanguage) for the real `gemini` CLI and the fake one.
// Dependency-free Node ESM. Facts: /work/shared/reference/gemini.md §1.2–§1.3.
//
//   import { startGeminiMock } from './gemini.mjs';
//   const mock = await startGeminiMock({ logFile, port: 0 });
//   // GOOGLE_GEMINI_BASE_URL=mock.url GEMINI_API_KEY=test (+ security.auth.selectedType=gemini-api-key)
//
// As a script: `node gemini.mjs [--port N] [--log FILE]` prints {"url","port"} on one line and runs
// until SIGTERM/SIGINT.
//
// Serves, under any path prefix (v1beta, v1, v1beta1/publishers/google, a custom prefix):
//   POST …/models/<m>:streamGenerateContent[?alt=sse]   main turns (SSE, or a JSON array without alt=sse)
//   POST …/models/<m>:generateContent                    routing classifier, session summary, next-speaker
//                                                        check, other JSON-schema utility calls, plain turns
//   POST …/models/<m>:countTokens, :embedContent, :batchEmbedContents
//   GET  …/models, GET …/models/<m>
// Anything else: a Google-style 404 JSON.
//
// Replies follow test-fixtures/lib/directives.mjs (`plan()`): ECHO, DELAY, TOOL (a run_shell_command
// functionCall, then toolResultReply() on the functionResponse follow-up), FAIL <status> [xN], LONG,
// AGENT/BGAGENT <prompt> (an `invoke_agent` call of the generalist subagent; its own requests carry
// <prompt> and a text answer there is a `complete_task` call: see functionCallOf).
//
// Account errors, as the Gemini API reports them (google.rpc details in the error body; see errorJson):
//   FAIL 429 [reset=<s>] <msg>         RESOURCE_EXHAUSTED; with reset= a per-minute QuotaFailure and a
//                                      RetryInfo `retryDelay: "<s>s"` (the CLI's retryable quota error)
//   FAIL 429 limit=usage [reset=<s>] <msg>  a per-day QuotaFailure (GenerateRequestsPerDay…): the CLI's
//                                      terminal "daily quota" error (limit=weekly: the same, Gemini
//                                      has no weekly window)
//   FAIL <s> retry-after=<v> …         also a `retry-after` header (the Gemini API sends none itself)
//   FAIL <s> type=<REASON> <msg>       an ErrorInfo detail with that reason, e.g.
//                                      `FAIL 400 type=API_KEY_INVALID API key not valid. …` (what the
//                                      real API answers a bad key: 400, not 401)
// QUOTA is ignored: the Gemini API reports no plan usage.
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { plan, toolResultReply } from '../lib/directives.mjs';

const STATUS_NAMES = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'NOT_IMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const MODELS = ['gemini-3.8-flash', 'gemini-3.1-pro-preview', 'gemini-3.5-flash-lite', 'gemini-3-flash-preview'];
const CHUNK = 200;

/** Text parts of a content, in order. */
function textParts(content) {
  return (content?.parts ?? []).filter((p) => typeof p?.text === 'string' && !p.thought).map((p) => p.text);
}

/**
 * The user's prompt in a request: the text of the last `user` content, without the
 * `<session_context>`/`<hook_context>` wrappers and the `--- Content from referenced files ---`
 * expansion that @path adds. Returns undefined when the last user content carries no text.
 */
export function extractPrompt(body) {
  const contents = Array.isArray(body?.contents) ? body.contents : [];
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i];
    if (c?.role !== 'user') continue;
    const out = [];
    for (const t of textParts(c)) {
      const s = t.trimStart();
      if (s.startsWith('<session_context>') || s.startsWith('<hook_context>')) continue;
      if (t.startsWith('\n--- Content from referenced files ---') || t.startsWith('--- Content from referenced files ---')) break;
      out.push(t);
    }
    if (out.length === 0) return undefined;
    return out.join('');
  }
  return undefined;
}

/** The functionResponse parts of the last content, when it is a tool follow-up. */
function lastFunctionResponses(body) {
  const contents = Array.isArray(body?.contents) ? body.contents : [];
  const last = contents[contents.length - 1];
  if (!last || last.role !== 'user') return [];
  return (last.parts ?? []).filter((p) => p?.functionResponse).map((p) => p.functionResponse);
}

/** The `Output:` section of a run_shell_command result (`(empty)` means nothing). */
export function shellOutput(responseOutput) {
  let text = String(responseOutput ?? '');
  text = text.replace(/^\s*<untrusted_context>\n?/, '').replace(/\n?<\/untrusted_context>\s*$/, '');
  const m = /(?:^|\n)Output: ([\s\S]*?)(?=\n(?:Error|Exit Code|Signal|Background PIDs|Process Group PGID): |$)/.exec(text);
  const out = m ? m[1] : text;
  return out === '(empty)' ? '' : out;
}

/** All text of a request: system instruction and contents (for classifying utility calls). */
function allText(body) {
  const parts = [];
  for (const p of body?.systemInstruction?.parts ?? []) if (typeof p?.text === 'string') parts.push(p.text);
  if (typeof body?.systemInstruction === 'string') parts.push(body.systemInstruction);
  for (const c of body?.contents ?? []) parts.push(...textParts(c));
  return parts.join('\n');
}

function lastUserText(body) {
  const contents = Array.isArray(body?.contents) ? body.contents : [];
  for (let i = contents.length - 1; i >= 0; i--) if (contents[i]?.role === 'user') return textParts(contents[i]).join('');
  return '';
}

/** Classify a `generateContent` call. */
export function classify(body) {
  const sys = (body?.systemInstruction?.parts ?? []).map((p) => p?.text ?? '').join('\n');
  const gc = body?.generationConfig ?? body?.config ?? {};
  const schema = gc.responseJsonSchema ?? gc.responseSchema;
  if (sys.includes('Task Routing AI') || allText(body).includes('You are a specialized Task Routing AI')) return 'classifier';
  const user = lastUserText(body);
  if (user.startsWith("Summarize the user's primary intent")) return 'summary';
  if (user.startsWith('Analyze *only* the content and structure of your immediately preceding response')) return 'next-speaker';
  if (schema || gc.responseMimeType === 'application/json') return 'utility-json';
  return 'turn';
}

/** A value matching a (Gemini or JSON) schema, filled with harmless defaults. */
export function fromSchema(schema, key = '') {
  if (!schema || typeof schema !== 'object') return null;
  const type = String(Array.isArray(schema.type) ? schema.type[0] : (schema.type ?? (schema.properties ? 'object' : 'string'))).toLowerCase();
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    if (key === 'next_speaker' && schema.enum.includes('user')) return 'user';
    if (key === 'model_choice' && schema.enum.includes('flash')) return 'flash';
    return schema.enum[0];
  }
  switch (type) {
    case 'object': {
      const out = {};
      for (const [k, v] of Object.entries(schema.properties ?? {})) out[k] = fromSchema(v, k);
      return out;
    }
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return key.includes('score') ? 10 : 0;
    case 'boolean':
      return false;
    default:
      return key.includes('reason') ? 'mock routing' : 'mock';
  }
}

function usage(promptText, replyText) {
  const input = Math.max(1, Math.ceil(promptText.length / 4));
  const output = Math.max(1, Math.ceil(replyText.length / 4));
  return { promptTokenCount: input, candidatesTokenCount: output, totalTokenCount: input + output };
}

function candidate(parts, finish) {
  const c = { content: { role: 'model', parts }, index: 0 };
  if (finish) c.finishReason = 'STOP';
  return c;
}

const RPC = 'type.googleapis.com/google.rpc.';

/**
 * The Google-style error of a FAIL plan: `{error:{code, message, status, details?}}`, its google.rpc
 * details from the plan's `account` options (QuotaFailure, RetryInfo, ErrorInfo), and the headers.
 * @param {{status: number, message: string, account?: {retryAfter?: string, resetSeconds?: number, limit?: string, type?: string}}} p
 * @returns {{body: object, headers: Record<string, string>}}
 */
export function errorJson(p) {
  const a = p.account ?? {};
  const details = [];
  if (p.status === 429 && (a.limit || a.resetSeconds !== undefined)) {
    const daily = Boolean(a.limit);
    details.push({
      '@type': `${RPC}QuotaFailure`,
      violations: [
        {
          quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
          quotaId: daily ? 'GenerateRequestsPerDayPerProjectPerModel-FreeTier' : 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
          quotaDimensions: { location: 'global', model: 'gemini-mock' },
          quotaValue: daily ? '250' : '10',
        },
      ],
    });
  }
  if (a.type)
    details.push({ '@type': `${RPC}ErrorInfo`, reason: a.type, domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } });
  if (a.resetSeconds !== undefined) details.push({ '@type': `${RPC}RetryInfo`, retryDelay: `${a.resetSeconds}s` });
  const error = { code: p.status, message: p.message, status: STATUS_NAMES[p.status] ?? 'UNKNOWN', ...(details.length > 0 ? { details } : {}) };
  const headers = a.retryAfter !== undefined && a.retryAfter !== 'none' ? { 'retry-after': a.retryAfter } : {};
  return { body: { error }, headers };
}

function errorBody(status, message) {
  return JSON.stringify(errorJson({ status, message }).body);
}

/** The declaration of tool `name` among the request's tools, when it offers it. */
function declaredTool(body, name) {
  for (const t of Array.isArray(body?.tools) ? body.tools : []) {
    const found = (t?.functionDeclarations ?? []).find((f) => f?.name === name);
    if (found) return found;
  }
  return undefined;
}

/** Arguments of `complete_task` carrying `text`: every string its parameters require (`{result: {response}}` for the generalist). */
function fillStrings(schema, text) {
  const type = String(schema?.type ?? (schema?.properties ? 'object' : 'string')).toLowerCase();
  if (type !== 'object') return text;
  const required = new Set(Array.isArray(schema.required) ? schema.required : Object.keys(schema.properties ?? {}));
  return Object.fromEntries(Object.entries(schema.properties ?? {}).flatMap(([k, v]) => (required.has(k) ? [[k, fillStrings(v, text)]] : [])));
}

/**
 * The functionCall a plan answers with, else undefined (a text): TOOL → run_shell_command; AGENT/BGAGENT
 * → `invoke_agent` {agent_name: "generalist", prompt} when the request offers it (Gemini CLI runs it in
 * the turn: it has no background form); a text in a subagent's request (it offers `complete_task`,
 * the only way a Gemini subagent finishes) → complete_task with that text.
 */
function functionCallOf(body, d) {
  if (d.kind === 'tool') return { name: 'run_shell_command', args: { command: d.command, description: `Run ${d.command}` } };
  if (d.kind === 'agent' && declaredTool(body, 'invoke_agent')) return { name: 'invoke_agent', args: { agent_name: 'generalist', prompt: d.agentPrompt } };
  const complete = d.kind === 'text' ? declaredTool(body, 'complete_task') : undefined;
  const schema = complete?.parametersJsonSchema ?? complete?.parameters;
  return complete
    ? { name: 'complete_task', args: fillStrings(schema ?? { type: 'object', properties: { result: { type: 'string' } } }, String(d.text ?? '')) }
    : undefined;
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
}

/**
 * Start the mock.
 * @param {{logFile?: string, port?: number}} [options]
 * @returns {Promise<{url: string, port: number, queue(reply: string | object): void, requests(): object[], close(): Promise<void>}>}
 */
export async function startGeminiMock(options = {}) {
  const { logFile, port = 0 } = options;
  /** @type {object[]} */
  const log = [];
  /** @type {(string | object)[]} */
  const queued = [];
  /** Attempts seen per FAIL prompt (for xN). */
  const failCounts = new Map();
  let toolSeq = 0;
  const sockets = new Set();

  function record(entry) {
    log.push(entry);
    if (logFile) {
      try {
        appendFileSync(logFile, `${JSON.stringify(entry)}\n`);
      } catch {
        // logging must never break a reply
      }
    }
  }

  /** Decide the reply of a user turn: {kind:'text'|'tool'|'error', …}. */
  function decide(body) {
    const responses = lastFunctionResponses(body);
    if (responses.length > 0) {
      const shell = responses.find((r) => r.name === 'run_shell_command') ?? responses[0];
      const out = shell?.response?.output ?? shell?.response?.error ?? shell?.response?.llmContent ?? JSON.stringify(shell?.response ?? {});
      return { kind: 'text', text: toolResultReply(shellOutput(out)), delayMs: 0, prompt: undefined };
    }
    const prompt = extractPrompt(body) ?? '';
    if (queued.length > 0) {
      const q = queued.shift();
      const p = typeof q === 'string' ? { kind: 'text', text: q, delayMs: 0 } : { delayMs: 0, ...q };
      return { ...p, prompt };
    }
    let p = plan(prompt);
    // (an agent plan's `prompt` is the subagent's: kept apart from the request's own prompt below)
    if (p.kind === 'agent') p = { ...p, agentPrompt: p.prompt };
    if (p.kind === 'error') {
      const key = prompt;
      const n = (failCounts.get(key) ?? 0) + 1;
      failCounts.set(key, n);
      if (n > p.times) p = { ...plan(p.rest), delayMs: p.delayMs + plan(p.rest).delayMs };
    }
    return { ...p, prompt };
  }

  async function handleTurn(_req, res, body, stream, sse, signal) {
    const d = decide(body);
    if (d.delayMs > 0) await sleep(d.delayMs, signal);
    if (signal.aborted) return { ...d, aborted: true };
    if (d.kind === 'error') {
      const failure = errorJson(d);
      res.writeHead(d.status, { 'content-type': 'application/json; charset=UTF-8', ...failure.headers, ...(d.headers ?? {}) });
      res.end(JSON.stringify(failure.body));
      return d;
    }
    const promptText = d.prompt ?? '';
    let chunks;
    const call = functionCallOf(body, d);
    if (call) {
      toolSeq += 1;
      chunks = [candidate([{ functionCall: call }], true)];
    } else {
      const text = String(d.text ?? '');
      const pieces = [];
      for (let i = 0; i < text.length; i += CHUNK) pieces.push(text.slice(i, i + CHUNK));
      if (pieces.length === 0) pieces.push('');
      chunks = pieces.map((t, i) => candidate([{ text: t }], i === pieces.length - 1));
    }
    const replyText = call ? JSON.stringify(call.args) : String(d.text ?? '');
    const usageMetadata = usage(promptText, replyText);
    const events = chunks.map((c) => ({ candidates: [c], usageMetadata, modelVersion: 'mock', responseId: `mock-${toolSeq}-${log.length}` }));
    if (!stream) {
      // generateContent: one response with the whole reply
      const parts = chunks.flatMap((c) => c.content.parts);
      const merged = call ? parts : [{ text: parts.map((p) => p.text).join('') }];
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      res.end(JSON.stringify({ candidates: [candidate(merged, true)], usageMetadata, modelVersion: 'mock' }));
      return d;
    }
    if (sse) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      for (const ev of events) {
        if (signal.aborted) break;
        res.write(`data: ${JSON.stringify(ev)}\r\n\r\n`);
      }
      res.end();
    } else {
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      res.end(JSON.stringify(events));
    }
    return d;
  }

  function utilityReply(kind, body) {
    const gc = body?.generationConfig ?? {};
    if (kind === 'classifier') {
      return JSON.stringify({ complexity_reasoning: 'mock routing', complexity_score: 10, reasoning: 'mock routing', model_choice: 'flash' });
    }
    if (kind === 'summary') return 'Mock session summary';
    if (kind === 'next-speaker') return JSON.stringify({ reasoning: 'mock: the model finished its turn', next_speaker: 'user' });
    return JSON.stringify(fromSchema(gc.responseJsonSchema ?? gc.responseSchema ?? { type: 'object', properties: {} }));
  }

  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const ac = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) ac.abort();
      });
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const raw = Buffer.concat(chunks).toString('utf8');
      let body;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const entry = {
        time: new Date().toISOString(),
        method: req.method,
        path: url.pathname,
        query: url.search,
        headers: { 'x-goog-api-key': req.headers['x-goog-api-key'], 'user-agent': req.headers['user-agent'] },
        body,
      };
      try {
        const m = /\/models\/([^/:]+):([A-Za-z]+)$/.exec(url.pathname);
        if (req.method === 'POST' && m) {
          const [, model, method] = m;
          entry.model = model;
          entry.rpc = method;
          if (body === undefined) {
            entry.kind = 'bad-request';
            res.writeHead(400, { 'content-type': 'application/json' });
            res.end(errorBody(400, 'Invalid JSON payload received.'));
            return;
          }
          if (method === 'streamGenerateContent') {
            entry.kind = lastFunctionResponses(body).length > 0 ? 'tool-followup' : 'turn';
            entry.prompt = extractPrompt(body);
            const d = await handleTurn(req, res, body, true, url.searchParams.get('alt') === 'sse', ac.signal);
            entry.reply = d.kind;
            if (d.aborted) entry.aborted = true;
            return;
          }
          if (method === 'generateContent') {
            const kind = classify(body);
            entry.kind = kind;
            if (kind === 'turn') {
              entry.prompt = extractPrompt(body);
              const d = await handleTurn(req, res, body, false, false, ac.signal);
              entry.reply = d.kind;
              return;
            }
            const text = utilityReply(kind, body);
            res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
            res.end(JSON.stringify({ candidates: [candidate([{ text }], true)], usageMetadata: usage(allText(body), text), modelVersion: 'mock' }));
            return;
          }
          if (method === 'countTokens') {
            entry.kind = 'count-tokens';
            const n = Math.max(1, Math.ceil(allText(body).length / 4));
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ totalTokens: n }));
            return;
          }
          if (method === 'embedContent' || method === 'batchEmbedContents') {
            entry.kind = 'embed';
            const one = { values: [0.1, 0.2, 0.3] };
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify(method === 'embedContent' ? { embedding: one } : { embeddings: (body.requests ?? [{}]).map(() => one) }));
            return;
          }
        }
        if (req.method === 'GET') {
          const list = /\/models\/?$/.test(url.pathname);
          const one = /\/models\/([^/:]+)$/.exec(url.pathname);
          const info = (name) => ({
            name: `models/${name}`,
            displayName: name,
            inputTokenLimit: 1048576,
            outputTokenLimit: 65536,
            supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
          });
          if (list) {
            entry.kind = 'models';
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ models: MODELS.map(info) }));
            return;
          }
          if (one) {
            entry.kind = 'model';
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify(info(one[1])));
            return;
          }
        }
        entry.kind = 'not-found';
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(errorBody(404, `Method not found: ${req.method} ${url.pathname}`));
      } catch (error) {
        entry.kind = 'mock-error';
        entry.error = String(error?.stack ?? error);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(errorBody(500, 'mock internal error'));
      } finally {
        record(entry);
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  return {
    url: `http://127.0.0.1:${actualPort}`,
    port: actualPort,
    /** Force the reply of the next user turn (a string, or a plan: {kind:'tool',command} …). */
    queue(reply) {
      queued.push(reply);
    },
    /** Every request so far (parsed body included). */
    requests() {
      return log.slice();
    },
    close() {
      return new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      });
    },
  };
}

function argValue(argv, name) {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argv = process.argv.slice(2);
  const mock = await startGeminiMock({ logFile: argValue(argv, '--log'), port: Number(argValue(argv, '--port') ?? 0) });
  process.stdout.write(`${JSON.stringify({ url: mock.url, port: mock.port })}\n`);
  const stop = async () => {
    await mock.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
