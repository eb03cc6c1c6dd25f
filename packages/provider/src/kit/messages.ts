/**
 * What every transcript reader builds: a turn's messages in Claude's stream-json shape (as
 * `claude -p --output-format stream-json` prints them, ProviderV1's `doReadMessages`), and the
 * neutral token usage from a CLI's own usage record. Pure.
 */
import type { ProviderV1Message, ProviderV1Usage } from '../spec.js';
import { asRecord } from './json.js';

/** An assistant message of `content` blocks; `extra` joins the message (e.g. its `model`). */
export function assistantMessage(content: readonly unknown[], uuid?: string, extra: Readonly<Record<string, unknown>> = {}): ProviderV1Message {
  return { type: 'assistant', message: { role: 'assistant', content, ...extra }, ...(uuid !== undefined ? { uuid } : {}) };
}

/** A user message of tool results (stream-json echoes no prompt: its `user` lines carry tool results). */
export function toolResultsMessage(results: readonly unknown[], uuid?: string): ProviderV1Message {
  return { type: 'user', message: { role: 'user', content: results }, ...(uuid !== undefined ? { uuid } : {}) };
}

/** A `text` block. */
export const textBlock = (text: string) => ({ type: 'text', text });
/** A `tool_use` block. */
export const toolUseBlock = (id: unknown, name: unknown, input: unknown) => ({ type: 'tool_use', id, name, input });
/** A `tool_result` block (`is_error` only when given). */
export const toolResultBlock = (toolUseId: unknown, content: string, isError?: boolean) => ({
  type: 'tool_result',
  tool_use_id: toolUseId,
  content,
  ...(isError !== undefined ? { is_error: isError } : {}),
});

/** A mutable usage record, as a reader sums one up. */
export type UsageTotal = { -readonly [K in keyof ProviderV1Usage]: number };

/**
 * Add a CLI's usage record to `total` by `names` (the CLI's field → the neutral name): finite
 * numbers only; fields without a neutral name (`total_tokens`) are left out. Returns `total`.
 */
export function addUsage(total: UsageTotal, record: unknown, names: Readonly<Record<string, keyof ProviderV1Usage>>): UsageTotal {
  for (const [key, value] of Object.entries(asRecord(record) ?? {})) {
    const name = Object.hasOwn(names, key) ? names[key] : undefined;
    if (name && typeof value === 'number' && Number.isFinite(value)) total[name] = (total[name] ?? 0) + value;
  }
  return total;
}
