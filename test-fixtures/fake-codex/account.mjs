// Account truth of the fake `codex`: how account failures read in the rollout (task_complete.error
// {message, codex_error_info}) and on screen, the plan usage its "model server" reports (QUOTA →
// token_count.rate_limits), the "Approaching rate limits" nudge, and the /status Account line.
// Facts: test-fixtures/real/ACCOUNT-FACTS.md (recorded from the real 0.169.0 in
// test-fixtures/real/recorded/account/codex-*.json).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** ChatGPT plan windows by QUOTA window name → [rate_limits key, window minutes]. */
const WINDOWS = { '5h': ['primary', 300], '7d': ['secondary', 10_080] };

/** The auth.json of CODEX_HOME (`{auth_mode, …}`), or undefined. */
export function authJson(home) {
  const file = join(home, 'auth.json');
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The email and plan of a ChatGPT login's id_token (unverified JWT claims, as Codex shows them). */
function chatgptIdentity(auth) {
  try {
    const claims = JSON.parse(Buffer.from(String(auth.tokens.id_token).split('.')[1], 'base64url').toString('utf8'));
    return { email: claims.email, plan: claims['https://api.openai.com/auth']?.chatgpt_plan_type };
  } catch {
    return {};
  }
}

/** The /status lines about the account: `Account:` (built-in provider only) and `Limits:`. */
export function statusAccountLines(sess) {
  const lines = [`  Model provider:      ${sess.providerId}`];
  if (sess.providerId === 'openai' || !sess.provider) {
    const auth = authJson(sess.home);
    if (auth?.auth_mode === 'chatgpt') {
      const { email, plan } = chatgptIdentity(auth);
      lines.push(`  Account:             ${email ?? 'unknown'} (${plan ? plan[0].toUpperCase() + plan.slice(1) : 'ChatGPT'})`);
      lines.push('  Limits:              not available for this account');
      return lines;
    }
    if (auth?.auth_mode === 'apikey') lines.push('  Account:             API key configured (run codex login to use ChatGPT)');
  }
  lines.push('  Limits:              data not available yet');
  return lines;
}

/** Fold a plan's `quota` (QUOTA directive) into the session's rate limits (absolute resets). */
export function applyQuota(limits, quota, now = Date.now() / 1000) {
  const out = { ...limits };
  for (const [name, w] of Object.entries(quota ?? {})) {
    const [key, minutes] = WINDOWS[name] ?? [];
    if (key) out[key] = { used_percent: w.percent, window_minutes: minutes, resets_at: Math.round(now + w.resetsInSeconds) };
  }
  return out;
}

/** token_count `rate_limits` (null until the server reported plan usage, as for an API key). */
export function rateLimitsRecord(limits) {
  if (!limits?.primary && !limits?.secondary) return null;
  return {
    limit_id: 'codex',
    limit_name: null,
    primary: limits.primary ?? null,
    secondary: limits.secondary ?? null,
    credits: null,
    individual_limit: null,
    spend_control_reached: null,
    plan_type: null,
    rate_limit_reached_type: null,
  };
}

/** "12:35 PM", or further than a day "Dec 4th, 2026 10:55 AM": the real "try again at …" wording. */
export function tryAgainAt(epochSeconds, now = Date.now()) {
  const d = new Date(epochSeconds * 1000);
  const time = d.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit', hour12: true });
  if (epochSeconds * 1000 - now <= 86_400_000) return time;
  const day = d.getDate();
  const suffix = day % 10 === 1 && day !== 11 ? 'st' : day % 10 === 2 && day !== 12 ? 'nd' : day % 10 === 3 && day !== 13 ? 'rd' : 'th';
  return `${d.toLocaleString('en-US', { month: 'short' })} ${day}${suffix}, ${d.getFullYear()} ${time}`;
}

/**
 * The rollout error of a FAIL plan, as the real one words it: `message` (task_complete.error, the
 * `■` line, exec's error events) and `info` (codex_error_info); `limits` = the rate limits the
 * failure reported (a plan limit marks its window used up).
 * @param {any} p a FAIL plan; @param {any} sess the session (provider, home, rate limits)
 */
export function accountError(p, sess, now = Date.now() / 1000) {
  const a = p.account ?? {};
  const base = sess.provider?.base_url ?? 'https://api.openai.com/v1';
  if (p.status === 429 && (a.limit === 'usage' || a.limit === 'weekly')) {
    const [key, minutes] = WINDOWS[a.limit === 'usage' ? '5h' : '7d'];
    const resetsAt = Math.round(now + (a.resetSeconds ?? minutes * 60));
    const limits = { ...sess.rateLimits, [key]: { used_percent: 100, window_minutes: minutes, resets_at: resetsAt } };
    const message = `You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at ${tryAgainAt(resetsAt)}.`;
    return { message, info: 'usage_limit_exceeded', limits, nudge: true };
  }
  if (p.status === 429 && a.type === 'insufficient_quota')
    return { message: 'Quota exceeded. Check your plan and billing details.', info: 'usage_limit_exceeded' };
  if (p.status === 429)
    return { message: 'exceeded retry limit, last status: 429 Too Many Requests', info: { response_too_many_failed_attempts: { http_status_code: 429 } } };
  if (p.status === 401 && authJson(sess.home)?.auth_mode === 'chatgpt' && (sess.providerId === 'openai' || !sess.provider)) {
    return {
      message: 'Your access token could not be refreshed because your refresh token has expired. Please log out and sign in again.',
      info: 'unauthorized',
    };
  }
  if (p.status === 401 || p.status === 403) {
    const reason = p.status === 401 ? 'Unauthorized' : 'Forbidden';
    return {
      message: `unexpected status ${p.status} ${reason}: ${p.message}, url: ${base}/responses`,
      info: { http_connection_failed: { http_status_code: p.status } },
    };
  }
  return undefined;
}

/** The "Approaching rate limits" nudge the real TUI opens after a plan limit (unless [notice] hide_rate_limit_model_nudge). */
export function nudgeDialog() {
  return {
    kind: 'rate-limit-nudge',
    lines: ['  Approaching rate limits', '  Switch to gpt-6-luna for lower credit usage?', ''],
    options: [
      'Switch to gpt-6-luna                   Fast and affordable model for easier tasks.',
      'Keep current model',
      'Keep current model (never show again)  Hide future rate limit reminders about switching models',
    ],
    footer: '  enter select · esc back',
  };
}
