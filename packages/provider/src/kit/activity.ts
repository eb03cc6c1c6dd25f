/** A tool call as one activity line (`bash: npm test`), for `umbel status` and a running turn. Pure. */
import { asRecord, stringField } from './json.js';

/** `tool: arg`, the arg being the first non-empty string among `keys` of `args` (dotted keys reach in); else the tool alone. */
export function toolActivity(tool: string, args: unknown, keys: readonly string[]): string {
  const record = asRecord(args);
  const arg = keys.map((key) => stringField(record, key)).find(Boolean);
  return arg ? `${tool}: ${arg}` : tool;
}
