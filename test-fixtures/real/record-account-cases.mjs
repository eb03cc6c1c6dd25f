// The cases record-account.mjs records. Each: `name` (the fixture file's base name), `runner`
// (<cli>-tui | <cli>-print | codex-exec), `about` (one line), and the runner's inputs. Prompts use the
// mock directives (test-fixtures/lib/directives.mjs): FAIL <status> [xN] [retry-after=] [reset=]
// [limit=usage|weekly] [type=] <msg>, QUOTA 5h=<pct>[@<s>] 7d=<pct>[@<s>] <rest>.

/** Real-world error texts the mocks answer with (the vendors' own wording). */
const TEXT = {
  anthropic429: 'This request would exceed the rate limit for your organization of 50 requests per minute.',
  anthropicUsage: 'You have reached your usage limit.',
  anthropic401: 'invalid x-api-key',
  anthropicExpired: 'OAuth token has expired. Please obtain a new token or refresh your existing token.',
  anthropicRevoked: 'OAuth token has been revoked. Please obtain a new token.',
  anthropic403: 'Request not allowed',
  openai429: 'Rate limit reached for requests. Please try again in 20s.',
  openaiQuota: 'You exceeded your current quota, please check your plan and billing details.',
  openaiUsage: 'The usage limit has been reached',
  openai401: 'Incorrect API key provided: sk-umbel-mock. You can find your API key at https://platform.openai.com/account/api-keys.',
  openai403: 'Country, region, or territory not supported',
  gemini429: 'You exceeded your current quota, please check your plan and billing details.',
  gemini401: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
  geminiBadKey: 'API key not valid. Please pass a valid API key.',
  gemini403: 'Permission denied: Consumer has been suspended.',
  anthropicCredit: 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
};

const codexTurn = (name, auth, prompt, about, extra = {}) => ({ name: `codex-${name}`, runner: 'codex-tui', auth, prompts: [prompt], about, ...extra });
const codexAuth = (auth, about, extra = {}) => ({
  name: `codex-auth-${auth}`,
  runner: 'codex-tui',
  auth,
  prompts: ['ECHO billed how?'],
  status: true,
  about,
  ...extra,
});
const codexExec = (name, auth, prompt, about) => ({ name: `codex-exec-${name}`, runner: 'codex-exec', auth, prompt, about });

const geminiTurn = (name, auth, prompt, about, extra = {}) => ({
  name: `gemini-${name}`,
  runner: 'gemini-tui',
  auth,
  prompts: [prompt],
  maxAttempts: 3,
  about,
  ...extra,
});
const geminiAuth = (auth, about, extra = {}) => ({ name: `gemini-auth-${auth}`, runner: 'gemini-tui', auth, prompts: ['ECHO billed how?'], about, ...extra });
const geminiP = (name, auth, prompt, format, about, extra = {}) => ({
  name: `gemini-p-${name}`,
  runner: 'gemini-print',
  auth,
  prompt,
  format,
  maxAttempts: 3,
  about,
  ...extra,
});

const claudeTurn = (name, auth, prompt, about, extra = {}) => ({ name: `claude-${name}`, runner: 'claude-tui', auth, prompts: [prompt], about, ...extra });
const claudeAuth = (auth, about, extra = {}) => ({ name: `claude-auth-${auth}`, runner: 'claude-tui', auth, prompts: ['ECHO billed how?'], about, ...extra });
const claudeP = (name, auth, prompt, format, about, extra = {}) => ({
  name: `claude-p-${name}`,
  runner: 'claude-print',
  auth,
  prompt,
  format,
  about,
  ...extra,
});

export const CASES = [
  // --- Claude Code: how each auth world starts and bills
  claudeAuth('api-key', 'ANTHROPIC_API_KEY, approved in .claude.json: banner "API Usage Billing"'),
  claudeAuth('api-key-ask', 'ANTHROPIC_API_KEY not approved: the "Detected a custom API key" dialog; answered No (its default)', { answer: 'no' }),
  claudeAuth('api-key-ask-yes', 'ANTHROPIC_API_KEY not approved, answered Yes (Up, Enter): approval stored, API billing', {
    auth: 'api-key-ask',
    answer: 'yes',
  }),
  claudeAuth('auth-token', 'ANTHROPIC_AUTH_TOKEN (a gateway bearer): no dialog, API billing'),
  claudeAuth('oauth-token', 'CLAUDE_CODE_OAUTH_TOKEN (claude setup-token): subscription auth without a stored login'),
  claudeAuth('claude-ai', 'a claude.ai (Max) login in <config>/.credentials.json: banner "Claude Max"'),
  claudeAuth('claude-ai+key', 'a claude.ai login AND ANTHROPIC_API_KEY: the dialog; No keeps the subscription', { answer: 'no' }),
  claudeAuth('claude-ai+key-yes', 'a claude.ai login AND ANTHROPIC_API_KEY, answered Yes: the key wins, API billing', { auth: 'claude-ai+key', answer: 'yes' }),
  claudeAuth('none', 'no credential at all (onboarding seeded): "Not logged in · run /login", StopFailure authentication_failed'),
  // --- Claude Code: account errors in the TUI (CLAUDE_CODE_MAX_RETRIES=2)
  claudeTurn(
    '429',
    'api-key',
    `FAIL 429 ${TEXT.anthropic429}`,
    'HTTP 429 rate_limit_error, no retry-after: retried with backoff, then StopFailure rate_limit',
    { midScreenMs: [300, 900] },
  ),
  claudeTurn(
    '429-retry-after',
    'api-key',
    `FAIL 429 retry-after=3 reset=60 ${TEXT.anthropic429}`,
    '429 with retry-after: 3 and the API rate-limit headers: each retry waits retry-after',
    { midScreenMs: [1500, 4500] },
  ),
  claudeTurn('429-retry-after-long', 'api-key', `FAIL 429 retry-after=3600 ${TEXT.anthropic429}`, '429 with retry-after: 3600 (> 60 s): no retry at all'),
  claudeTurn(
    'usage-limit-api-key',
    'api-key',
    `FAIL 429 limit=usage reset=7200 ${TEXT.anthropicUsage}`,
    'a plan usage-limit 429 (unified headers) to an API-key session',
  ),
  claudeTurn(
    'usage-limit',
    'claude-ai',
    `FAIL 429 limit=usage reset=7200 ${TEXT.anthropicUsage}`,
    'the 5-hour plan limit on a claude.ai (Max) login: "You\'ve hit your 5-hour limit · resets …"',
  ),
  claudeTurn(
    'weekly-limit',
    'claude-ai',
    `FAIL 429 limit=weekly reset=259200 ${TEXT.anthropicUsage}`,
    'the weekly plan limit resetting in 3 days: the /rate-limit-options dialog (then Enter = 1. Stop and wait)',
    {
      afterKeys: ['Enter'],
    },
  ),
  claudeTurn(
    'weekly-limit-soon',
    'claude-ai',
    `FAIL 429 limit=weekly reset=3600 ${TEXT.anthropicUsage}`,
    'the weekly plan limit resetting within 24 h: automatic continue, like the 5-hour one',
  ),
  claudeTurn(
    'usage-limit-resume',
    'claude-ai',
    `FAIL 429 x1 limit=usage reset=40 ECHO resumed after the reset`,
    'a 5-hour limit resetting in 40 s: StopFailure, then Claude continues by itself at the reset (a Stop with no new prompt)',
    {
      followMs: 180_000,
    },
  ),
  claudeTurn('429-subscriber', 'claude-ai', `FAIL 429 ${TEXT.anthropic429}`, 'a plain 429 (no unified headers) on a claude.ai login'),
  claudeTurn('401', 'api-key', `FAIL 401 ${TEXT.anthropic401}`, 'HTTP 401 authentication_error to an API key: retried, StopFailure authentication_failed'),
  claudeTurn(
    '401-oauth-expired',
    'claude-ai',
    `FAIL 401 ${TEXT.anthropicExpired}`,
    'HTTP 401 "OAuth token has expired" on a claude.ai login (the refresh cannot reach the console offline)',
  ),
  claudeTurn('403', 'api-key', `FAIL 403 ${TEXT.anthropic403}`, 'HTTP 403 permission_error: not retried, StopFailure authentication_failed'),
  claudeTurn('403-oauth-revoked', 'claude-ai', `FAIL 403 ${TEXT.anthropicRevoked}`, 'HTTP 403 "OAuth token has been revoked" on a claude.ai login'),
  claudeTurn(
    'credit-low',
    'api-key',
    `FAIL 400 ${TEXT.anthropicCredit}`,
    'HTTP 400 "credit balance is too low" (API billing out of credit): StopFailure billing_error',
  ),
  // --- Claude Code: statusLine input
  claudeTurn(
    'statusline',
    'claude-ai',
    'QUOTA 5h=42@3600 7d=13@86400 ECHO with usage',
    'statusLine command input with rate_limits (claude.ai login, unified headers on every answer); 2 turns + idle',
    {
      prompts: ['QUOTA 5h=42@3600 7d=13@86400 ECHO with usage', 'QUOTA 5h=43@3600 7d=13@86400 ECHO second turn'],
      statusLine: 'UMBEL-STATUSLINE',
      idleMs: 8000,
    },
  ),
  claudeTurn(
    'statusline-api-key',
    'api-key',
    'QUOTA 5h=42@3600 7d=13@86400 ECHO with usage',
    'statusLine input of an API-key session: no rate_limits even when the headers come',
    { statusLine: 'UMBEL-STATUSLINE' },
  ),
  claudeTurn(
    'statusline-user',
    'claude-ai',
    'QUOTA 5h=42@3600 ECHO with usage',
    'a user statusLine in <config>/settings.json and another in --settings: only the --settings one runs',
    {
      statusLine: 'UMBEL-STATUSLINE',
      userStatusLine: 'USER-STATUSLINE',
    },
  ),
  // --- Codex: how each auth world starts and bills (/status shown)
  codexAuth('provider-key', 'a custom model provider with env_key (MOCK_API_KEY): no login, API billing'),
  codexAuth('apikey', 'the built-in openai provider with auth.json auth_mode "apikey" (codex login --with-api-key)'),
  codexAuth('chatgpt', 'the built-in openai provider with a (fake) ChatGPT Plus login in auth.json: the subscription path'),
  codexAuth('codex-api-key', 'the built-in provider, no auth.json, CODEX_API_KEY set'),
  codexAuth('openai-api-key', 'the built-in provider, no auth.json, OPENAI_API_KEY set', { prompts: [] }),
  codexAuth('none', 'the built-in provider, no auth.json, no key: the sign-in screen', { prompts: [] }),
  // --- Codex: account errors in the TUI (provider retries at their defaults)
  codexTurn('429', 'provider-key', `FAIL 429 ${TEXT.openai429}`, 'HTTP 429 rate_limit_exceeded, no retry-after: not retried'),
  codexTurn(
    '429-retry-after',
    'provider-key',
    `FAIL 429 retry-after=2 reset=20 ${TEXT.openai429}`,
    '429 with retry-after: 2: reconnects 5 times, retry-after apart',
    { midScreenMs: [3000] },
  ),
  codexTurn(
    '429-insufficient-quota',
    'provider-key',
    `FAIL 429 type=insufficient_quota ${TEXT.openaiQuota}`,
    'HTTP 429 insufficient_quota (an API account out of credit)',
  ),
  codexTurn(
    'usage-limit',
    'provider-key',
    `FAIL 429 limit=usage reset=7200 ${TEXT.openaiUsage}`,
    'a ChatGPT plan usage limit (usage_limit_reached + x-codex-* headers) through a custom provider',
    { status: true },
  ),
  codexTurn('usage-limit-chatgpt', 'chatgpt', `FAIL 429 limit=usage reset=7200 ${TEXT.openaiUsage}`, 'the plan usage limit on a ChatGPT login', {
    status: true,
  }),
  {
    ...codexTurn(
      'usage-limit-chatgpt-nudge-hidden',
      'chatgpt',
      `FAIL 429 limit=usage reset=7200 ${TEXT.openaiUsage}`,
      'the plan usage limit on a ChatGPT login with [notice] hide_rate_limit_model_nudge = true, then a normal turn',
    ),
    prompts: [`FAIL 429 limit=usage reset=7200 ${TEXT.openaiUsage}`, 'ECHO after the limit'],
    config: ['', '[notice]', 'hide_rate_limit_model_nudge = true'],
  },
  codexTurn('weekly-limit-chatgpt', 'chatgpt', `FAIL 429 limit=weekly reset=259200 ${TEXT.openaiUsage}`, 'the weekly plan limit on a ChatGPT login'),
  codexTurn('401', 'provider-key', `FAIL 401 ${TEXT.openai401}`, 'HTTP 401 invalid_api_key: reconnects 5 times'),
  codexTurn(
    '401-chatgpt',
    'chatgpt',
    `FAIL 401 Your authentication token has expired. Please try signing in again.`,
    'HTTP 401 on a ChatGPT login: Codex refreshes the token (CODEX_REFRESH_TOKEN_URL_OVERRIDE = the mock, which refuses: refresh_token_expired)',
  ),
  codexTurn('403', 'provider-key', `FAIL 403 type=unsupported_country_region_territory ${TEXT.openai403}`, 'HTTP 403: reconnects 5 times'),
  codexTurn(
    'quota',
    'provider-key',
    'QUOTA 5h=42@3600 7d=13@86400 ECHO with usage',
    'plan usage headers on a normal answer: token_count.rate_limits in the rollout, /status Limits',
    { status: true },
  ),
  // --- codex exec --json
  codexExec('429', 'provider-key', `FAIL 429 ${TEXT.openai429}`, 'exec --json on a 429'),
  codexExec('usage-limit', 'provider-key', `FAIL 429 limit=usage reset=7200 ${TEXT.openaiUsage}`, 'exec --json on a plan usage limit'),
  codexExec('401', 'provider-key', `FAIL 401 ${TEXT.openai401}`, 'exec --json on a 401'),
  // --- Gemini CLI: how each auth world starts and bills
  geminiAuth('api-key', 'selectedType gemini-api-key + GEMINI_API_KEY: "Authenticated with gemini-api-key"'),
  geminiAuth('api-key-missing', 'selectedType gemini-api-key but no GEMINI_API_KEY'),
  geminiAuth('unset', 'no selectedType; GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL in the env'),
  geminiAuth('vertex', 'no selectedType; GOOGLE_GENAI_USE_VERTEXAI=true + GOOGLE_API_KEY (Vertex AI, Google Cloud billing)'),
  geminiAuth('google', 'selectedType oauth-personal (Sign in with Google) with no cached login'),
  // --- Gemini CLI: account errors in the TUI (general.maxAttempts 3)
  geminiTurn('429', 'api-key', `FAIL 429 ${TEXT.gemini429}`, 'HTTP 429 RESOURCE_EXHAUSTED, no details: the TUI keeps retrying (no error shown) until Escape', {
    midScreenMs: [2000],
    cancelAfterMs: 60_000,
  }),
  geminiTurn(
    '429-retry-info',
    'api-key',
    `FAIL 429 reset=2 retry-after=2 ${TEXT.gemini429} Please retry in 2s.`,
    '429 with RetryInfo retryDelay 2s (+ a retry-after header): retried until Escape',
    {
      cancelAfterMs: 60_000,
    },
  ),
  geminiTurn(
    'usage-limit',
    'api-key',
    `FAIL 429 limit=usage ${TEXT.gemini429}`,
    'a per-day quota (QuotaFailure GenerateRequestsPerDay…): the "Usage limit reached for <model>" dialog; 2. Stop',
    {
      dialog: 'Usage limit reached for',
      dialogKeys: ['Down', 'Enter'],
    },
  ),
  geminiTurn(
    'usage-limit-keep-trying',
    'api-key',
    'FAIL 429 x1 limit=usage ECHO answered after Keep trying',
    'the daily-quota dialog answered 1. Keep trying (Enter): the request is sent again',
    {
      dialog: 'Usage limit reached for',
      dialogKeys: ['Enter'],
    },
  ),
  geminiTurn('401', 'api-key', `FAIL 401 ${TEXT.gemini401}`, 'HTTP 401 UNAUTHENTICATED: not retried'),
  geminiTurn(
    '400-bad-key',
    'api-key',
    `FAIL 400 type=API_KEY_INVALID ${TEXT.geminiBadKey}`,
    'what the Gemini API answers a bad key: 400 INVALID_ARGUMENT, ErrorInfo API_KEY_INVALID',
  ),
  geminiTurn('403', 'api-key', `FAIL 403 ${TEXT.gemini403}`, 'HTTP 403 PERMISSION_DENIED: not retried'),
  // --- gemini -p
  geminiP('429-json', 'api-key', `FAIL 429 ${TEXT.gemini429}`, 'json', '-o json on a 429 (error JSON on stderr, exit 429 & 255)'),
  geminiP('429-default-retries-json', 'api-key', `FAIL 429 ${TEXT.gemini429}`, 'json', 'the default 10 attempts: how long a 429 takes to be reported', {
    maxAttempts: undefined,
  }),
  geminiP('usage-limit-json', 'api-key', `FAIL 429 limit=usage ${TEXT.gemini429}`, 'json', '-o json on the per-day quota'),
  geminiP('usage-limit-stream-json', 'api-key', `FAIL 429 limit=usage ${TEXT.gemini429}`, 'stream-json', '-o stream-json on the per-day quota'),
  geminiP('401-json', 'api-key', `FAIL 401 ${TEXT.gemini401}`, 'json', '-o json on a 401'),
  geminiP('403-json', 'api-key', `FAIL 403 ${TEXT.gemini403}`, 'json', '-o json on a 403'),
  geminiP('api-key-missing-json', 'api-key-missing', 'ECHO hi', 'json', '-o json with selectedType gemini-api-key and no key'),
  // --- claude -p (the -p face's contract)
  claudeP(
    '429-stream-json',
    'api-key',
    `FAIL 429 ${TEXT.anthropic429}`,
    'stream-json',
    'api_retry events (error rate_limit, retry_delay_ms), the synthetic assistant, the result',
  ),
  claudeP('429-retry-after-stream-json', 'api-key', `FAIL 429 retry-after=3 ${TEXT.anthropic429}`, 'stream-json', 'retry_delay_ms follows retry-after'),
  claudeP(
    '429-default-retries-stream-json',
    'api-key',
    `FAIL 429 ${TEXT.anthropic429}`,
    'stream-json',
    'the default 10 retries: how long a 429 takes to be reported',
    { maxRetries: null },
  ),
  claudeP('usage-limit-json', 'claude-ai', `FAIL 429 limit=usage reset=7200 ${TEXT.anthropicUsage}`, 'json', 'result of a plan usage limit'),
  claudeP(
    'usage-limit-stream-json',
    'claude-ai',
    `FAIL 429 limit=usage reset=7200 ${TEXT.anthropicUsage}`,
    'stream-json',
    'rate_limit_event with resetsAt, then the result',
  ),
  claudeP(
    'quota-stream-json',
    'claude-ai',
    'QUOTA 5h=42@3600 7d=13@86400 ECHO with usage',
    'stream-json',
    'rate_limit_event of a normal answer with plan usage',
  ),
  claudeP('401-json', 'api-key', `FAIL 401 ${TEXT.anthropic401}`, 'json', 'result of a 401'),
  claudeP('403-json', 'api-key', `FAIL 403 ${TEXT.anthropic403}`, 'json', 'result of a 403'),
  claudeP('none-json', 'none', 'ECHO hi', 'json', 'result with no credential at all'),
];
