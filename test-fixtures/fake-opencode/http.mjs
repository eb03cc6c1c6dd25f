// The TUI's HTTP API of the fake opencode (`--port N`, FACTS.md §d): loopback by default
// (`--hostname`), HTTP Basic auth (user `opencode` or OPENCODE_SERVER_USERNAME) when
// OPENCODE_SERVER_PASSWORD is set. Routes umbel could use: GET /session, GET /session/:id/message,
// GET /permission, POST /permission/:id/reply {"reply"}, POST /tui/append-prompt {"text"},
// POST /tui/submit-prompt. Anything else: 404.
import { timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

function authorized(req, env) {
  const password = env.OPENCODE_SERVER_PASSWORD;
  if (!password) return true;
  const want = Buffer.from(`Basic ${Buffer.from(`${env.OPENCODE_SERVER_USERNAME || 'opencode'}:${password}`).toString('base64')}`);
  const got = Buffer.from(req.headers.authorization ?? '');
  return got.length === want.length && timingSafeEqual(got, want);
}

async function bodyOf(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  } catch {
    return {};
  }
}

/** Route one request against the TUI; returns [status, body]. */
async function route(tui, req) {
  const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
  const engine = tui.engine;
  if (req.method === 'GET' && path === '/session') return [200, engine.doc ? [engine.doc.info] : []];
  let m = /^\/session\/([^/]+)\/message$/.exec(path);
  if (req.method === 'GET' && m)
    return engine.doc?.info.id === m[1] ? [200, engine.doc.messages] : [404, { name: 'NotFoundError', data: { message: `Session not found: ${m[1]}` } }];
  if (req.method === 'GET' && path === '/permission') return [200, tui.perm ? [tui.perm.req] : []];
  m = /^\/permission\/([^/]+)\/reply$/.exec(path);
  if (req.method === 'POST' && m) {
    const { reply } = await bodyOf(req);
    if (!tui.perm || tui.perm.req.id !== m[1] || !['once', 'always', 'reject'].includes(reply)) return [400, false];
    tui.answer(reply);
    return [200, true];
  }
  if (req.method === 'POST' && path === '/tui/append-prompt') {
    const { text } = await bodyOf(req);
    tui.input += String(text ?? '');
    tui.render();
    return [200, true];
  }
  if (req.method === 'POST' && path === '/tui/submit-prompt') {
    tui.submit();
    tui.render();
    return [200, true];
  }
  return [404, { name: 'NotFoundError', data: { message: `no route ${req.method} ${path}` } }];
}

export async function startHttp(tui, flags, env) {
  const server = createServer((req, res) => {
    if (!authorized(req, env)) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="Secure Area"', 'content-type': 'text/plain' });
      res.end('Unauthorized');
      return;
    }
    route(tui, req).then(
      ([status, body]) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      },
      (err) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ name: 'UnknownError', data: { message: String(err?.message ?? err) } }));
      },
    );
  });
  const host = typeof flags['--hostname'] === 'string' ? flags['--hostname'] : '127.0.0.1';
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(flags['--port']), host, resolve);
  });
  return { close: () => server.close() };
}
