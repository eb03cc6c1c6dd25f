/** A turn's usage summed over the CLI's per-step usage records, by dotted field paths. Pure. */
import type { ProviderV1Usage } from '../spec.js';
import type { UsageTotal } from './messages.js';
import { valueAt } from './records.js';

/**
 * Every neutral name of `names` (a dotted path in each record → its neutral name) summed over
 * `records`: 0 when no record has a finite number there, so the turn's usage names each one.
 */
export function sumUsage(records: readonly unknown[], names: Readonly<Record<string, keyof ProviderV1Usage>>): UsageTotal {
  const total: UsageTotal = {};
  for (const [path, name] of Object.entries(names)) {
    const values = records.map((record) => valueAt(record, path.split('.')));
    total[name] = values.reduce<number>((n, v) => n + (typeof v === 'number' && Number.isFinite(v) ? v : 0), 0);
  }
  return total;
}
