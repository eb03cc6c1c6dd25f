// The model client of the fake `gemini`: the same requests the real CLI sends to
// `$GOOGLE_GEMINI_BASE_URL/v1beta/models/<m>:streamGenerateContent?alt=sse` (reference gemini.md §1.2),
// so test-fixtures/mock-servers/gemini.mjs answers both. Without a base URL the fake starts that mock
// in-process. 429/499/5xx are retried (general.maxAttempts, default 10) with a short backoff
// (FAKE_GEMINI_RETRY_MS, default 200; the real one waits ~5 s, 11 s, 22 s, 30 s …).
import { startGeminiMock } from '../mock-servers/gemini.mjs';

let local;

async function baseUrl(env) {
  if (env.GOOGLE_GEMINI_BASE_URL) return env.GOOGLE_GEMINI_BASE_URL.replace(/\/+$/, '');
  local ??= await startGeminiMock();
  return local.url;
}

/** Close the in-process mock (if any). */
export async function closeModel() {
  if (local) await local.close();
  local = undefined;
}

const RETRYABLE = new Set([429, 499, 500, 502, 503, 504]);

/**
 * One model step. Resolves {kind:'text', text} | {kind:'tool', call} | {kind:'error', status, body}
 * | {kind:'aborted'}.
 */
export async function modelStep({ contents, model, env, signal, maxAttempts = 10 }) {
  const url = `${await baseUrl(env)}/v1beta/models/${model}:streamGenerateContent?alt=sse`;
  const body = JSON.stringify({
    contents,
    tools: [{ functionDeclarations: [{ name: 'run_shell_command' }, { name: 'read_file' }, { name: 'write_file' }] }],
    generationConfig: { temperature: 1, topP: 0.95, topK: 64, thinkingConfig: { includeThoughts: true, thinkingLevel: 'HIGH' } },
  });
  for (let attempt = 1; ; attempt++) {
    let res;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': env.GEMINI_API_KEY ?? '', 'user-agent': `GeminiCLI-tui/0.61.0/${model} (fake)` },
        body,
        signal,
      });
    } catch (error) {
      if (signal?.aborted) return { kind: 'aborted' };
      if (attempt >= maxAttempts) return { kind: 'error', status: 0, body: String(error?.message ?? error) };
      await backoff(env, signal);
      continue;
    }
    if (res.status !== 200) {
      const text = await res.text().catch(() => '');
      if (RETRYABLE.has(res.status) && attempt < maxAttempts) {
        await backoff(env, signal);
        if (signal?.aborted) return { kind: 'aborted' };
        continue;
      }
      return { kind: 'error', status: res.status, body: text };
    }
    let raw;
    try {
      raw = await res.text();
    } catch {
      return { kind: 'aborted' };
    }
    if (signal?.aborted) return { kind: 'aborted' };
    let text = '';
    let call;
    for (const block of raw.split(/\r?\n\r?\n/)) {
      if (!block.startsWith('data: ')) continue;
      const ev = JSON.parse(block.slice(6));
      for (const part of ev.candidates?.[0]?.content?.parts ?? []) {
        if (typeof part.text === 'string' && !part.thought) text += part.text;
        if (part.functionCall) call = part.functionCall;
      }
    }
    return call ? { kind: 'tool', call, text } : { kind: 'text', text };
  }
}

function backoff(env, signal) {
  const ms = Number(env.FAKE_GEMINI_RETRY_MS ?? 200);
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
}
