/**
 * Codex's plan usage (ACCOUNT-FACTS.md §2.2), from a turn's last `token_count.rate_limits`: each of
 * `primary` / `secondary` is `{used_percent, window_minutes, resets_at}` (epoch seconds), or null
 * (an API key, a provider that sends no `x-codex-*` headers). Windows are named by their length,
 * never by their slot: 300 minutes → `fiveHour`, 10080 → `sevenDay`. A window of any other length,
 * or one without `window_minutes`, is left out: the neutral quota has no name for it, and calling
 * it five-hour or seven-day by its slot would misreport a plan whose windows differ. Pure.
 */
import type { ProviderV1Quota, ProviderV1QuotaWindow } from '@umbel/provider';
import { asRecord } from '@umbel/provider';

/** The neutral name of each window length codex reports (minutes). */
const WINDOW_NAMES: Readonly<Record<number, keyof ProviderV1Quota>> = { 300: 'fiveHour', 10080: 'sevenDay' };

function windowOf(value: unknown): { name: keyof ProviderV1Quota; window: ProviderV1QuotaWindow } | undefined {
  const w = asRecord(value);
  const name = typeof w?.window_minutes === 'number' ? WINDOW_NAMES[w.window_minutes] : undefined;
  if (!w || !name || typeof w.used_percent !== 'number' || !Number.isFinite(w.used_percent)) return undefined;
  const resetsAt = typeof w.resets_at === 'number' && Number.isFinite(w.resets_at) ? w.resets_at : undefined;
  return { name, window: { usedPercent: w.used_percent, ...(resetsAt !== undefined ? { resetsAt } : {}) } };
}

/** The plan usage one `rate_limits` record reports; undefined (never `{}`) when it names no known window. */
export function codexQuota(rateLimits: unknown): ProviderV1Quota | undefined {
  const record = asRecord(rateLimits);
  const out: { -readonly [K in keyof ProviderV1Quota]: ProviderV1QuotaWindow } = {};
  for (const slot of [record?.primary, record?.secondary]) {
    const found = windowOf(slot);
    if (found) out[found.name] = found.window;
  }
  return Object.keys(out).length ? out : undefined;
}
