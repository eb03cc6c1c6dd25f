import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { MOCK_TITLE, findPrompt, startAnthropicMock } from './anthropic.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { digest } from '../lib/directives.mjs';

type Json = any;

type Mock = {
  url: string;
  port: number;
  queue: (reply: unknown) => void;
  requests: () => Array<Record<string, Json>>;
  close: () => Promise<void>;
};
type SseEvent = { event: string; data: Json };

const SCRIPT = fileURLToPath(new URL('./anthropic.mjs', import.meta.url));
const BASH_TOOL = { name: 'Bash', description: 'run', input_schema: { type: 'object' } };
const SECRET_KEY = 'sk-ant-api03-THIS-MUST-NOT-BE-LOGGED-0123456789';

function userBody(content: unknown, extra: Record<string, unknown> = {}) {
  return { model: 'claude-opus-5-5', max_tokens: 1024, messages: [{ role: 'user', content }], ...extra };
}

async function post(mock: Mock, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${mock.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((f) => f.trim() !== '')
    .map((frame) => {
      const ev = /^event: (.*)$/m.exec(frame)?.[1] ?? '';
      const data = /^data: (.*)$/m.exec(frame)?.[1] ?? 'null';
      return { event: ev, data: JSON.parse(data) };
    });
}

/** Reassemble a streamed message: content blocks (text + tool_use input) and the stop reason. */
function assemble(events: SseEvent[]) {
  const blocks: Json[] = [];
  const json: string[] = [];
  let stopReason: string | undefined;
  for (const { event, data } of events) {
    if (event === 'content_block_start') {
      blocks[data.index] = { ...data.content_block };
      json[data.index] = '';
    } else if (event === 'content_block_delta') {
      if (data.delta.type === 'text_delta') blocks[data.index].text += data.delta.text;
      if (data.delta.type === 'input_json_delta') json[data.index] += data.delta.partial_json;
    } else if (event === 'message_delta') {
      stopReason = data.delta.stop_reason;
    }
  }
  blocks.forEach((b, i) => {
    if (b.type === 'tool_use') b.input = JSON.parse(json[i] || '{}');
  });
  const text = blocks
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('');
  return { blocks, text, stopReason };
}

async function stream(mock: Mock, content: unknown, extra: Record<string, unknown> = {}) {
  const res = await post(mock, '/v1/messages?beta=true', userBody(content, { stream: true, ...extra }));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events = parseSse(await res.text());
  return { events, ...assemble(events) };
}

describe('anthropic mock (library)', () => {
  let mock: Mock;
  let dir: string;
  let logFile: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'umbel-anthropic-mock-'));
    logFile = join(dir, 'requests.jsonl');
    mock = await startAnthropicMock({ logFile });
  });
  afterAll(async () => {
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('listens on 127.0.0.1 with a free port', () => {
    expect(mock.port).toBeGreaterThan(0);
    expect(mock.url).toBe(`http://127.0.0.1:${mock.port}`);
  });

  it('streams ECHO text as the full SSE sequence, split over several text_delta chunks', async () => {
    const { events, text, stopReason } = await stream(mock, 'ECHO hello streaming world');
    expect(text).toBe('hello streaming world');
    expect(stopReason).toBe('end_turn');
    const names = events.map((e) => e.event).filter((n) => n !== 'ping');
    expect(names[0]).toBe('message_start');
    expect(names.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(names).toContain('content_block_start');
    expect(names).toContain('content_block_stop');
    expect(names.filter((n) => n === 'content_block_delta').length).toBeGreaterThan(1);
    const start = events[0]!.data.message;
    expect(start).toMatchObject({ type: 'message', role: 'assistant', model: 'claude-opus-5-5', content: [] });
    expect(start.usage.input_tokens).toBeGreaterThan(0);
    const delta = events.find((e) => e.event === 'message_delta')?.data;
    expect(delta.usage.output_tokens).toBeGreaterThan(0);
  });

  it('answers non-streaming requests with one JSON message', async () => {
    const res = await post(mock, '/v1/messages', userBody([{ type: 'text', text: 'ECHO plain json' }]));
    expect(res.status).toBe(200);
    const msg = (await res.json()) as any;
    expect(msg).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'plain json' }],
      stop_reason: 'end_turn',
    });
  });

  it('keeps multi-line and unicode text exact', async () => {
    const { text } = await stream(mock, 'ECHO multi\nline\n  ünïcödé 🚀👍🏽 "q" $x `b`\n');
    expect(text).toBe('multi\nline\n  ünïcödé 🚀👍🏽 "q" $x `b`\n');
  });

  it('streams LONG replies in chunks of at most 400 characters', async () => {
    const { events, text } = await stream(mock, 'LONG 2500');
    expect(text).toBe('abcdefghij'.repeat(250));
    const pieces = events.filter((e) => e.event === 'content_block_delta').map((e) => e.data.delta.text as string);
    expect(pieces.length).toBeGreaterThanOrEqual(7);
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(400);
  });

  it('answers other prompts with MOCK-REPLY, long ones by digest', async () => {
    expect((await stream(mock, 'just a question')).text).toBe('MOCK-REPLY: just a question');
    const long = 'x'.repeat(150) + ' é '.repeat(40);
    expect((await stream(mock, long)).text).toBe(`MOCK-REPLY: ${digest(long)}`);
  });

  it('DELAY holds the reply back (a later quick request finishes first) and survives a client abort', async () => {
    const abort = new AbortController();
    let slowSettled = false;
    const slow = fetch(`${mock.url}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify(userBody('DELAY 600000 ECHO too late')),
      signal: abort.signal,
    }).then(
      (r) => {
        slowSettled = true;
        return r;
      },
      (e: Error) => {
        slowSettled = true;
        return e;
      },
    );
    const quick = await stream(mock, 'DELAY 1 ECHO quick');
    expect(quick.text).toBe('quick');
    expect(slowSettled).toBe(false);
    abort.abort();
    expect(await slow).toBeInstanceOf(Error);
    // the server is still healthy after a client went away mid-delay
    expect((await stream(mock, 'ECHO still alive')).text).toBe('still alive');
  });

  it('offers a Bash tool_use when the request has a Bash tool, and answers the tool_result follow-up', async () => {
    const { blocks, stopReason } = await stream(mock, 'TOOL echo from-tool', { tools: [BASH_TOOL] });
    expect(stopReason).toBe('tool_use');
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatchObject({ type: 'tool_use', name: 'Bash', input: { command: 'echo from-tool' } });
    expect(typeof blocks[0].input.description).toBe('string');
    expect(blocks[0].id).toMatch(/^toolu_/);

    const followUp = (content: unknown) => ({
      model: 'claude-opus-5-5',
      stream: true,
      tools: [BASH_TOOL],
      messages: [
        { role: 'user', content: 'TOOL echo from-tool' },
        { role: 'assistant', content: [blocks[0]] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: blocks[0].id, content }] },
      ],
    });
    const r1 = await post(mock, '/v1/messages?beta=true', followUp('from-tool\n'));
    expect(assemble(parseSse(await r1.text())).text).toBe('TOOL-RESULT: from-tool');
    const r2 = await post(mock, '/v1/messages?beta=true', followUp([{ type: 'text', text: '' }]));
    expect(assemble(parseSse(await r2.text())).text).toBe('TOOL-RESULT: (empty)');
  });

  it('BGAGENT / AGENT: a background / foreground Agent tool_use carrying the subagent prompt; without an Agent (or Task) tool, text', async () => {
    const { blocks, stopReason } = await stream(mock, 'BGAGENT DELAY 5 ECHO sub', { tools: [BASH_TOOL, { name: 'Agent' }] });
    expect(stopReason).toBe('tool_use');
    expect(blocks).toEqual([
      expect.objectContaining({ type: 'tool_use', name: 'Agent', input: expect.objectContaining({ prompt: 'DELAY 5 ECHO sub', run_in_background: true }) }),
    ]);
    expect((await stream(mock, 'BGAGENT ECHO sub', { tools: [{ name: 'Task' }] })).blocks[0]).toMatchObject({ name: 'Task' });
    const foreground = await stream(mock, 'AGENT ECHO sub', { tools: [{ name: 'Agent' }] });
    expect(foreground.blocks[0]).toMatchObject({ name: 'Agent', input: { prompt: 'ECHO sub', run_in_background: false } });
    const none = await stream(mock, 'BGAGENT ECHO sub', { tools: [BASH_TOOL] });
    expect([none.stopReason, none.text]).toEqual(['end_turn', 'MOCK-NO-AGENT: ECHO sub']);
  });

  it('does not offer a tool_use when the request has no Bash tool', async () => {
    const { blocks, stopReason } = await stream(mock, 'TOOL echo nope', { tools: [{ name: 'Read' }] });
    expect(blocks.every((b) => b.type === 'text')).toBe(true);
    expect(stopReason).toBe('end_turn');
  });

  it('FAIL <status> xN fails N attempts of the same prompt with the §1 error body, then recovers', async () => {
    const body = userBody('FAIL 503 x2 ECHO recovered now', { stream: true });
    for (let i = 0; i < 2; i++) {
      const res = await post(mock, '/v1/messages?beta=true', body);
      expect(res.status).toBe(503);
      expect((await res.json()) as any).toMatchObject({
        type: 'error',
        error: { type: 'api_error', message: 'ECHO recovered now' },
      });
    }
    const ok = await post(mock, '/v1/messages?beta=true', body);
    expect(ok.status).toBe(200);
    expect(assemble(parseSse(await ok.text())).text).toBe('recovered now');
  });

  it('FAIL without xN fails every time, with the error type of its status', async () => {
    const cases: Array<[number, string]> = [
      [400, 'invalid_request_error'],
      [401, 'authentication_error'],
      [403, 'permission_error'],
      [404, 'not_found_error'],
      [429, 'rate_limit_error'],
      [500, 'api_error'],
      [529, 'overloaded_error'],
    ];
    for (const [status, type] of cases) {
      for (let i = 0; i < 2; i++) {
        const res = await post(mock, '/v1/messages', userBody(`FAIL ${status} boom ${status}`));
        expect(res.status).toBe(status);
        expect(((await res.json()) as any).error).toEqual({ type, message: `boom ${status}` });
      }
    }
  });

  it('finds the prompt: last user message, system-reminders removed, last non-empty block', async () => {
    const reminder = { type: 'text', text: '<system-reminder>\nAttribution ECHO wrong\n</system-reminder>' };
    expect(findPrompt(userBody([reminder, { type: 'text', text: 'ECHO right' }]))).toBe('ECHO right');
    expect(findPrompt(userBody([{ type: 'text', text: 'ECHO right' }, reminder]))).toBe('ECHO right');
    expect(
      findPrompt(
        userBody([
          { type: 'text', text: 'ECHO right' },
          { type: 'text', text: '  \n' },
        ]),
      ),
    ).toBe('ECHO right');
    // role:"system" messages after the user message are skipped; earlier user messages do not count
    const withSystem = {
      messages: [
        { role: 'user', content: 'ECHO old turn' },
        { role: 'assistant', content: [{ type: 'text', text: 'old turn' }] },
        { role: 'user', content: [reminder, { type: 'text', text: 'ECHO new turn' }] },
        { role: 'system', content: [{ type: 'text', text: '# Environment ECHO wrong' }] },
      ],
    };
    expect(findPrompt(withSystem)).toBe('ECHO new turn');
    // through the server as well
    expect((await stream(mock, [reminder, { type: 'text', text: 'ECHO via server' }])).text).toBe('via server');
  });

  it('answers the merged prompt after an API error by its last block', async () => {
    const merged = [
      { type: 'text', text: '<system-reminder>previous request failed</system-reminder>' },
      { type: 'text', text: 'FAIL 500 x99 the failed one\n' },
      { type: 'text', text: 'ECHO second prompt' },
    ];
    expect((await stream(mock, merged)).text).toBe('second prompt');
  });

  it('answers the title side-request with a short title (JSON when a json_schema is asked for)', async () => {
    mock.queue('ECHO queued must survive the title request');
    const titlePrompt = '<session>\nECHO hello\n</session>\n\nWrite the title in the predominant language…';
    const asJson = await stream(mock, [{ type: 'text', text: titlePrompt }], {
      output_config: { format: { type: 'json_schema', schema: { type: 'object' } } },
    });
    expect(JSON.parse(asJson.text)).toEqual({ title: MOCK_TITLE });
    expect((await stream(mock, titlePrompt)).text).toBe(MOCK_TITLE);
    // the queued reply was not consumed by the title requests
    expect((await stream(mock, 'ECHO something else', { tools: [BASH_TOOL] })).text).toBe('queued must survive the title request');
  });

  it('answers auto-mode classifier requests with <block>no, honouring stop_sequences', async () => {
    const res = await post(
      mock,
      '/v1/messages?beta=true',
      userBody('rm -rf /x', {
        model: 'claude-sonnet-5',
        system: [{ type: 'text', text: 'You are a security monitor for autonomous AI coding agents.' }],
        stop_sequences: ['</block>'],
        max_tokens: 64,
      }),
    );
    const msg = (await res.json()) as any;
    expect(msg.content).toEqual([{ type: 'text', text: '<block>no' }]);
    expect(msg.stop_reason).toBe('stop_sequence');
    expect(msg.stop_sequence).toBe('</block>');
    expect(mock.requests().at(-1)?.kind).toBe('classifier');
  });

  it('queue(): queued replies win over the directives, in order', async () => {
    mock.queue('ECHO first queued');
    mock.queue({ text: 'second queued' });
    mock.queue({ status: 429, message: 'queued limit' });
    mock.queue({ command: 'echo q', withText: true });
    expect((await stream(mock, 'ECHO directive')).text).toBe('first queued');
    expect((await stream(mock, 'ECHO directive')).text).toBe('second queued');
    const err = await post(mock, '/v1/messages', userBody('ECHO directive'));
    expect(err.status).toBe(429);
    expect(((await err.json()) as any).error).toEqual({ type: 'rate_limit_error', message: 'queued limit' });
    const tool = await stream(mock, 'ECHO directive', { tools: [BASH_TOOL] });
    expect(tool.blocks.map((b) => b.type)).toEqual(['text', 'tool_use']);
    expect(tool.blocks[1].input.command).toBe('echo q');
    expect((await stream(mock, 'ECHO directive')).text).toBe('directive');
    expect(() => mock.queue(42)).toThrow(TypeError);
  });

  it('serves count_tokens, /api/hello, /v1/models and answers anything else with 200', async () => {
    const ct = await post(mock, '/v1/messages/count_tokens', userBody('hi'));
    expect(((await ct.json()) as any).input_tokens).toBeGreaterThan(0);
    expect((await fetch(`${mock.url}/api/hello`, { method: 'HEAD' })).status).toBe(200);
    const models: any = await (await fetch(`${mock.url}/v1/models`)).json();
    expect(models.data.map((m: { id: string }) => m.id)).toContain('claude-opus-5-5');
    expect((await fetch(`${mock.url}/anything/else`)).status).toBe(200);
    expect((await fetch(`${mock.url}/v1/messages`, { method: 'OPTIONS' })).status).toBe(200);
    const other = await post(mock, '/api/event_logging/batch', { events: [] });
    expect(other.status).toBe(200);
    expect((await other.json()) as any).toEqual({});
  });

  it('logs every request as a JSON line (method, path, body, headers without secrets)', async () => {
    await post(mock, '/v1/messages?beta=true', userBody('ECHO logged'), {
      'x-api-key': SECRET_KEY,
      authorization: `Bearer ${SECRET_KEY}`,
      'anthropic-version': '2023-06-01',
    });
    const text = readFileSync(logFile, 'utf8');
    expect(text).not.toContain(SECRET_KEY);
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.length).toBe(mock.requests().length);
    const last = lines.at(-1);
    expect(last).toMatchObject({
      method: 'POST',
      path: '/v1/messages?beta=true',
      kind: 'main',
      prompt: 'ECHO logged',
      body: { messages: [{ role: 'user', content: 'ECHO logged' }] },
    });
    expect(last.headers['anthropic-version']).toBe('2023-06-01');
    expect(last.headers['x-api-key']).toBe('[redacted]');
    expect(last.headers.authorization).toBe('[redacted]');
    expect(lines.some((l) => l.method === 'HEAD' && l.path === '/api/hello')).toBe(true);
  });
});

describe('anthropic mock: account errors and plan usage', () => {
  let mock: Mock & { setQuota: (q: unknown) => void };
  beforeAll(async () => {
    mock = await startAnthropicMock();
  });
  afterAll(async () => {
    await mock?.close();
  });

  /** Epoch seconds before and after `run`, to bound a reset time the mock computed from its clock. */
  async function bounded<T>(run: () => Promise<T>): Promise<{ value: T; lo: number; hi: number }> {
    const lo = Math.floor(Date.now() / 1000);
    const value = await run();
    return { value, lo, hi: Math.ceil(Date.now() / 1000) };
  }
  const unifiedOf = (res: Response) => Object.fromEntries([...res.headers.entries()].filter(([k]) => k.startsWith('anthropic-ratelimit-unified-')));

  it('a plain 429 is a rate_limit_error with no retry-after and no rate-limit headers', async () => {
    const res = await post(mock, '/v1/messages', userBody('FAIL 429 slow down'));
    expect(res.status).toBe(429);
    expect(((await res.json()) as any).error).toEqual({ type: 'rate_limit_error', message: 'slow down' });
    expect(res.headers.get('retry-after')).toBeNull();
    expect([...res.headers.keys()].filter((k) => k.startsWith('anthropic-ratelimit'))).toEqual([]);
  });

  it('FAIL 429 retry-after= reset= sends retry-after and the API rate-limit headers (RFC 3339 reset)', async () => {
    const { value: res, lo, hi } = await bounded(() => post(mock, '/v1/messages', userBody('FAIL 429 retry-after=30 reset=60 slow down')));
    expect(res.status).toBe(429);
    expect(((await res.json()) as any).error).toEqual({ type: 'rate_limit_error', message: 'slow down' });
    expect(res.headers.get('retry-after')).toBe('30');
    for (const kind of ['requests', 'tokens', 'input-tokens', 'output-tokens']) {
      const reset = res.headers.get(`anthropic-ratelimit-${kind}-reset`) ?? '';
      expect(reset).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      const at = Date.parse(reset) / 1000;
      expect(at).toBeGreaterThanOrEqual(lo + 60);
      expect(at).toBeLessThanOrEqual(hi + 60);
      expect(Number(res.headers.get(`anthropic-ratelimit-${kind}-limit`))).toBeGreaterThan(0);
    }
    expect(res.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
    expect(unifiedOf(res)).toEqual({});
  });

  it('FAIL 429 limit=usage is the 5-hour plan limit: unified headers rejected, reset in epoch seconds, retry-after', async () => {
    const { value: res, lo, hi } = await bounded(() => post(mock, '/v1/messages', userBody("FAIL 429 limit=usage reset=3600 You've hit your limit")));
    expect(res.status).toBe(429);
    expect(((await res.json()) as any).error).toEqual({ type: 'rate_limit_error', message: "You've hit your limit" });
    const u = unifiedOf(res);
    expect(u).toMatchObject({
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-representative-claim': 'five_hour',
      'anthropic-ratelimit-unified-5h-status': 'rejected',
      'anthropic-ratelimit-unified-5h-utilization': '1',
      'anthropic-ratelimit-unified-overage-status': 'rejected',
    });
    const reset = Number(u['anthropic-ratelimit-unified-reset']);
    expect(reset).toBeGreaterThanOrEqual(lo + 3600);
    expect(reset).toBeLessThanOrEqual(hi + 3600);
    expect(u['anthropic-ratelimit-unified-5h-reset']).toBe(String(reset));
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(3600 - (hi - lo));
    expect(retryAfter).toBeLessThanOrEqual(3600);
  });

  it('limit=weekly claims the seven-day window; retry-after=none leaves retry-after out', async () => {
    const res = await post(mock, '/v1/messages', userBody('FAIL 429 limit=weekly retry-after=none weekly limit'));
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(unifiedOf(res)).toMatchObject({
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-representative-claim': 'seven_day',
      'anthropic-ratelimit-unified-7d-status': 'rejected',
    });
    expect(((await res.json()) as any).error.message).toBe('weekly limit');
  });

  it('401 and 403 carry authentication_error / permission_error; type= overrides the error type', async () => {
    const r401 = await post(mock, '/v1/messages', userBody('FAIL 401 invalid x-api-key'));
    expect(r401.status).toBe(401);
    expect(((await r401.json()) as any).error).toEqual({ type: 'authentication_error', message: 'invalid x-api-key' });
    const r403 = await post(mock, '/v1/messages', userBody('FAIL 403 OAuth token has been revoked'));
    expect(r403.status).toBe(403);
    expect(((await r403.json()) as any).error).toEqual({ type: 'permission_error', message: 'OAuth token has been revoked' });
    const billing = await post(mock, '/v1/messages', userBody('FAIL 400 type=billing_error Your credit balance is too low'));
    expect(((await billing.json()) as any).error).toEqual({ type: 'billing_error', message: 'Your credit balance is too low' });
    // a word that is no known option stays in the message
    const plain = await post(mock, '/v1/messages', userBody('FAIL 401 limit=bogus words'));
    expect(((await plain.json()) as any).error.message).toBe('limit=bogus words');
  });

  it('xN with options: the options shape the failures, then the rest is answered', async () => {
    const body = userBody('FAIL 429 x1 retry-after=2 ECHO after the limit', { stream: true });
    const first = await post(mock, '/v1/messages?beta=true', body);
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('2');
    await first.text();
    const second = await post(mock, '/v1/messages?beta=true', body);
    expect(assemble(parseSse(await second.text())).text).toBe('after the limit');
  });

  it('QUOTA reports plan usage on that and every later answer (unified headers, fraction + epoch reset) until setQuota(null)', async () => {
    const plain = await post(mock, '/v1/messages', userBody('ECHO before'));
    expect(unifiedOf(plain)).toEqual({});
    const {
      value: res,
      lo,
      hi,
    } = await bounded(() => post(mock, '/v1/messages?beta=true', userBody('QUOTA 5h=42@3600 7d=13 ECHO with usage', { stream: true })));
    expect(assemble(parseSse(await res.text())).text).toBe('with usage');
    const u = unifiedOf(res);
    expect(u).toMatchObject({
      'anthropic-ratelimit-unified-status': 'allowed',
      'anthropic-ratelimit-unified-representative-claim': 'five_hour',
      'anthropic-ratelimit-unified-5h-utilization': '0.42',
      'anthropic-ratelimit-unified-5h-status': 'allowed',
      'anthropic-ratelimit-unified-7d-utilization': '0.13',
      'anthropic-ratelimit-unified-7d-status': 'allowed',
    });
    const reset5h = Number(u['anthropic-ratelimit-unified-5h-reset']);
    expect(reset5h).toBeGreaterThanOrEqual(lo + 3600);
    expect(reset5h).toBeLessThanOrEqual(hi + 3600);
    const reset7d = Number(u['anthropic-ratelimit-unified-7d-reset']);
    expect(reset7d).toBeGreaterThanOrEqual(lo + 604800);
    expect(reset7d).toBeLessThanOrEqual(hi + 604800);
    // sticky: a later answer (and an error) carries the same usage
    const later = await post(mock, '/v1/messages', userBody('ECHO later'));
    expect(unifiedOf(later)['anthropic-ratelimit-unified-5h-reset']).toBe(String(reset5h));
    const warn = await post(mock, '/v1/messages', userBody('QUOTA 5h=91 ECHO nearly'));
    expect(unifiedOf(warn)).toMatchObject({
      'anthropic-ratelimit-unified-status': 'allowed_warning',
      'anthropic-ratelimit-unified-5h-status': 'allowed_warning',
      'anthropic-ratelimit-unified-5h-utilization': '0.91',
      'anthropic-ratelimit-unified-7d-utilization': '0.13',
    });
    mock.setQuota(null);
    expect(unifiedOf(await post(mock, '/v1/messages', userBody('ECHO after')))).toEqual({});
  });

  it('answers Claude\'s startup quota probe (max_tokens 1, "quota") with the plan usage, without using a queued reply', async () => {
    mock.setQuota({ '5h': { percent: 7, resetsInSeconds: 600 } });
    mock.queue('ECHO kept for the real turn');
    const probe = await post(mock, '/v1/messages?beta=true', { model: 'claude-opus-5-5', max_tokens: 1, messages: [{ role: 'user', content: 'quota' }] });
    expect(probe.status).toBe(200);
    expect(probe.headers.get('anthropic-ratelimit-unified-5h-utilization')).toBe('0.07');
    expect(((await probe.json()) as any).content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(mock.requests().at(-1)?.kind).toBe('quota');
    expect((await stream(mock, 'ECHO directive')).text).toBe('kept for the real turn');
    mock.setQuota(null);
  });

  it('queue(): a queued error takes account options, an error type and extra headers', async () => {
    mock.queue({
      status: 429,
      message: 'queued usage',
      errorType: 'rate_limit_error',
      account: { limit: 'usage', resetSeconds: 60 },
      headers: { 'x-extra': 'yes' },
    });
    const res = await post(mock, '/v1/messages', userBody('ECHO directive'));
    expect(res.status).toBe(429);
    expect(res.headers.get('x-extra')).toBe('yes');
    expect(res.headers.get('anthropic-ratelimit-unified-status')).toBe('rejected');
    expect(((await res.json()) as any).error).toEqual({ type: 'rate_limit_error', message: 'queued usage' });
  });
});

describe('anthropic mock (script form)', () => {
  it('prints {url, port}, logs to --log and exits 0 on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'umbel-anthropic-cli-'));
    const log = join(dir, 'log.jsonl');
    const child = spawn(process.execPath, [SCRIPT, '--log', log], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.on('exit', (code, signal) => resolve({ code, signal })),
      );
      const first = await new Promise<string>((resolve, reject) => {
        const rl = createInterface({ input: child.stdout });
        rl.once('line', resolve);
        child.once('exit', () => reject(new Error('mock exited before printing its address')));
      });
      const info = JSON.parse(first);
      expect(info).toEqual({ url: `http://127.0.0.1:${info.port}`, port: expect.any(Number) });
      const res = await fetch(`${info.url}/v1/messages`, {
        method: 'POST',
        body: JSON.stringify(userBody('ECHO from the cli form')),
      });
      expect(((await res.json()) as any).content[0].text).toBe('from the cli form');
      child.kill('SIGTERM');
      expect(await exited).toEqual({ code: 0, signal: null });
      const lines = readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ method: 'POST', path: '/v1/messages', prompt: 'ECHO from the cli form' });
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
