/**
 * A message's `content` in the Anthropic Messages shape (Claude Code's transcript): a string, or an
 * array of typed blocks (`{type: 'text', text}`, `tool_use`, …). Pure. Its text: `blockText`.
 */
import { asRecord } from './json.js';

/** The content as blocks: a string is one `text` block; entries that are no object are skipped; anything else is none. */
export function contentBlocks(content: unknown): Record<string, unknown>[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.map(asRecord).filter((block): block is Record<string, unknown> => block !== undefined);
}
