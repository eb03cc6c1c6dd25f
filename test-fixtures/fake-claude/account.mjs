// Account truth of the fake `claude`: which credential it bills through (and what it shows for it),
// the plan usage its "model server" reports (QUOTA directive), and how account errors read (429,
// plan usage limits, 401/403, no login). Facts: test-fixtures/real/ACCOUNT-FACTS.md, recorded from
// the real 2.1.328 in test-fixtures/real/recorded/account/claude-*.json.
import { join } from 'node:path';
import { keyTail, readJson } from './config.mjs';

/** Display names of the models the fake knows (the banner and statusLine `model.display_name`). */
const DISPLAY = { 'claude-opus-5-5': 'Opus 5.5', 'claude-sonnet-5-5': 'Sonnet 5.5', 'claude-haiku-5-5': 'Haiku 5.5', 'claude-fable-5-2': 'Fable 5.2' };

/** `model.display_name` of a model id (the id itself when unknown). */
export function displayName(model) {
  return DISPLAY[model] ?? model;
}

/** The claude.ai login stored in `<config>/.credentials.json`, if any. */
function claudeAiLogin(paths) {
  const creds = readJson(join(paths.root, '.credentials.json'), undefined);
  const oauth = creds?.claudeAiOauth;
  return oauth && typeof oauth.accessToken === 'string' && oauth.accessToken !== '' ? oauth : undefined;
}

const PLAN_LABEL = { max: 'Claude Max', pro: 'Claude Pro', team: 'Claude Team', enterprise: 'Claude Enterprise' };

/**
 * Which credential the session uses, as the real one decides it: an approved ANTHROPIC_API_KEY wins
 * (API billing, even over a claude.ai login); then ANTHROPIC_AUTH_TOKEN (a gateway bearer, API
 * billing); CLAUDE_CODE_OAUTH_TOKEN and a stored claude.ai login are subscriptions; else nothing.
 * `keyState` is the key's approval ('approved' | 'rejected' | 'unknown'), `label` the banner's.
 * `print`: `claude -p` uses ANTHROPIC_API_KEY whenever it is set, approved or not, even over a
 * claude.ai login (real 2.1.328).
 * @param {{env: NodeJS.ProcessEnv, paths: any, global: any, print?: boolean}} o
 */
export function authWorld({ env, paths, global, print = false }) {
  const key = env.ANTHROPIC_API_KEY || undefined;
  const tail = key ? keyTail(key) : undefined;
  const responses = global?.customApiKeyResponses ?? {};
  const keyState = !tail
    ? undefined
    : (responses.approved ?? []).includes(tail)
      ? 'approved'
      : (responses.rejected ?? []).includes(tail)
        ? 'rejected'
        : 'unknown';
  const login = claudeAiLogin(paths);
  const base = { keyState, keyTail: tail, claudeAiLogin: Boolean(login) };
  if (keyState === 'approved' || (print && tail))
    return { ...base, method: 'api_key', billing: 'api', label: 'API Usage Billing', subscriber: false, bothWarning: Boolean(login) };
  if (env.ANTHROPIC_AUTH_TOKEN)
    return { ...base, method: 'oauth_token', source: 'ANTHROPIC_AUTH_TOKEN', billing: 'api', label: 'API Usage Billing', subscriber: false };
  if (env.CLAUDE_CODE_OAUTH_TOKEN)
    return { ...base, method: 'oauth_token', source: 'CLAUDE_CODE_OAUTH_TOKEN', billing: 'subscription', label: 'Claude API', subscriber: true };
  if (login) {
    const plan = login.subscriptionType ?? null;
    return { ...base, method: 'claude.ai', billing: 'subscription', label: PLAN_LABEL[plan] ?? 'Claude API', subscriber: true, subscriptionType: plan };
  }
  // No usable credential. The real one then fails every turn ("Not logged in"); the fake does so when
  // a key was declined (or FAKE_CLAUDE_AUTH=strict), and otherwise still answers, as the fake always
  // did, so tests that bring no credential keep working.
  const blocked = keyState === 'rejected' || keyState === 'unknown' || env.FAKE_CLAUDE_AUTH === 'strict';
  return { ...base, method: 'none', billing: 'none', label: 'API Usage Billing', subscriber: false, blocked };
}

/** The model a session starts with: CLAUDE_CODE_OAUTH_TOKEN sessions default to Sonnet (real 2.1.328). */
export function defaultModelFor(world, opts, env) {
  if (opts.model === undefined && env.ANTHROPIC_MODEL === undefined && world.method === 'oauth_token' && world.source === 'CLAUDE_CODE_OAUTH_TOKEN')
    return 'sonnet';
  return undefined;
}

/** The ⚠ block the real TUI shows when an approved key and a claude.ai login are both present. */
export const BOTH_WARNING = [
  '⚠ Both claude.ai and ANTHROPIC_API_KEY set · auth may not work as expected',
  '  · to use claude.ai: Unset ANTHROPIC_API_KEY, or turn off "Use custom API key" in /config.',
  '  · to use ANTHROPIC_API_KEY: claude /logout to sign out of claude.ai.',
];

/** `claude auth status --json` of a world (the fields the real one prints). */
export function authStatusJson(world, paths, env) {
  const out = {
    loggedIn: world.method !== 'none',
    authMethod: world.method,
    apiProvider: 'firstParty',
    analyticsDisabled: false,
    projectsDirectory: join(paths.root, 'projects'),
    configDirectory: paths.root,
    loginExpiresAt: null,
    consoleProfileSignInOffered: true,
  };
  if (world.method === 'claude.ai')
    Object.assign(out, { email: null, orgId: null, orgName: null, subscriptionType: world.subscriptionType, storedClaudeAiLogin: true });
  if (env.ANTHROPIC_API_KEY && world.keyState !== 'rejected') out.apiKeySource = 'ANTHROPIC_API_KEY';
  return out;
}

/** `claude auth status --text` of a world. */
export function authStatusText(world, env) {
  if (world.method === 'api_key') return world.claudeAiLogin ? 'Auth token: claude.ai · not in use' : 'API key: ANTHROPIC_API_KEY';
  if (world.method === 'oauth_token') return `Auth token: ${world.source}`;
  if (world.method === 'claude.ai') return `Login method: ${world.label} account`;
  return env.ANTHROPIC_BASE_URL ? `Anthropic base URL: ${env.ANTHROPIC_BASE_URL}` : 'Not logged in. Run claude auth login to authenticate.';
}

// ---------- plan usage (QUOTA) ----------

const WINDOW_KEYS = { '5h': 'five_hour', '7d': 'seven_day' };

/** Fold a plan's `quota` (window → percent, reset in s) into the session's plan usage (absolute resets). */
export function applyQuota(usage, quota, now = Date.now() / 1000) {
  const out = { ...usage };
  for (const [name, w] of Object.entries(quota ?? {})) {
    const key = WINDOW_KEYS[name];
    if (key) out[key] = { used_percentage: Math.min(100, Math.round(w.percent * 10) / 10), resets_at: Math.round(now + w.resetsInSeconds) };
  }
  return out;
}

/** statusLine `rate_limits` of a session: subscribers only, windows whose reset has not passed (absent when none). */
export function rateLimitsOf(world, usage, now = Date.now() / 1000) {
  if (!world.subscriber) return undefined;
  const out = {};
  for (const key of ['five_hour', 'seven_day']) if (usage?.[key] && usage[key].resets_at > now) out[key] = { ...usage[key] };
  return Object.keys(out).length > 0 ? out : undefined;
}

// ---------- account errors ----------

/** "12:20pm (UTC)" or, further than a day, "Dec 4, 10:20am (UTC)": the real reset wording. */
export function resetWording(epochSeconds, now = Date.now()) {
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const d = new Date(epochSeconds * 1000);
  const time = new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit', hour12: true, timeZone: tz }).format(d).replace(' ', '').toLowerCase();
  const far = epochSeconds * 1000 - now > 86_400_000;
  const day = far ? `${new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: tz }).format(d)}, ` : '';
  return { long: `${day}${time} (${tz})`, short: `${day}${time}` };
}

/** Seconds a retry-after value asks for (seconds or an HTTP date), or undefined. */
export function retryAfterSeconds(value, now = Date.now()) {
  if (value === undefined || value === 'none') return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}

/**
 * How a plan usage-limit 429 (`limit=usage|weekly`) reads on a subscription: the window, its reset
 * and the `rate_limit_info` the transcript keeps; undefined when it is not one (API-key sessions see
 * a plain 429).
 */
export function usageLimitOf(p, world, usage, now = Date.now() / 1000) {
  const limit = p.account?.limit;
  if (!world.subscriber || (limit !== 'usage' && limit !== 'weekly')) return undefined;
  const key = limit === 'usage' ? 'five_hour' : 'seven_day';
  const resetsAt =
    p.account.resetSeconds !== undefined
      ? Math.round(now + p.account.resetSeconds)
      : (usage?.[key]?.resets_at ?? Math.round(now + (key === 'five_hour' ? 18_000 : 604_800)));
  const info = {
    status: 'rejected',
    resetsAt,
    rateLimitType: key,
    overageStatus: 'rejected',
    overageDisabledReason: 'org_level_disabled',
    isUsingOverage: false,
  };
  return { key, resetsAt, info, label: key === 'five_hour' ? '5-hour' : 'weekly' };
}

/** The retry-after a FAIL plan carries in seconds, as the real API would send it (a plan limit adds one). */
function effectiveRetryAfter(p) {
  const a = p.account ?? {};
  if (a.retryAfter !== undefined) return retryAfterSeconds(a.retryAfter);
  if (a.limit === 'usage' || a.limit === 'weekly') return a.resetSeconds ?? (a.limit === 'usage' ? 18_000 : 604_800);
  return undefined;
}

/**
 * Does the real CLI retry this failure? 401/408/409/429/5xx and a "revoked" 403 yes, but not a
 * retry-after over 60 s nor a subscription's usage limit.
 */
export function isRetried(p, world) {
  const s = p.status;
  const revoked = s === 403 && /revoked/i.test(p.message);
  if (!(s === 401 || s === 408 || s === 409 || s === 429 || s >= 500 || revoked)) return false;
  if (usageLimitOf(p, world, {})) return false;
  const after = effectiveRetryAfter(p);
  return !(after !== undefined && after > 60);
}

/** `error` of StopFailure / the transcript for a failure (the real one's values). */
export function errorKindOf(p) {
  if (p.status === 400 && /credit balance is too low/i.test(p.message)) return 'billing_error';
  if (p.status === 401 || p.status === 403) return 'authentication_failed';
  if (p.status === 429) return 'rate_limit';
  if (p.status === 400) return 'invalid_request';
  if (p.status === 404) return 'model_not_found';
  if (p.status >= 500) return 'server_error';
  return 'unknown';
}

/**
 * The words of an account failure: `text` (transcript, hooks, -p result) and `screen` (the TUI's
 * ⎿ line when it differs), or undefined for a failure this module does not word (5xx, 400, 404).
 * @param {any} p a FAIL plan
 * @param {any} world authWorld()
 * @param {{tui: boolean, usage: any}} o
 */
export function accountErrorWords(p, world, { tui, usage }) {
  const m = p.message;
  const limit = usageLimitOf(p, world, usage);
  if (limit) {
    const when = resetWording(limit.resetsAt);
    return { text: `You've hit your ${limit.label} limit · resets ${when.long}`, limit, when };
  }
  if (p.status === 400 && /credit balance is too low/i.test(m)) {
    return { text: 'Credit balance is too low', screen: 'Credit balance too low · Add funds: https://platform.claude.com/settings/billing' };
  }
  if (p.status === 429) {
    if (world.subscriber) return { text: `API Error: Server is temporarily limiting requests (not your usage limit) · ${m}` };
    return { text: `API Error: Request rejected (429) · ${m}` };
  }
  if (p.status === 401 || p.status === 403) {
    if (p.status === 401 && /invalid x-api-key/i.test(m)) return { text: 'Invalid API key · Fix external API key' };
    if (p.status === 403 && /revoked/i.test(m)) return { text: 'OAuth token revoked · Please run /login' };
    return { text: tui ? `Please run /login · API Error: ${p.status} ${m}` : `Failed to authenticate. API Error: ${p.status} ${m}` };
  }
  return undefined;
}

/** What the real one says when a prompt is sent with no usable credential. */
export function notLoggedIn(world) {
  return {
    text: 'Not logged in · Please run /login',
    screen:
      world.keyState === 'rejected'
        ? 'Not logged in · Please run /login\nANTHROPIC_API_KEY not used here · turn on "Use custom API key" in /config'
        : 'Not logged in · Please run /login',
  };
}

/** The synthetic prompt of the automatic continue after a usage limit reset. */
export const AUTO_CONTINUE_PROMPT =
  'Your claude.ai usage limit has reset. Continue the task you were working on when the limit was reached; do not repeat work that is already complete.';
