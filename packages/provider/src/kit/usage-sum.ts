/** A turn's token usage summed over the CLI's usage records (one per model call). Pure. */
import type { ProviderV1Usage } from '../spec.js';
import { addUsage, type UsageTotal } from './messages.js';

/** The records' usage added up by `names` ({@link addUsage}); undefined when none of them names a number. */
export function sumUsage(records: readonly unknown[], names: Readonly<Record<string, keyof ProviderV1Usage>>): UsageTotal | undefined {
  const total: UsageTotal = {};
  for (const record of records) addUsage(total, record, names);
  return Object.keys(total).length > 0 ? total : undefined;
}
