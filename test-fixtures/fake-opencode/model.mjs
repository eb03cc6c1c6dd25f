// The fake opencode's model client: POST <baseURL>/chat/completions like @ai-sdk/openai-compatible
// in opencode 1.18.33 (streamed SSE, bash tool, the title side request), API errors shaped like
// opencode's APIError, and its retry policy (SessionRetry: retry-after-ms, retry-after, else
// 2000·2^(n-1)·(1+0.25·rand); at most 5 retries). FACTS.md "The requests opencode sends", §b.
import { VERSION } from './config.mjs';

export const SYSTEM_PROMPT =
  'You are opencode, an interactive CLI tool that helps users with software engineering tasks. Use the instructions below and the tools available to you to assist the user.';
export const TITLE_SYSTEM =
  'You are a title generator. You output ONLY a thread title. Nothing else.\n\n<task>\nGenerate a brief title that would help the user find this conversation later.\n</task>\n';
export const PLAN_REMINDER =
  '<system-reminder>\n# Plan Mode - System Reminder\n\nCRITICAL: Plan mode ACTIVE - you are in READ-ONLY phase. STRICTLY FORBIDDEN:\nANY file edits, modifications, or system changes.\n</system-reminder>\n';

/** opencode 1.18.33's bash tool (its description shortened). */
export const BASH_TOOL = {
  type: 'function',
  function: {
    name: 'bash',
    description: 'Executes a given bash command in a persistent shell session with optional timeout.',
    parameters: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The command to execute' },
        timeout: { type: 'integer', description: 'Optional timeout in milliseconds' },
        workdir: { type: 'string', description: 'The working directory to run the command in.' },
      },
      required: ['command'],
    },
  },
};

const MAX_RETRIES = 5;

/** An opencode APIError (the `error` of session.error / message info / run's error line). */
export function apiError({ message, statusCode, isRetryable, responseHeaders, responseBody, url }) {
  return {
    name: 'APIError',
    data: {
      message,
      ...(statusCode !== undefined ? { statusCode } : {}),
      isRetryable,
      ...(responseHeaders ? { responseHeaders } : {}),
      ...(responseBody !== undefined ? { responseBody } : {}),
      metadata: { url },
    },
  };
}

/** Retry delay of attempt `n` for an APIError (SessionRetry.delay). */
export function retryDelay(n, error, rand = Math.random()) {
  const h = error?.data?.responseHeaders;
  if (h) {
    const ms = Number.parseFloat(h['retry-after-ms']);
    if (!Number.isNaN(ms)) return ms;
    if (h['retry-after'] !== undefined) {
      const s = Number.parseFloat(h['retry-after']);
      if (!Number.isNaN(s)) return Math.ceil(s * 1000);
      const at = Date.parse(h['retry-after']) - Date.now();
      if (!Number.isNaN(at) && at > 0) return Math.ceil(at);
    }
  }
  const base = 2000 * 2 ** (n - 1);
  const d = Math.ceil(base + base * 0.25 * rand);
  return h ? d : Math.min(d, 30000);
}

/** Parse an SSE body into its `data:` payloads. */
async function* sseData(body) {
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of body) {
    buf += decoder.decode(chunk, { stream: true });
    let at = buf.indexOf('\n\n');
    while (at >= 0) {
      const block = buf.slice(0, at);
      buf = buf.slice(at + 2);
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      if (data) yield data;
      at = buf.indexOf('\n\n');
    }
  }
}

/** One streamed request. Resolves {text, toolCalls, finish, usage}; throws an APIError object. */
async function requestOnce({ provider, modelID, messages, tools, sessionID, signal, onDelta, onStart }) {
  const base = String(provider.options?.baseURL ?? '').replace(/\/$/, '');
  const url = `${base}/chat/completions`;
  const body = {
    model: modelID,
    max_tokens: 32000,
    messages,
    ...(tools.length ? { tools, tool_choice: 'auto' } : {}),
    stream: true,
    stream_options: { include_usage: true },
  };
  let res;
  try {
    res = await fetch(url, {
      method: 'POST',
      signal,
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${provider.options?.apiKey ?? ''}`,
        'user-agent': `opencode/${VERSION} ai-sdk/provider-utils/4.0.23 runtime/node/fake`,
        ...(sessionID ? { 'x-session-id': sessionID, 'x-session-affinity': sessionID } : {}),
      },
      body: JSON.stringify(body),
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw apiError({ message: `Cannot connect to API: ${err?.cause?.code ?? err?.message ?? err}`, isRetryable: true, url });
  }
  if (!res.ok) {
    const text = await res.text();
    let message = text;
    try {
      message = JSON.parse(text)?.error?.message ?? text;
    } catch {}
    const s = res.status;
    throw apiError({
      message,
      statusCode: s,
      isRetryable: s === 408 || s === 409 || s === 429 || s >= 500,
      responseHeaders: Object.fromEntries(res.headers),
      responseBody: text,
      url,
    });
  }
  onStart?.();
  let text = '';
  let finish = 'stop';
  let usage;
  const calls = [];
  for await (const data of sseData(res.body)) {
    if (data === '[DONE]') break;
    const c = JSON.parse(data);
    if (c.usage) usage = c.usage;
    const ch = c.choices?.[0];
    if (!ch) continue;
    if (typeof ch.delta?.content === 'string' && ch.delta.content !== '') {
      text += ch.delta.content;
      onDelta?.(ch.delta.content);
    }
    for (const t of ch.delta?.tool_calls ?? []) {
      calls[t.index] ??= { id: t.id, name: t.function?.name, arguments: '' };
      if (t.id) calls[t.index].id = t.id;
      if (t.function?.name) calls[t.index].name = t.function.name;
      calls[t.index].arguments += t.function?.arguments ?? '';
    }
    if (ch.finish_reason) finish = ch.finish_reason;
  }
  return { text, toolCalls: calls.filter(Boolean), finish, usage };
}

/**
 * A request with opencode's retries. `onRetry({attempt, message, next})` is called before each
 * wait; `signal` aborts the wait and the request.
 */
export async function chat(opts) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await requestOnce(opts);
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      const retryable = err?.name === 'APIError' && (err.data.isRetryable || (err.data.statusCode ?? 0) >= 500);
      if (!retryable || attempt > MAX_RETRIES) throw err;
      const wait = retryDelay(attempt, err);
      opts.onRetry?.({ attempt, message: err.data.message, next: Date.now() + wait });
      await new Promise((resolve) => {
        const t = setTimeout(resolve, wait);
        opts.signal?.addEventListener('abort', () => {
          clearTimeout(t);
          resolve();
        });
      });
      if (opts.signal?.aborted) throw Object.assign(new Error('aborted'), { name: 'AbortError' });
    }
  }
}

/** The title side request (first prompt of a session). Errors are swallowed, as in opencode. */
export async function generateTitle({ provider, modelID, prompt, sessionID }) {
  try {
    const messages = [
      { role: 'system', content: TITLE_SYSTEM },
      { role: 'user', content: 'Generate a title for this conversation:\n' },
      { role: 'user', content: prompt },
    ];
    const r = await requestOnce({ provider, modelID, messages, tools: [], sessionID });
    return r.text.trim().split('\n')[0] || undefined;
  } catch {
    return undefined;
  }
}
