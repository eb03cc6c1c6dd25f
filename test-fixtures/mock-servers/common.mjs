// Shared HTTP/SSE helpers for the local mock model servers (anthropic.mjs, and the codex / gemini
// mocks). Dependency-free Node ESM. The API is deliberately small:
//
//   startHttpServer(handler, {port, host})   listen on 127.0.0.1 (free port by default) → {server, port, url, close()}
//   readBody(req) / parseJson(buf)           request body as Buffer / JSON (undefined when not JSON)
//   sendJson(res, status, body, headers)     one JSON response
//   openSse(res, headers)                    text/event-stream writer: send(event|null, data), end()
//   chunkText(text, maxParts, maxSize)       split a reply into several stream chunks (code-point safe)
//   waitUnlessClosed(ms, res)                delay a reply; resolves false when the client went away
//   redactHeaders(headers)                   copy of the headers without secret values
//   createRequestLog(file?)                  in-memory + JSON-lines request log
//   resolveDirective(prompt, attempts)       directives.mjs plan() with `FAIL <s> xN` counted per prompt
//   runMockCli(start, argv)                  script form: --log FILE --port N, one JSON line on stdout, exit on SIGTERM
import { appendFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname } from 'node:path';
import { plan } from '../lib/directives.mjs';

/**
 * Start an HTTP server on 127.0.0.1. Handler errors become a 500 JSON answer (never a crash).
 * @param {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => unknown} handler
 * @param {{port?: number, host?: string}} [opts]
 * @returns {Promise<{server: import('node:http').Server, port: number, url: string, close: () => Promise<void>}>}
 */
export async function startHttpServer(handler, { port = 0, host = '127.0.0.1' } = {}) {
  const server = createServer((req, res) => {
    Promise.resolve()
      .then(() => handler(req, res))
      .catch((err) => {
        if (!res.headersSent) sendJson(res, 500, { error: { message: `mock server error: ${err?.message ?? err}` } });
        else res.destroy();
      });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address();
  const actualPort = typeof addr === 'object' && addr ? addr.port : port;
  let closing;
  return {
    server,
    port: actualPort,
    url: `http://${host}:${actualPort}`,
    close() {
      closing ??= new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/**
 * Read the whole request body.
 * @param {import('node:http').IncomingMessage} req
 * @returns {Promise<Buffer>}
 */
export async function readBody(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return Buffer.concat(chunks);
}

/** Parse a body as JSON; undefined when empty or not JSON. */
export function parseJson(buf) {
  if (!buf || buf.length === 0) return undefined;
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Send one JSON response.
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {unknown} body
 * @param {Record<string, string>} [headers]
 */
export function sendJson(res, status, body, headers = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/**
 * Start a Server-Sent-Events response.
 * `send(event, data)` writes `event: <event>` (omitted when event is null) and `data: <JSON>`.
 * @param {import('node:http').ServerResponse} res
 * @param {Record<string, string>} [headers]
 * @returns {{send: (event: string | null, data: unknown) => void, end: () => void}}
 */
export function openSse(res, headers = {}) {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...headers,
  });
  return {
    send(event, data) {
      if (res.destroyed) return;
      const payload = typeof data === 'string' ? data : JSON.stringify(data);
      res.write(`${event === null ? '' : `event: ${event}\n`}data: ${payload}\n\n`);
    },
    end() {
      if (!res.destroyed) res.end();
    },
  };
}

/**
 * Split text into stream chunks: at most `maxSize` code points each, and several chunks for
 * anything longer than one character (at most `maxParts` when that keeps chunks under maxSize).
 * Never splits a surrogate pair. Empty text → [].
 * @param {string} text
 * @param {number} [maxParts]
 * @param {number} [maxSize]
 * @returns {string[]}
 */
export function chunkText(text, maxParts = 3, maxSize = 400) {
  const cps = [...text];
  if (cps.length === 0) return [];
  const size = Math.max(1, Math.min(maxSize, Math.ceil(cps.length / maxParts)));
  const out = [];
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(''));
  return out;
}

/**
 * Wait `ms` before answering; resolves `false` early if the client disconnected (response closed).
 * @param {number} ms
 * @param {import('node:http').ServerResponse} res
 * @returns {Promise<boolean>}
 */
export function waitUnlessClosed(ms, res) {
  if (res.destroyed || res.writableEnded) return Promise.resolve(false);
  if (!ms || ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onClose = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(true);
    }, ms);
    res.once('close', onClose);
  });
}

const SECRET_HEADER = /(^authorization$|^proxy-authorization$|^cookie$|key|token|secret)/i;

/** Copy of request headers with secret-bearing values (auth, keys, tokens, cookies) replaced by "[redacted]". */
export function redactHeaders(headers) {
  const out = {};
  for (const [k, v] of Object.entries(headers ?? {})) out[k] = SECRET_HEADER.test(k) ? '[redacted]' : v;
  return out;
}

/**
 * A request log: entries kept in memory, and appended as JSON lines to `file` when given
 * (synchronously, so a line is on disk before the reply is sent).
 * @param {string} [file]
 * @returns {{entries: object[], add: (entry: object) => object}}
 */
export function createRequestLog(file) {
  if (file) mkdirSync(dirname(file), { recursive: true });
  const entries = [];
  return {
    entries,
    add(entry) {
      const e = { ts: new Date().toISOString(), seq: entries.length + 1, ...entry };
      entries.push(e);
      if (file) appendFileSync(file, `${JSON.stringify(e)}\n`);
      return e;
    },
  };
}

/**
 * `plan(prompt)` from directives.mjs, with `FAIL <status> xN <rest>` resolved: the first N attempts
 * of the same prompt text answer the error, later attempts answer `<rest>` as a prompt.
 * `FAIL` without xN fails every time. `attempts` is a Map the caller keeps per server.
 * @param {string} prompt
 * @param {Map<string, number>} attempts
 * @returns {ReturnType<typeof plan> & {attempt: number}}
 */
export function resolveDirective(prompt, attempts) {
  const attempt = (attempts.get(prompt) ?? 0) + 1;
  attempts.set(prompt, attempt);
  const p = plan(prompt);
  if (p.kind === 'error' && attempt > p.times) return { ...plan(p.rest, p.delayMs), attempt };
  return { ...p, attempt };
}

/**
 * Script form shared by the mocks: parses `--log FILE` and `--port N`, starts the mock, prints one
 * JSON line `{"url","port"}` on stdout, and closes + exits 0 on SIGTERM / SIGINT.
 * @param {(opts: {logFile?: string, port?: number}) => Promise<{url: string, port: number, close: () => Promise<void>}>} start
 * @param {string[]} argv
 */
export async function runMockCli(start, argv) {
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--log') opts.logFile = argv[++i];
    else if (a.startsWith('--log=')) opts.logFile = a.slice(6);
    else if (a === '--port') opts.port = Number(argv[++i]);
    else if (a.startsWith('--port=')) opts.port = Number(a.slice(7));
    else {
      process.stderr.write(`unknown argument ${a}\nusage: [--log FILE] [--port N]\n`);
      process.exit(2);
    }
  }
  const mock = await start(opts);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    mock.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdout.write(`${JSON.stringify({ url: mock.url, port: mock.port })}\n`);
  return mock;
}
