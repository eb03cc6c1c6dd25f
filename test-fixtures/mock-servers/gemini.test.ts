/**
 * Tests of the Gemini API mock (test-fixtures/mock-servers/gemini.mjs) over real HTTP on 127.0.0.1.
 * Request shapes follow what the real gemini 0.61.0 sends (reference gemini.md §1.2).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM fixture without types
import { extractPrompt, shellOutput, startGeminiMock } from './gemini.mjs';

const here = dirname(fileURLToPath(import.meta.url));
type Mock = Awaited<ReturnType<typeof startGeminiMock>>;
type Json = Record<string, any>;

let mock: Mock;
let dir: string;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gemini-mock-test-'));
  mock = await startGeminiMock({ logFile: join(dir, 'requests.jsonl') });
});
afterEach(async () => {
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
});

const SESSION_CONTEXT = '<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n</session_context>';

function turnBody(prompt: string, history: Json[] = []): Json {
  const first = history.length === 0;
  return {
    contents: [...history, { role: 'user', parts: first ? [{ text: SESSION_CONTEXT }, { text: prompt }] : [{ text: prompt }] }],
    tools: [{ functionDeclarations: [{ name: 'run_shell_command' }] }],
    generationConfig: { temperature: 1, topP: 0.95, topK: 64, thinkingConfig: { includeThoughts: true, thinkingLevel: 'HIGH' } },
  };
}

async function post(path: string, body: Json): Promise<Response> {
  return fetch(`${mock.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': 'test' },
    body: JSON.stringify(body),
  });
}

/** POST a streamGenerateContent?alt=sse and parse its events. */
async function stream(body: Json, model = 'gemini-3.8-flash', prefix = '/v1beta'): Promise<{ status: number; events: Json[]; raw: string }> {
  const res = await post(`${prefix}/models/${model}:streamGenerateContent?alt=sse`, body);
  const raw = await res.text();
  if (res.status !== 200) return { status: res.status, events: [], raw };
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const events = raw
    .split('\r\n\r\n')
    .filter((b) => b.startsWith('data: '))
    .map((b) => JSON.parse(b.slice(6)));
  return { status: res.status, events, raw };
}

const textOf = (events: Json[]) => events.flatMap((e) => e.candidates[0].content.parts.map((p: Json) => p.text ?? '')).join('');

describe('streamGenerateContent (SSE)', () => {
  it('answers ECHO with the exact text, skipping the <session_context> part, ending with STOP', async () => {
    const { events, raw } = await stream(turnBody('ECHO line one\nline "two" $x `y` \\ ü 🚀'));
    expect(textOf(events)).toBe('line one\nline "two" $x `y` \\ ü 🚀');
    expect(events.at(-1)?.candidates[0].finishReason).toBe('STOP');
    expect(events.at(-1)?.usageMetadata.totalTokenCount).toBeGreaterThan(0);
    expect(raw.endsWith('\r\n\r\n')).toBe(true);
  });

  it('answers other prompts with MOCK-REPLY and long prompts with a digest', async () => {
    expect(textOf((await stream(turnBody('say hi'))).events)).toBe('MOCK-REPLY: say hi');
    const long = 'x'.repeat(300);
    expect(textOf((await stream(turnBody(long))).events)).toMatch(/^MOCK-REPLY: len=300 sha256=[0-9a-f]{16}$/);
  });

  it('splits LONG replies into several chunks that join to the exact length', async () => {
    const { events } = await stream(turnBody('LONG 1000'));
    expect(events.length).toBeGreaterThan(1);
    expect(textOf(events)).toHaveLength(1000);
  });

  it('accepts any path prefix (v1, custom prefix, vertex publishers path)', async () => {
    for (const prefix of ['/v1', '/some/prefix/v1beta', '/v1beta1/publishers/google']) {
      expect(textOf((await stream(turnBody('ECHO p'), 'm', prefix)).events)).toBe('p');
    }
  });

  it('drops the @file expansion from the prompt', async () => {
    const body = {
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'ECHO see @a.txt now' },
            { text: '\n--- Content from referenced files ---' },
            { text: '\nContent from @a.txt:\n' },
            { text: 'body' },
            { text: '\n--- End of content ---' },
          ],
        },
      ],
    };
    expect(textOf((await stream(body)).events)).toBe('see @a.txt now');
  });

  it('calls run_shell_command for TOOL, then answers the functionResponse with TOOL-RESULT', async () => {
    const first = await stream(turnBody('TOOL echo hi'));
    const call = first.events[0]?.candidates[0].content.parts[0].functionCall;
    expect(call).toEqual({ name: 'run_shell_command', args: { command: 'echo hi', description: 'Run echo hi' } });
    const history = [
      { role: 'user', parts: [{ text: SESSION_CONTEXT }, { text: 'TOOL echo hi' }] },
      { role: 'model', parts: [{ functionCall: call, thoughtSignature: 'skip_thought_signature_validator' }] },
    ];
    const followUp = {
      contents: [
        ...history,
        {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: 'c1',
                name: 'run_shell_command',
                response: { output: '<untrusted_context>\nOutput: hi\nProcess Group PGID: 42\n</untrusted_context>' },
              },
            },
          ],
        },
      ],
    };
    expect(textOf((await stream(followUp)).events)).toBe('TOOL-RESULT: hi');
    const empty = structuredClone(followUp);
    (empty as any).contents[2].parts[0].functionResponse.response.output = '<untrusted_context>\nOutput: (empty)\nProcess Group PGID: 43\n</untrusted_context>';
    expect(textOf((await stream(empty)).events)).toBe('TOOL-RESULT: (empty)');
    expect(mock.requests().map((r: Json) => r.kind)).toEqual(['turn', 'tool-followup', 'tool-followup']);
  });

  it("calls invoke_agent (the generalist) for AGENT/BGAGENT when offered; in a subagent's request (complete_task offered) a text is a complete_task call", async () => {
    const offered = (names: string[], prompt: string, extra: Json = {}) => ({
      ...turnBody(prompt),
      tools: [{ functionDeclarations: names.map((name) => ({ name, ...(extra[name] ?? {}) })) }],
    });
    for (const prompt of ['AGENT DELAY 10 ECHO sub-done', 'BGAGENT DELAY 10 ECHO sub-done']) {
      const call = (await stream(offered(['run_shell_command', 'invoke_agent'], prompt))).events[0]?.candidates[0].content.parts[0].functionCall;
      expect(call).toEqual({ name: 'invoke_agent', args: { agent_name: 'generalist', prompt: 'DELAY 10 ECHO sub-done' } });
    }
    expect(textOf((await stream(turnBody('AGENT ECHO x'))).events)).toBe('MOCK-NO-AGENT: ECHO x');
    // the generalist's complete_task: {result: {response}} required, wait_for_previous not
    const schema = {
      parametersJsonSchema: {
        type: 'object',
        properties: { result: { type: 'object', properties: { response: { type: 'string' } }, required: ['response'] }, wait_for_previous: { type: 'string' } },
        required: ['result'],
      },
    };
    const done = (await stream(offered(['complete_task'], 'ECHO sub-done', { complete_task: schema }))).events[0]?.candidates[0].content.parts[0].functionCall;
    expect(done).toEqual({ name: 'complete_task', args: { result: { response: 'sub-done' } } });
  });

  it('fails with a Google-style error, and recovers after xN attempts', async () => {
    const bad = await stream(turnBody('FAIL 400 bad thing'));
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.raw)).toEqual({ error: { code: 400, message: 'bad thing', status: 'INVALID_ARGUMENT' } });
    const body = turnBody('FAIL 503 x2 ECHO back');
    expect((await stream(body)).status).toBe(503);
    expect((await stream(body)).status).toBe(503);
    const ok = await stream(body);
    expect(ok.status).toBe(200);
    expect(textOf(ok.events)).toBe('back');
  });

  it('a plain 429 is RESOURCE_EXHAUSTED with no details and no retry-after', async () => {
    const res = await post('/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse', turnBody('FAIL 429 slow down'));
    expect(res.status).toBe(429);
    expect((await res.json()) as any).toEqual({ error: { code: 429, message: 'slow down', status: 'RESOURCE_EXHAUSTED' } });
    expect(res.headers.get('retry-after')).toBeNull();
  });

  it('FAIL 429 reset= adds a per-minute QuotaFailure and a RetryInfo retryDelay; retry-after= a header', async () => {
    const res = await post('/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse', turnBody('FAIL 429 reset=37 retry-after=37 Please retry in 37s.'));
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('37');
    const { error } = (await res.json()) as any;
    expect(error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED', message: 'Please retry in 37s.' });
    expect(error.details).toEqual([
      expect.objectContaining({
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [expect.objectContaining({ quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier' })],
      }),
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '37s' },
    ]);
  });

  it('FAIL 429 limit=usage is the per-day quota (QuotaFailure GenerateRequestsPerDay…)', async () => {
    const res = await post('/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse', turnBody('FAIL 429 limit=usage You exceeded your current quota'));
    const { error } = (await res.json()) as any;
    expect(error.details).toEqual([
      expect.objectContaining({
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [expect.objectContaining({ quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier' })],
      }),
    ]);
  });

  it('401 / 403 carry UNAUTHENTICATED / PERMISSION_DENIED; type= adds an ErrorInfo reason (a bad key is a 400)', async () => {
    const r401 = await post(
      '/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse',
      turnBody('FAIL 401 Request had invalid authentication credentials.'),
    );
    expect(r401.status).toBe(401);
    expect(((await r401.json()) as any).error).toEqual({ code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' });
    const r403 = await post('/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse', turnBody('FAIL 403 Permission denied'));
    expect(((await r403.json()) as any).error.status).toBe('PERMISSION_DENIED');
    const badKey = await post(
      '/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse',
      turnBody('FAIL 400 type=API_KEY_INVALID API key not valid. Please pass a valid API key.'),
    );
    expect(badKey.status).toBe(400);
    expect(((await badKey.json()) as any).error).toEqual({
      code: 400,
      message: 'API key not valid. Please pass a valid API key.',
      status: 'INVALID_ARGUMENT',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'API_KEY_INVALID',
          domain: 'googleapis.com',
          metadata: { service: 'generativelanguage.googleapis.com' },
        },
      ],
    });
  });

  it('serves a queued reply before the directives', async () => {
    mock.queue('forced answer');
    expect(textOf((await stream(turnBody('ECHO ignored'))).events)).toBe('forced answer');
    expect(textOf((await stream(turnBody('ECHO next'))).events)).toBe('next');
  });

  it('waits for DELAY, and notices a client that gives up (Esc cancel)', async () => {
    const res = await fetch(`${mock.url}/v1beta/models/m:streamGenerateContent?alt=sse`, {
      method: 'POST',
      body: JSON.stringify(turnBody('DELAY 60000 ECHO late')),
      signal: AbortSignal.timeout(300),
    }).catch((e: Error) => e);
    expect(res).toBeInstanceOf(Error);
    // the aborted request is logged as aborted once the server sees the disconnect
    const deadline = Date.now() + 30_000;
    while (!mock.requests().some((r: Json) => r.aborted) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(mock.requests().some((r: Json) => r.aborted)).toBe(true);
  });
});

describe('generateContent utility calls', () => {
  it('answers the routing classifier with JSON that picks flash', async () => {
    const res = await post('/v1beta/models/gemini-3.5-flash-lite:generateContent', {
      systemInstruction: { parts: [{ text: 'You are a specialized Task Routing AI. …' }] },
      contents: [{ role: 'user', parts: [{ text: 'say hi' }] }],
      generationConfig: {
        responseMimeType: 'application/json',
        responseJsonSchema: { type: 'object', properties: { complexity_reasoning: { type: 'string' }, complexity_score: { type: 'integer' } } },
      },
    });
    const json = (await res.json()) as any;
    const answer = JSON.parse(json.candidates[0].content.parts[0].text);
    expect(answer).toMatchObject({ complexity_score: 10, model_choice: 'flash' });
    expect(mock.requests()[0].kind).toBe('classifier');
  });

  it('answers the session summary and the next-speaker check', async () => {
    const summary = await post('/v1beta/models/gemini-3.5-flash-lite:generateContent', {
      contents: [{ role: 'user', parts: [{ text: "Summarize the user's primary intent or goal in this conversation in ONE sentence …" }] }],
    });
    expect(((await summary.json()) as any).candidates[0].content.parts[0].text).toBe('Mock session summary');
    const next = await post('/v1beta/models/gemini-3-flash-preview:generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'Analyze *only* the content and structure of your immediately preceding response …' }] }],
      generationConfig: {
        responseMimeType: 'application/json',
        responseJsonSchema: { type: 'object', properties: { reasoning: { type: 'string' }, next_speaker: { type: 'string', enum: ['model', 'user'] } } },
      },
    });
    expect(JSON.parse(((await next.json()) as any).candidates[0].content.parts[0].text).next_speaker).toBe('user');
  });

  it('builds other JSON-schema answers from the schema', async () => {
    const res = await post('/v1beta/models/x:generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'check' }] }],
      generationConfig: {
        responseMimeType: 'application/json',
        responseJsonSchema: { type: 'object', properties: { ok: { type: 'boolean' }, items: { type: 'array' }, n: { type: 'number' } } },
      },
    });
    expect(JSON.parse(((await res.json()) as any).candidates[0].content.parts[0].text)).toEqual({ ok: false, items: [], n: 0 });
  });

  it('answers a plain generateContent turn with the directives', async () => {
    const res = await post('/v1beta/models/x:generateContent', turnBody('ECHO plain'));
    expect(((await res.json()) as any).candidates[0].content.parts[0].text).toBe('plain');
  });
});

describe('other routes, logging, script mode', () => {
  it('serves countTokens, models and a Google-style 404', async () => {
    expect(((await (await post('/v1beta/models/x:countTokens', turnBody('abcd'))).json()) as any).totalTokens).toBeGreaterThan(0);
    const models: any = await (await fetch(`${mock.url}/v1beta/models`)).json();
    expect(models.models.length).toBeGreaterThan(0);
    expect(((await (await fetch(`${mock.url}/v1beta/models/gemini-3.8-flash`)).json()) as any).name).toBe('models/gemini-3.8-flash');
    const nf = await fetch(`${mock.url}/nope`);
    expect(nf.status).toBe(404);
    expect(((await nf.json()) as any).error.status).toBe('NOT_FOUND');
  });

  it('logs every request to the log file with prompt and api key header', async () => {
    await stream(turnBody('ECHO logged'));
    const lines = readFileSync(join(dir, 'requests.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: 'POST', rpc: 'streamGenerateContent', kind: 'turn', prompt: 'ECHO logged', model: 'gemini-3.8-flash' });
    expect(lines[0].headers['x-goog-api-key']).toBe('test');
  });

  it('extracts prompts and shell output like the real CLI sends them', () => {
    expect(extractPrompt({ contents: [{ role: 'user', parts: [{ text: '<hook_context>x</hook_context>' }, { text: 'hi' }] }] })).toBe('hi');
    expect(shellOutput('<untrusted_context>\nOutput: a\nb\nExit Code: 2\nProcess Group PGID: 1\n</untrusted_context>')).toBe('a\nb');
  });

  it('runs as a script: prints {url,port}, serves, exits on SIGTERM', async () => {
    const child = spawn(process.execPath, [join(here, 'gemini.mjs'), '--log', join(dir, 'script.jsonl')], { stdio: ['ignore', 'pipe', 'pipe'] });
    const line = await new Promise<string>((resolve, reject) => {
      let buf = '';
      child.stdout.on('data', (d) => {
        buf += d;
        if (buf.includes('\n')) resolve(buf.split('\n')[0] as string);
      });
      child.on('exit', () => reject(new Error(`exited early: ${buf}`)));
    });
    const { url, port } = JSON.parse(line);
    expect(url).toBe(`http://127.0.0.1:${port}`);
    const res = await fetch(`${url}/v1beta/models/m:streamGenerateContent?alt=sse`, { method: 'POST', body: JSON.stringify(turnBody('ECHO via script')) });
    expect(await res.text()).toContain('via script');
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(readFileSync(join(dir, 'script.jsonl'), 'utf8')).toContain('ECHO via script');
  });
});
