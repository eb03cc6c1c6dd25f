import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error untyped ESM fixture
import { classifyRequest, MOCK_TITLE, shellArguments, startChatMock } from './openai-chat.mjs';

type Json = Record<string, any>;
type Mock = { url: string; port: number; queue(r: unknown): void; requests(): Json[]; close(): Promise<void> };

/** opencode 1.18.33's bash tool (trimmed): no `description` in its schema. */
const BASH = {
  type: 'function',
  function: {
    name: 'bash',
    description: 'Executes a given bash command',
    parameters: {
      type: 'object',
      properties: { command: { type: 'string' }, timeout: { type: 'integer' }, workdir: { type: 'string' } },
      required: ['command'],
    },
  },
};
const TOOLS = [BASH, { type: 'function', function: { name: 'read', parameters: { type: 'object', properties: {} } } }];
const SYSTEM = { role: 'system', content: 'You are opencode, an interactive CLI tool that helps users with software engineering tasks.' };
const REMINDER = '<system-reminder>\n# Plan Mode - System Reminder\n\nCRITICAL: Plan mode ACTIVE\n</system-reminder>\n';

const body = (messages: Json[], extra: Json = {}) => ({
  model: 'mock-model',
  max_tokens: 32000,
  messages,
  tools: TOOLS,
  tool_choice: 'auto',
  stream: true,
  stream_options: { include_usage: true },
  ...extra,
});

/** The `data:` payloads of an SSE body, `[DONE]` kept as a string. */
function sseData(text: string): (Json | string)[] {
  expect(text.endsWith('\n\n')).toBe(true);
  return text
    .split('\n\n')
    .filter((b) => b !== '')
    .map((b) => {
      expect(b.startsWith('data: ')).toBe(true);
      const d = b.slice('data: '.length);
      return d === '[DONE]' ? d : (JSON.parse(d) as Json);
    });
}
const chunks = (data: (Json | string)[]) => data.filter((d): d is Json => typeof d !== 'string');
const streamedText = (data: (Json | string)[]) =>
  chunks(data)
    .map((c) => c.choices?.[0]?.delta?.content ?? '')
    .join('');

describe('OpenAI chat-completions mock', () => {
  let mock: Mock;
  let dir: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'openai-chat-mock-'));
    mock = await startChatMock({ logFile: join(dir, 'log.jsonl') });
  });
  afterEach(async () => {
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (b: unknown, headers: Record<string, string> = {}) =>
    fetch(`${mock.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-mock-key', ...headers },
      body: JSON.stringify(b),
    });

  it('streams a text answer as chat.completion.chunk events, usage, then [DONE] (on 127.0.0.1)', async () => {
    expect(mock.url).toBe(`http://127.0.0.1:${mock.port}/v1`);
    const res = await post(body([SYSTEM, { role: 'user', content: 'ECHO hello\nworld ünï 🎉' }]));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const data = sseData(await res.text());
    expect(data.at(-1)).toBe('[DONE]');
    const c = chunks(data);
    expect(c[0]).toMatchObject({ object: 'chat.completion.chunk', model: 'mock-model', choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] });
    expect(streamedText(data)).toBe('hello\nworld ünï 🎉');
    expect(c.filter((x) => x.choices?.[0]?.delta?.content).length).toBeGreaterThan(1);
    const finish = c.find((x) => x.choices?.[0]?.finish_reason);
    expect(finish?.choices[0].finish_reason).toBe('stop');
    expect(c.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), total_tokens: expect.any(Number) },
    });
    expect(new Set(c.map((x) => x.id)).size).toBe(1);
  });

  it('answers stream:false with one chat.completion, and sends no usage chunk unless asked', async () => {
    const res = await post(body([{ role: 'user', content: 'ECHO plain' }], { stream: false, stream_options: undefined }));
    expect(res.headers.get('content-type')).toContain('application/json');
    const j = (await res.json()) as Json;
    expect(j).toMatchObject({ object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'plain' }, finish_reason: 'stop' }] });
    expect(j.usage.total_tokens).toBe(j.usage.prompt_tokens + j.usage.completion_tokens);
    const data = sseData(await (await post(body([{ role: 'user', content: 'ECHO x' }], { stream_options: undefined }))).text());
    expect(chunks(data).some((x) => x.usage)).toBe(false);
  });

  it('takes the prompt byte-exact from the last user message, without system-reminder parts', async () => {
    const prompt = '  ECHO lead\n\ttab  ';
    const content = [
      { type: 'text', text: prompt },
      { type: 'text', text: REMINDER },
    ];
    const res = await post(body([SYSTEM, { role: 'user', content: 'ECHO first' }, { role: 'assistant', content: 'first' }, { role: 'user', content }]));
    await res.text();
    const [req] = mock.requests();
    expect(req).toMatchObject({ kind: 'turn', prompt, method: 'POST', path: '/v1/chat/completions' });
    // MOCK-REPLY keeps the whitespace too
    expect(streamedText(sseData(await (await post(body([{ role: 'user', content: ' x ' }]))).text()))).toBe('MOCK-REPLY:  x ');
    const logged = readFileSync(join(dir, 'log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(logged[0].prompt).toBe(prompt);
    expect(logged[0].headers.authorization).toBe('[redacted]');
    expect(JSON.stringify(logged)).not.toContain('sk-mock-key');
  });

  it('takes the prompt without the <current_datetime> stamp GitHub Copilot CLI puts before it (recorded from 1.0.102)', async () => {
    const stamped = '<current_datetime>2026-12-05T16:10:32.977+00:00</current_datetime>\n\nECHO line one\nline two';
    const res = await post(body([SYSTEM, { role: 'user', content: stamped }]));
    expect(streamedText(sseData(await res.text()))).toBe('line one\nline two');
    expect(mock.requests()[0]).toMatchObject({ kind: 'turn', prompt: 'ECHO line one\nline two' });
    // only a leading stamp is Copilot's: one inside the prompt is the prompt's text
    expect(classifyRequest({ messages: [{ role: 'user', content: `x ${stamped}` }] }).prompt).toBe(`x ${stamped}`);
  });

  it('answers the title side request with the mock title and logs it as kind "title"', async () => {
    const title = [
      { role: 'system', content: 'You are a title generator. You output ONLY a thread title. Nothing else.' },
      { role: 'user', content: 'Generate a title for this conversation:\n' },
      { role: 'user', content: 'FAIL 500 would fail' },
    ];
    const data = sseData(await (await post({ model: 'mock-model', messages: title, stream: true })).text());
    expect(streamedText(data)).toBe(MOCK_TITLE);
    expect(mock.requests()[0]).toMatchObject({ kind: 'title', prompt: 'FAIL 500 would fail' });
  });

  it("makes TOOL call opencode's bash tool, then answers the tool result with TOOL-RESULT", async () => {
    const user = { role: 'user', content: 'TOOL echo hi' };
    const data = sseData(await (await post(body([SYSTEM, user]))).text());
    const c = chunks(data);
    const first = c.find((x) => x.choices?.[0]?.delta?.tool_calls)?.choices[0].delta.tool_calls[0];
    expect(first).toMatchObject({ index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'bash', arguments: '' } });
    const args = c
      .flatMap((x) => x.choices?.[0]?.delta?.tool_calls ?? [])
      .map((t: Json) => t.function?.arguments ?? '')
      .join('');
    expect(JSON.parse(args)).toEqual({ command: 'echo hi' });
    expect(c.find((x) => x.choices?.[0]?.finish_reason)?.choices[0].finish_reason).toBe('tool_calls');
    const call = { id: first.id, type: 'function', function: { name: 'bash', arguments: args } };
    const followUp = body([SYSTEM, user, { role: 'assistant', content: '', tool_calls: [call] }, { role: 'tool', tool_call_id: first.id, content: 'hi\n' }]);
    expect(streamedText(sseData(await (await post(followUp)).text()))).toBe('TOOL-RESULT: hi');
    expect(mock.requests().map((r) => r.kind)).toEqual(['turn', 'tool-result']);
    expect(mock.requests()[1]).toMatchObject({ callId: first.id, toolOutput: 'hi\n' });
  });

  it("calls Qwen Code's shell tool run_shell_command when the request offers it instead of bash", async () => {
    const qwenShell = { type: 'function', function: { name: 'run_shell_command', parameters: { properties: { command: {}, description: {} } } } };
    const data = sseData(await (await post(body([{ role: 'user', content: 'TOOL echo hi' }], { tools: [qwenShell] }))).text());
    const call = chunks(data).find((x) => x.choices?.[0]?.delta?.tool_calls)?.choices[0].delta.tool_calls[0];
    expect(call).toMatchObject({ function: { name: 'run_shell_command' } });
  });

  it("makes BGAGENT call Qwen Code's agent tool with run_in_background when the request offers it", async () => {
    const agent = { type: 'function', function: { name: 'agent', parameters: { properties: { description: {}, prompt: {} } } } };
    const data = sseData(await (await post(body([{ role: 'user', content: 'BGAGENT ECHO sub-done' }], { tools: [agent] }))).text());
    const call = chunks(data).find((x) => x.choices?.[0]?.delta?.tool_calls)?.choices[0].delta.tool_calls[0];
    expect(call).toMatchObject({ function: { name: 'agent' } });
    const args = chunks(data)
      .flatMap((x) => x.choices?.[0]?.delta?.tool_calls ?? [])
      .map((c: Json) => c.function?.arguments ?? '')
      .join('');
    expect(JSON.parse(args)).toEqual({
      description: 'Mock background agent',
      prompt: 'ECHO sub-done',
      subagent_type: 'general-purpose',
      run_in_background: true,
    });
  });

  it("calls opencode's and Copilot CLI's task tool with the arguments their schemas declare", async () => {
    const argsOf = async (prompt: string, tool: Json) => {
      const data = sseData(await (await post(body([{ role: 'user', content: prompt }], { tools: [tool] }))).text());
      const calls = chunks(data).flatMap((x) => x.choices?.[0]?.delta?.tool_calls ?? []);
      return { name: calls[0]?.function?.name, args: JSON.parse(calls.map((c: Json) => c.function?.arguments ?? '').join('')) };
    };
    const schema = (name: string, keys: string[]) => ({
      type: 'function',
      function: { name, parameters: { properties: Object.fromEntries(keys.map((k) => [k, {}])) } },
    });
    // opencode 1.18.33: {description, prompt, subagent_type, task_id, command} (+ background when its experimental flag is on)
    const opencode = schema('task', ['description', 'prompt', 'subagent_type', 'task_id', 'command']);
    expect(await argsOf('AGENT ECHO x', opencode)).toEqual({ name: 'task', args: { description: 'Mock agent', prompt: 'ECHO x', subagent_type: 'general' } });
    const experimental = schema('task', ['description', 'prompt', 'subagent_type', 'background']);
    expect((await argsOf('BGAGENT ECHO x', experimental)).args).toEqual({
      description: 'Mock background agent',
      prompt: 'ECHO x',
      subagent_type: 'general',
      background: true,
    });
    // Copilot CLI 1.0.102: {description, prompt, agent_type, name, mode: sync|background, …}
    const copilot = schema('task', ['description', 'prompt', 'agent_type', 'name', 'model', 'mode']);
    expect((await argsOf('BGAGENT ECHO x', copilot)).args).toEqual({
      description: 'Mock background agent',
      prompt: 'ECHO x',
      agent_type: 'general-purpose',
      name: 'mock-agent',
      mode: 'background',
    });
    expect((await argsOf('AGENT ECHO x', copilot)).args).toMatchObject({ mode: 'sync' });
  });

  it("answers the <task-notification> prompt Qwen Code sends by itself after a background agent by its <result>'s directives", async () => {
    // BGAGENT ECHO DELAY 200 ECHO notified: the agent answers `DELAY 200 ECHO notified`, which becomes the notification's <result>
    const notification = [
      '<task-notification>',
      '<task-id>general-purpose-call_1</task-id>',
      '<status>completed</status>',
      '<summary>Agent "Mock background agent" completed.</summary>',
      '<result>DELAY 200 ECHO notified</result>',
      '</task-notification>',
    ].join('\n');
    expect(streamedText(sseData(await (await post(body([{ role: 'user', content: notification }]))).text()))).toBe('notified');
    // without a <result>: the prompt itself, as any other
    const bare = '<task-notification>\n<status>completed</status>\n</task-notification>';
    expect(streamedText(sseData(await (await post(body([{ role: 'user', content: bare }]))).text()))).toBe(`MOCK-REPLY: ${bare}`);
  });

  it('answers AGENT in text when the request offers no agent tool', async () => {
    const data = sseData(await (await post(body([{ role: 'user', content: 'AGENT ECHO x' }], { tools: [] }))).text());
    expect(streamedText(data)).toBe('MOCK-NO-AGENT: ECHO x');
  });

  it('adds a description to the shell call only when the tool schema declares one', () => {
    expect(shellArguments(BASH, 'ls')).toEqual({ command: 'ls' });
    const withDescription = { function: { name: 'bash', parameters: { properties: { command: {}, description: {} } } } };
    expect(shellArguments(withDescription, 'ls -la')).toEqual({ command: 'ls -la', description: 'Run ls -la' });
  });

  it('says so in text when TOOL has no bash tool to call', async () => {
    const data = sseData(await (await post(body([{ role: 'user', content: 'TOOL ls' }], { tools: [] }))).text());
    expect(streamedText(data)).toBe('MOCK-NO-TOOL: the request offers no bash tool to run: ls');
  });

  it('fails with OpenAI error bodies: 400, 401, 403, 500', async () => {
    const cases: [number, Json][] = [
      [400, { message: 'bad thing', type: 'invalid_request_error', param: null, code: null }],
      [401, { message: 'bad thing', type: 'invalid_request_error', param: null, code: 'invalid_api_key' }],
      [403, { message: 'bad thing', type: 'invalid_request_error', param: null, code: 'unsupported_country_region_territory' }],
      [500, { message: 'bad thing', type: 'server_error', param: null, code: 'server_error' }],
    ];
    for (const [status, error] of cases) {
      const res = await post(body([{ role: 'user', content: `FAIL ${status} bad thing` }]));
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.headers.get('retry-after')).toBeNull();
      expect(await res.json()).toEqual({ error });
    }
  });

  it('fails a 429 N times with the asked retry headers, then answers the rest of the prompt', async () => {
    const prompt = 'FAIL 429 x2 retry-after=2 reset-requests=3s reset-tokens=1s ECHO recovered';
    for (let i = 0; i < 2; i++) {
      const res = await post(body([{ role: 'user', content: prompt }]));
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('2');
      expect(res.headers.get('x-ratelimit-reset-requests')).toBe('3s');
      expect(res.headers.get('x-ratelimit-reset-tokens')).toBe('1s');
      expect(await res.json()).toEqual({ error: { message: 'ECHO recovered', type: 'requests', param: null, code: 'rate_limit_exceeded' } });
    }
    const ok = await post(body([{ role: 'user', content: prompt }]));
    expect(ok.status).toBe(200);
    expect(streamedText(sseData(await ok.text()))).toBe('recovered');
    const plain = await post(body([{ role: 'user', content: 'FAIL 429 x1 slow down' }]));
    expect(plain.status).toBe(429);
    expect(plain.headers.get('retry-after')).toBeNull();
    expect(plain.headers.get('x-ratelimit-reset-requests')).toBeNull();
    const ms = await post(body([{ role: 'user', content: 'FAIL 429 retry-after-ms=1500 wait' }]));
    expect(ms.headers.get('retry-after-ms')).toBe('1500');
    expect(((await ms.json()) as Json).error.message).toBe('wait');
  });

  it('lets a queued reply (text, tool, or error with headers) win over the prompt, FIFO', async () => {
    mock.queue('ECHO queued');
    mock.queue({ status: 429, message: 'queued limit', headers: { 'retry-after': '7' } });
    expect(() => mock.queue({ bogus: true })).toThrow(/unsupported reply/);
    expect(streamedText(sseData(await (await post(body([{ role: 'user', content: 'anything' }]))).text()))).toBe('queued');
    const res = await post(body([{ role: 'user', content: 'anything' }]));
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(streamedText(sseData(await (await post(body([{ role: 'user', content: 'ECHO back' }]))).text()))).toBe('back');
  });

  it('honours DELAY and LONG (several chunks)', async () => {
    const t0 = Date.now();
    expect(streamedText(sseData(await (await post(body([{ role: 'user', content: 'DELAY 300 ECHO later' }]))).text()))).toBe('later');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    const data = sseData(await (await post(body([{ role: 'user', content: 'LONG 1000' }]))).text());
    expect(streamedText(data)).toHaveLength(1000);
  });

  it('serves GET /v1/models, 404s other routes, 400s a body that is not JSON', async () => {
    const models = (await (await fetch(`${mock.url}/models`)).json()) as Json;
    expect(models.object).toBe('list');
    expect(models.data.map((m: Json) => m.id)).toEqual(['mock-model', 'mock-model-2']);
    const nf = await fetch(`${mock.url}/responses`, { method: 'POST', body: '{}' });
    expect(nf.status).toBe(404);
    expect(((await nf.json()) as Json).error.message).toContain('no route POST /v1/responses');
    const bad = await fetch(`${mock.url}/chat/completions`, { method: 'POST', body: 'not json' });
    expect(bad.status).toBe(400);
    expect(mock.requests().map((r) => r.kind)).toEqual(['models', 'other', 'bad']);
  });
});

describe('classifyRequest', () => {
  it('is a turn again once a new user prompt follows a tool result', () => {
    const messages = [
      { role: 'user', content: 'TOOL x' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'x' },
      { role: 'assistant', content: 'TOOL-RESULT: x' },
      { role: 'user', content: [{ type: 'text', text: 'next' }] },
    ];
    expect(classifyRequest({ messages, tools: TOOLS })).toEqual({ kind: 'turn', prompt: 'next' });
    expect(classifyRequest({ messages: [SYSTEM] })).toEqual({ kind: 'empty' });
  });
});

describe('as a script', () => {
  it('prints {url,port}, serves, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [new URL('./openai-chat.mjs', import.meta.url).pathname], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString())));
    const { url, port } = JSON.parse(line) as { url: string; port: number };
    expect(url).toBe(`http://127.0.0.1:${port}/v1`);
    const res = await fetch(`${url}/chat/completions`, { method: 'POST', body: JSON.stringify(body([{ role: 'user', content: 'ECHO up' }])) });
    expect(streamedText(sseData(await res.text()))).toBe('up');
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
