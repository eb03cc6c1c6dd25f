/**
 * A message's `content` in the Anthropic Messages shape (Claude Code's transcript, Codex's response
 * items): a string, or an array of typed blocks (`{type: 'text', text}`, `tool_use`, …). Pure.
 */
import { asRecord } from './json.js';

/** The content as blocks: a string is one `text` block; entries that are no object are skipped; anything else is none. */
export function contentBlocks(content: unknown): Record<string, unknown>[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.map(asRecord).filter((block): block is Record<string, unknown> => block !== undefined);
}

/** The `text` of the blocks whose type is one of `types` (default `text`), joined with nothing between. */
export function blocksText(content: unknown, types: readonly string[] = ['text']): string {
  return contentBlocks(content)
    .filter((block) => types.includes(String(block.type)) && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('');
}
