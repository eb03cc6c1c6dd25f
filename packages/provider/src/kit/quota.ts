/**
 * Plan usage windows from what a CLI records (`{used_percent, resets_at}` in epoch seconds, under
 * names of its own): one neutral {@link ProviderV1QuotaWindow}, and when the used-up ones lift. Pure.
 */
import type { ProviderV1QuotaWindow } from '../spec.js';
import { isoOfEpoch } from './account.js';
import { asRecord } from './json.js';

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The window a record describes (its used percent in `usedKey`, its reset in `resets_at`); undefined without a used percent. */
export function quotaWindow(value: unknown, usedKey = 'used_percent'): ProviderV1QuotaWindow | undefined {
  const w = asRecord(value);
  const used = w?.[usedKey];
  if (!finite(used)) return undefined;
  return { usedPercent: used, ...(finite(w?.resets_at) ? { resetsAt: w.resets_at } : {}) };
}

/** The latest reset (ISO) among the windows used up (100 % or more): when a plan limit lifts. */
export function usedUpReset(windows: readonly (ProviderV1QuotaWindow | undefined)[]): string | undefined {
  const resets = windows.flatMap((w) => (w && w.usedPercent >= 100 && w.resetsAt !== undefined ? [w.resetsAt] : []));
  return isoOfEpoch(resets.length ? Math.max(...resets) : undefined);
}
