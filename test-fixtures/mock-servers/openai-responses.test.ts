import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error untyped ESM fixture
import { classifyRequest, startResponsesMock } from './openai-responses.mjs';

type Mock = { url: string; port: number; queue(r: unknown): void; requests(): Record<string, unknown>[]; close(): Promise<void> };

const user = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const wrappers = [
  { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are a coding agent running in the Codex CLI' }] },
  user('<environment_context>\n  <cwd>/w</cwd>\n</environment_context>'),
  user('# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>be nice</INSTRUCTIONS>'),
];
const tools = [
  { type: 'function', name: 'exec_command', parameters: {} },
  { type: 'function', name: 'write_stdin', parameters: {} },
];

function parseSse(text: string): Record<string, unknown>[] {
  return text
    .split('\n\n')
    .filter((b) => b.trim() !== '')
    .map((block) => {
      const ev = /^event: (.+)$/m.exec(block)?.[1];
      const data = JSON.parse(/^data: (.+)$/m.exec(block)?.[1] ?? 'null') as Record<string, unknown>;
      expect(data.type).toBe(ev);
      return data;
    });
}

function finalText(events: Record<string, unknown>[]): string | undefined {
  const done = events.filter((e) => e.type === 'response.output_item.done').map((e) => e.item as { type: string; content?: { text: string }[] });
  return done.find((i) => i.type === 'message')?.content?.[0]?.text;
}

describe('OpenAI Responses mock', () => {
  let mock: Mock;
  let dir: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'openai-mock-'));
    mock = await startResponsesMock({ logFile: join(dir, 'log.jsonl') });
  });
  afterEach(async () => {
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${mock.url}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
      body: JSON.stringify(body),
    });

  it('listens on 127.0.0.1 and answers with the SSE sequence codex accepts (§2.3)', async () => {
    expect(mock.url).toBe(`http://127.0.0.1:${mock.port}/v1`);
    const res = await post({ model: 'mock-model', stream: true, input: [...wrappers, user('ECHO hello\nworld')], tools });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = parseSse(await res.text());
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(finalText(events)).toBe('hello\nworld');
    const completed = events.at(-1) as { response: { id: string; usage: Record<string, unknown> } };
    expect(completed.response.id).toMatch(/^resp_/);
    expect(completed.response.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number), total_tokens: expect.any(Number) });
  });

  it('takes the last real user message, skipping codex wrappers, and logs the request', async () => {
    await (
      await post({
        input: [
          ...wrappers,
          user('first'),
          { type: 'message', role: 'assistant', content: [] },
          user('second prompt'),
          user('<turn_aborted>\nx\n</turn_aborted>'),
        ],
        tools,
      })
    ).text();
    const [req] = mock.requests();
    expect(req).toMatchObject({ kind: 'turn', prompt: 'second prompt', path: '/v1/responses' });
    const logged = readFileSync(join(dir, 'log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(logged[0].prompt).toBe('second prompt');
  });

  it('answers the hidden title request with a title and does not count it as a turn (§2.4)', async () => {
    const body = {
      input: [user('Generate a concise, single-line task title of at most 36 characters …\n\nUser prompt:\nECHO x')],
      tools: [],
      text: { format: { type: 'json_schema', name: 'codex_output_schema', strict: true, schema: {} } },
    };
    const events = parseSse(await (await post(body, { 'x-codex-turn-metadata': JSON.stringify({ thread_source: 'thread_title' }) })).text());
    expect(JSON.parse(finalText(events) ?? '')).toEqual({ title: 'Mock task title' });
    expect(mock.requests()[0]?.kind).toBe('title');
  });

  it('makes a TOOL prompt call exec_command, then answers the follow-up with TOOL-RESULT', async () => {
    const events = parseSse(await (await post({ input: [...wrappers, user('TOOL echo hi')], tools })).text());
    const call = events.find((e) => e.type === 'response.output_item.done')?.item as { type: string; name: string; call_id: string; arguments: string };
    expect(call).toMatchObject({ type: 'function_call', name: 'exec_command' });
    expect(JSON.parse(call.arguments)).toEqual({ cmd: 'echo hi', login: false, yield_time_ms: 30000 });
    const followUp = [
      ...wrappers,
      user('TOOL echo hi'),
      { type: 'function_call', call_id: call.call_id, name: 'exec_command', arguments: call.arguments },
      {
        type: 'function_call_output',
        call_id: call.call_id,
        output: 'Chunk ID: a\nWall time: 0.0 seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nhi\n',
      },
    ];
    expect(finalText(parseSse(await (await post({ input: followUp, tools })).text()))).toBe('TOOL-RESULT: hi');
    expect(mock.requests().map((r) => r.kind)).toEqual(['turn', 'tool-result']);
  });

  it("makes a BGTOOL prompt call exec_command yielding after 250 ms (codex's least), so a longer command runs on as a background terminal", async () => {
    const events = parseSse(await (await post({ input: [...wrappers, user('BGTOOL sleep 30')], tools })).text());
    const call = events.find((e) => e.type === 'response.output_item.done')?.item as { arguments: string };
    expect(JSON.parse(call.arguments)).toEqual({ cmd: 'sleep 30', login: false, yield_time_ms: 250 });
  });

  it("makes BGAGENT/AGENT call spawn_agent in codex's multi_agent_v1 namespace, naming it; without that tool a text", async () => {
    const multi = [...tools, { type: 'namespace', name: 'multi_agent_v1', tools: [{ type: 'function', name: 'spawn_agent' }] }];
    for (const prompt of ['BGAGENT DELAY 20000 ECHO sub-done', 'AGENT DELAY 20000 ECHO sub-done']) {
      const events = parseSse(await (await post({ input: [...wrappers, user(prompt)], tools: multi })).text());
      const call = events.find((e) => e.type === 'response.output_item.done')?.item as { name: string; namespace: string; arguments: string };
      expect(call).toMatchObject({ name: 'spawn_agent', namespace: 'multi_agent_v1' });
      expect(JSON.parse(call.arguments)).toEqual({ message: 'DELAY 20000 ECHO sub-done' });
    }
    expect(finalText(parseSse(await (await post({ input: [...wrappers, user('BGAGENT ECHO x')], tools })).text()))).toBe('MOCK-NO-AGENT: ECHO x');
  });

  it('makes an ASK prompt request escalation (what shows the approval prompt)', async () => {
    const events = parseSse(await (await post({ input: [user('ASK touch /x')], tools })).text());
    const call = events.find((e) => e.type === 'response.output_item.done')?.item as { arguments: string };
    expect(JSON.parse(call.arguments)).toMatchObject({
      cmd: 'touch /x',
      sandbox_permissions: 'require_escalated',
      justification: 'Mock wants to run: touch /x',
    });
  });

  it('fails N times with an OpenAI error body, then recovers', async () => {
    const body = { input: [user('FAIL 429 x2 ECHO ok')], tools };
    for (let i = 0; i < 2; i++) {
      const res = await post(body);
      expect(res.status).toBe(429);
      expect((await res.json()) as any).toEqual({ error: { message: 'ECHO ok', type: 'requests', param: null, code: 'rate_limit_exceeded' } });
    }
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(finalText(parseSse(await res.text()))).toBe('ok');
    const five = await post({ input: [user('FAIL 500 boom')], tools });
    expect(five.status).toBe(500);
    expect(((await five.json()) as any as { error: { code: string } }).error.code).toBe('server_error');
  });

  it('a plain 429 has no retry-after and no rate-limit headers', async () => {
    const res = await post({ input: [user('FAIL 429 slow down')], tools });
    expect(res.status).toBe(429);
    expect((await res.json()) as any).toEqual({ error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' } });
    expect(res.headers.get('retry-after')).toBeNull();
    expect([...res.headers.keys()].filter((k) => k.startsWith('x-ratelimit') || k.startsWith('x-codex'))).toEqual([]);
  });

  it('FAIL 429 retry-after= reset= sends retry-after and the x-ratelimit-* headers (reset as a duration)', async () => {
    const res = await post({ input: [user('FAIL 429 retry-after=20 reset=90 Rate limit reached')], tools });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('20');
    expect(res.headers.get('x-ratelimit-reset-requests')).toBe('1m30s');
    expect(res.headers.get('x-ratelimit-reset-tokens')).toBe('1m30s');
    expect(res.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(Number(res.headers.get('x-ratelimit-limit-requests'))).toBeGreaterThan(0);
    expect(((await res.json()) as any).error).toMatchObject({ code: 'rate_limit_exceeded', message: 'Rate limit reached' });
  });

  it('type= replaces the code and type (insufficient_quota, invalid_api_key on 401)', async () => {
    const quota = await post({ input: [user('FAIL 429 type=insufficient_quota You exceeded your current quota')], tools });
    expect((await quota.json()) as any).toEqual({
      error: { message: 'You exceeded your current quota', type: 'insufficient_quota', param: null, code: 'insufficient_quota' },
    });
    const r401 = await post({ input: [user('FAIL 401 Incorrect API key provided')], tools });
    expect(r401.status).toBe(401);
    expect(((await r401.json()) as any).error).toMatchObject({ code: 'invalid_api_key', message: 'Incorrect API key provided' });
    const r403 = await post({ input: [user('FAIL 403 type=unsupported_country_region_territory Country not supported')], tools });
    expect(r403.status).toBe(403);
    expect(((await r403.json()) as any).error).toMatchObject({ code: 'unsupported_country_region_territory', type: 'unsupported_country_region_territory' });
  });

  it('FAIL 429 limit=usage is the ChatGPT plan limit: usage_limit_reached with resets_at and the x-codex-primary-* headers', async () => {
    const lo = Math.floor(Date.now() / 1000);
    const res = await post({ input: [user('FAIL 429 limit=usage reset=3600 The usage limit has been reached')], tools });
    const hi = Math.ceil(Date.now() / 1000);
    expect(res.status).toBe(429);
    const body = (await res.json()) as any;
    expect(body.error).toMatchObject({ type: 'usage_limit_reached', message: 'The usage limit has been reached', plan_type: 'plus' });
    expect(body.error.resets_at).toBeGreaterThanOrEqual(lo + 3600);
    expect(body.error.resets_at).toBeLessThanOrEqual(hi + 3600);
    expect(body.error.resets_in_seconds).toBeLessThanOrEqual(3600);
    expect(body.error.resets_in_seconds).toBeGreaterThanOrEqual(3600 - (hi - lo));
    expect(res.headers.get('x-codex-primary-used-percent')).toBe('100');
    expect(res.headers.get('x-codex-primary-window-minutes')).toBe('300');
    expect(res.headers.get('x-codex-primary-reset-at')).toBe(String(body.error.resets_at));
    expect(res.headers.get('retry-after')).toBeNull();
    const weekly = await post({ input: [user('FAIL 429 limit=weekly retry-after=60 weekly')], tools });
    expect(weekly.headers.get('x-codex-secondary-used-percent')).toBe('100');
    expect(weekly.headers.get('x-codex-secondary-window-minutes')).toBe('10080');
    expect(weekly.headers.get('retry-after')).toBe('60');
    expect(((await weekly.json()) as any).error.type).toBe('usage_limit_reached');
  });

  it('QUOTA reports plan usage on that and every later answer through x-codex-* headers, until setQuota(null)', async () => {
    const before = await post({ input: [user('ECHO before')], tools });
    expect([...before.headers.keys()].filter((k) => k.startsWith('x-codex'))).toEqual([]);
    await before.text();
    const res = await post({ input: [user('QUOTA 5h=42@3600 7d=13 ECHO with usage')], tools });
    expect(finalText(parseSse(await res.text()))).toBe('with usage');
    expect(res.headers.get('x-codex-primary-used-percent')).toBe('42');
    expect(res.headers.get('x-codex-primary-window-minutes')).toBe('300');
    expect(Number(res.headers.get('x-codex-primary-reset-after-seconds'))).toBeLessThanOrEqual(3600);
    expect(res.headers.get('x-codex-secondary-used-percent')).toBe('13');
    expect(res.headers.get('x-codex-secondary-window-minutes')).toBe('10080');
    const later = await post({ input: [user('ECHO later')], tools });
    expect(later.headers.get('x-codex-primary-reset-at')).toBe(res.headers.get('x-codex-primary-reset-at'));
    await later.text();
    (mock as Mock & { setQuota: (q: unknown) => void }).setQuota(null);
    const after = await post({ input: [user('ECHO after')], tools });
    expect(after.headers.get('x-codex-primary-used-percent')).toBeNull();
    await after.text();
  });

  it('serves the ChatGPT backend routes a ChatGPT login asks: wham/accounts/check, wham/usage (the plan usage), a refused oauth/token refresh', async () => {
    const origin = mock.url.replace(/\/v1$/, '');
    const check = await fetch(`${origin}/backend-api/wham/accounts/check`, { headers: { 'chatgpt-account-id': 'acct-x' } });
    expect(check.status).toBe(200);
    expect((await check.json()) as any).toEqual({
      accounts: [{ id: 'acct-x', plan_type: 'plus', workspace_backend_origin: 'https://chatgpt.com', account_routing_override: 'NO_CONSTRAINT' }],
      account_ordering: ['acct-x'],
    });
    const none: any = await (await fetch(`${origin}/backend-api/wham/usage`)).json();
    expect(none.rate_limit).toEqual({ allowed: true, limit_reached: false, primary_window: null, secondary_window: null });
    (mock as Mock & { setQuota: (q: unknown) => void }).setQuota({ '5h': { percent: 100, resetsInSeconds: 600 } });
    const used: any = await (await fetch(`${origin}/backend-api/wham/usage`)).json();
    expect(used).toMatchObject({
      plan_type: 'plus',
      rate_limit: { allowed: false, limit_reached: true, primary_window: { used_percent: 100, limit_window_seconds: 18000 } },
    });
    expect(used.rate_limit.primary_window.reset_after_seconds).toBeLessThanOrEqual(600);
    const refresh = await fetch(`${origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"grant_type":"refresh_token"}',
    });
    expect(refresh.status).toBe(401);
    expect(((await refresh.json()) as any).error.code).toBe('refresh_token_expired');
  });

  it('queue(): a queued error plan takes account options and extra headers', async () => {
    mock.queue({ kind: 'error', status: 429, message: 'queued', account: { retryAfter: '5' }, headers: { 'x-extra': 'yes' } });
    const res = await post({ input: [user('ECHO directive')], tools });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.headers.get('x-extra')).toBe('yes');
    await res.text();
    const next = await post({ input: [user('ECHO directive')], tools });
    expect(finalText(parseSse(await next.text()))).toBe('directive');
  });

  it('replies to a long prompt with its digest and to LONG with n characters', async () => {
    const long = 'x'.repeat(1000);
    expect(finalText(parseSse(await (await post({ input: [user(long)], tools })).text()))).toMatch(/^MOCK-REPLY: len=1000 sha256=[0-9a-f]{16}$/);
    const events = parseSse(await (await post({ input: [user('LONG 1000')], tools })).text());
    expect(finalText(events)).toHaveLength(1000);
    expect(events.filter((e) => e.type === 'response.output_text.delta')).toHaveLength(3);
  });

  it('honours DELAY and lets a queued reply override the next turn', async () => {
    mock.queue('ECHO queued');
    expect(finalText(parseSse(await (await post({ input: [user('anything')], tools })).text()))).toBe('queued');
    const t0 = Date.now();
    expect(finalText(parseSse(await (await post({ input: [user('DELAY 300 ECHO later')], tools })).text()))).toBe('later');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it('serves GET /models and 404s other routes', async () => {
    const models = (await (await fetch(`${mock.url}/models`)).json()) as { data: { id: string }[] };
    expect(models.data[0]?.id).toBe('mock-model');
    expect((await fetch(`${mock.url}/chat/completions`, { method: 'POST', body: '{}' })).status).toBe(404);
  });
});

describe('classifyRequest', () => {
  it('is a turn again once a new user prompt follows a tool output', () => {
    const input = [
      user('TOOL x'),
      { type: 'function_call_output', call_id: 'c', output: 'Output:\nx' },
      { type: 'message', role: 'assistant', content: [] },
      user('next'),
    ];
    expect(classifyRequest({ input, tools })).toEqual({ kind: 'turn', prompt: 'next' });
  });
});

describe('as a script', () => {
  it('prints {url,port}, serves, and exits on SIGTERM', async () => {
    const child = spawn(process.execPath, [new URL('./openai-responses.mjs', import.meta.url).pathname], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString())));
    const { url, port } = JSON.parse(line) as { url: string; port: number };
    expect(url).toBe(`http://127.0.0.1:${port}/v1`);
    const res = await fetch(`${url}/responses`, { method: 'POST', body: JSON.stringify({ input: [user('ECHO up')], tools }) });
    expect(finalText(parseSse(await res.text()))).toBe('up');
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
