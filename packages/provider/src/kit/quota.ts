/**
 * Plan usage (ProviderV1Quota) from what a CLI records: one window per record of a used percentage
 * and a reset time (epoch seconds), under the CLI's own field names. Pure. Name a window
 * `fiveHour` or `sevenDay` only when its length says so (never by its slot).
 */
import type { ProviderV1Quota, ProviderV1QuotaWindow } from '../spec.js';
import { asRecord } from './json.js';

/** One window of a record: `used` must be a finite number; `resets` is kept when it is one. */
export function quotaWindow(value: unknown, fields: { readonly used: string; readonly resets: string }): ProviderV1QuotaWindow | undefined {
  const record = asRecord(value);
  const used = record?.[fields.used];
  if (typeof used !== 'number' || !Number.isFinite(used)) return undefined;
  const resets = record?.[fields.resets];
  return { usedPercent: used, ...(typeof resets === 'number' && Number.isFinite(resets) ? { resetsAt: resets } : {}) };
}

/** The quota of the windows found, or undefined when there is none (a reader never reports `{}`). */
export function quotaOf(windows: { readonly [K in keyof ProviderV1Quota]?: ProviderV1QuotaWindow | undefined }): ProviderV1Quota | undefined {
  const { fiveHour, sevenDay } = windows;
  return fiveHour || sevenDay ? { ...(fiveHour ? { fiveHour } : {}), ...(sevenDay ? { sevenDay } : {}) } : undefined;
}
