/** Plan usage as a CLI reports it: its windows under names of its own in one record. Pure. */
import type { ProviderV1Quota } from '../spec.js';
import { asRecord } from './json.js';
import { quotaWindow } from './quota.js';

/** The CLI's name of each window it reports (`{fiveHour: 'five_hour', sevenDay: 'seven_day'}`). */
export type QuotaNames = { readonly [K in keyof ProviderV1Quota]-?: string };

/** The windows `value` holds under `names` ({@link quotaWindow} of each, the used percent in `usedKey`); undefined when it holds none. */
export function namedQuota(value: unknown, names: Partial<QuotaNames>, usedKey?: string): ProviderV1Quota | undefined {
  const record = asRecord(value);
  const windows = Object.entries(names).flatMap(([window, name]) => {
    const found = quotaWindow(record?.[name], usedKey);
    return found ? [[window, found] as const] : [];
  });
  return windows.length > 0 ? Object.fromEntries(windows) : undefined;
}
