// The model client of the fake `gemini`: the same requests the real CLI sends to
// `$GOOGLE_GEMINI_BASE_URL/v1beta/models/<m>:streamGenerateContent?alt=sse` (reference gemini.md §1.2),
// so test-fixtures/mock-servers/gemini.mjs answers both. Without a base URL the fake starts that mock
// in-process. 429/499/5xx are retried (general.maxAttempts, default 10) with a short backoff
// (FAKE_GEMINI_RETRY_MS, default 200; the real one waits ~5 s, 11 s, 22 s, 30 s …). Errors are
// classified like the real one's (classifyError: a daily quota is terminal, a 429 retryable; the TUI
// then keeps retrying it, test-fixtures/real/ACCOUNT-FACTS.md §3).
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

/** What the real TUI and stream-json add under a used-up daily quota's `[API Error: …]`. */
export const DAILY_QUOTA_HINT =
  'Please wait and try again later. To increase your limits, request a quota increase through AI Studio, or switch to another /auth method';

/**
 * How the real CLI classifies an error answer (its classifyGoogleError, reference: ACCOUNT-FACTS.md):
 * a per-day QuotaFailure is a terminal quota error (never retried), a 429 otherwise a retryable one
 * (`Suggested retry after …` when RetryInfo or a per-minute quota says so); `message` is what
 * `-o json` reports (the raw body for anything that is not a quota error), `display` what the TUI
 * and stream-json show inside `[API Error: …]`, `hint` the line they add under it.
 */
export function classifyError(status, body) {
  let e;
  try {
    e = JSON.parse(body).error;
  } catch {
    e = undefined;
  }
  const details = Array.isArray(e?.details) ? e.details : [];
  const quotaFailure = details.find((d) => d?.['@type']?.endsWith('google.rpc.QuotaFailure'));
  const retryInfo = details.find((d) => d?.['@type']?.endsWith('google.rpc.RetryInfo'));
  const ids = (quotaFailure?.violations ?? []).map((v) => String(v.quotaId ?? ''));
  const quotaStatus = status === 429 || status === 499 || status === 503;
  if (quotaStatus && ids.some((id) => id.includes('PerDay') || id.includes('Daily'))) {
    const message = 'You have exhausted your daily quota on this model.';
    return { quota: 'terminal', message, display: message, hint: DAILY_QUOTA_HINT };
  }
  if (quotaStatus && e) {
    const after = retryInfo?.retryDelay ?? (ids.some((id) => id.includes('PerMinute')) ? '60s' : undefined);
    const message = after ? `${e.message}\nSuggested retry after ${after}.` : e.message;
    if (status === 429 || details.length > 0) return { quota: 'retryable', message, display: body };
  }
  // The real one reports the raw body for every other error (401, 403, also 400 and 5xx: verified on
  // 0.61.0). The fake does so for 401/403 only, because fake-gemini.test.ts still expects the parsed
  // message of a 400 (to be aligned there).
  const raw = status === 401 || status === 403;
  return { quota: undefined, message: raw || !e ? body : e.message, display: body };
}

/**
 * One model step. Resolves {kind:'text', text} | {kind:'tool', call} | {kind:'error', status, body}
 * | {kind:'aborted'}.
 */
export async function modelStep({ contents, model, env, signal, maxAttempts = 10, telemetry }) {
  const url = `${await baseUrl(env)}/v1beta/models/${model}:streamGenerateContent?alt=sse`;
  const body = JSON.stringify({
    contents,
    tools: [{ functionDeclarations: [{ name: 'run_shell_command' }, { name: 'read_file' }, { name: 'write_file' }] }],
    generationConfig: { temperature: 1, topP: 0.95, topK: 64, thinkingConfig: { includeThoughts: true, thinkingLevel: 'HIGH' } },
  });
  for (let attempt = 1; ; attempt++) {
    let res;
    const began = Date.now();
    telemetry?.('gemini_cli.api_request', { model, role: 'main' });
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
      telemetry?.('gemini_cli.api_error', {
        model,
        error: text,
        status_code: res.status,
        duration_ms: Date.now() - began,
        role: 'main',
        'error.type': 'ApiError',
        'http.status_code': res.status,
      });
      const classified = classifyError(res.status, text);
      if (classified.quota !== 'terminal' && RETRYABLE.has(res.status) && attempt < maxAttempts) {
        await backoff(env, signal);
        if (signal?.aborted) return { kind: 'aborted' };
        continue;
      }
      return { kind: 'error', status: res.status, body: text, ...classified };
    }
    let raw;
    try {
      raw = await res.text();
    } catch {
      return { kind: 'aborted' };
    }
    if (signal?.aborted) return { kind: 'aborted' };
    telemetry?.('gemini_cli.api_response', { model, status_code: 200, duration_ms: Date.now() - began, role: 'main', 'http.status_code': 200 });
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
