// The fake Qwen Code's model client: OpenAI chat completions (not streamed) at OPENAI_BASE_URL,
// offering the shell tool `run_shell_command` and the subagent tool `agent` as the real 0.15.10 does.

export const SHELL_TOOL = 'run_shell_command';
/** The subagent tool of 0.15.10 (BACKGROUND-FACTS.md §4). */
export const AGENT_TOOL = 'agent';

const TOOLS = [
  {
    type: 'function',
    function: {
      name: SHELL_TOOL,
      description: 'Executes a given shell command',
      parameters: { type: 'object', properties: { command: { type: 'string' }, description: { type: 'string' } }, required: ['command'] },
    },
  },
  {
    type: 'function',
    function: {
      name: AGENT_TOOL,
      description: 'Launch a new agent to handle complex, multi-step tasks autonomously',
      parameters: {
        type: 'object',
        properties: { description: { type: 'string' }, prompt: { type: 'string' }, subagent_type: { type: 'string' }, run_in_background: { type: 'boolean' } },
        required: ['description', 'prompt'],
      },
    },
  },
];

const ERROR_TYPES = { 400: 'BadRequestError', 401: 'AuthenticationError', 403: 'PermissionDeniedError', 404: 'NotFoundError', 429: 'RateLimitError' };

/** The SDK's error type for an HTTP status. */
export function errorType(status) {
  return ERROR_TYPES[status] ?? (status >= 500 ? 'InternalServerError' : 'APIError');
}

/**
 * One call: {ok: true, content, call?, usage} or {ok: false, status, type, message} ({aborted} when
 * the signal fired).
 */
export async function callModel({ model, messages, signal, append }) {
  const base = (process.env.OPENAI_BASE_URL || 'https://api.openai.com/v1').replace(/\/+$/, '');
  const system = { role: 'system', content: `You are Qwen Code, an interactive CLI agent.${append ? `\n${append}` : ''}` };
  let res;
  try {
    res = await fetch(`${base}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.OPENAI_API_KEY ?? ''}` },
      body: JSON.stringify({ model, messages: [system, ...messages], tools: TOOLS, stream: false }),
      signal,
    });
  } catch (error) {
    if (signal?.aborted) return { ok: false, aborted: true, type: 'APIUserAbortError', message: 'Request was aborted.' };
    return { ok: false, status: undefined, type: 'APIConnectionError', message: `Connection error. ${error?.message ?? ''}`.trim() };
  }
  const body = await res.json().catch(() => ({}));
  if (!res.ok) return { ok: false, status: res.status, type: errorType(res.status), message: `${res.status} ${body?.error?.message ?? res.statusText}` };
  const message = body?.choices?.[0]?.message ?? {};
  const u = body?.usage ?? {};
  const usage = {
    promptTokenCount: u.prompt_tokens ?? 0,
    candidatesTokenCount: u.completion_tokens ?? 0,
    thoughtsTokenCount: 0,
    totalTokenCount: u.total_tokens ?? 0,
    cachedContentTokenCount: 0,
  };
  const tc = message.tool_calls?.[0];
  if (tc) {
    let parsed = {};
    try {
      parsed = JSON.parse(tc.function?.arguments ?? '{}');
    } catch {}
    return { ok: true, call: { id: tc.id, name: tc.function?.name, args: parsed }, usage };
  }
  return { ok: true, content: message.content ?? '', usage };
}
