/** A turn's token usage summed over the CLI's usage records (one per model call or step). Pure. */
import type { ProviderV1Usage } from '../spec.js';
import type { UsageTotal } from './messages.js';
import { valueAt } from './records.js';

/** A CLI's usage field (or a dotted path into a record) → its neutral name. */
export type UsageNames = Readonly<Record<string, keyof ProviderV1Usage>>;

/** How {@link sumUsage} reports names no record has a number for. */
export interface SumUsageOptions {
  /** Name every neutral name, 0 when no record has a finite number there (default: leave it out). */
  readonly every?: boolean;
}

/**
 * The records' usage added up by `names` (a field of each record, or a dotted path into it → its
 * neutral name), finite numbers only. Without `every`, undefined when no record names a number.
 */
export function sumUsage(records: readonly unknown[], names: UsageNames, options: { readonly every: true }): UsageTotal;
export function sumUsage(records: readonly unknown[], names: UsageNames, options?: SumUsageOptions): UsageTotal | undefined;
export function sumUsage(records: readonly unknown[], names: UsageNames, options: SumUsageOptions = {}): UsageTotal | undefined {
  const total: UsageTotal = {};
  for (const [path, name] of Object.entries(names)) {
    const values = records.map((record) => valueAt(record, path.split('.'))).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    if (values.length > 0 || options.every) total[name] = values.reduce((n, v) => n + v, total[name] ?? 0);
  }
  return options.every || Object.keys(total).length > 0 ? total : undefined;
}
