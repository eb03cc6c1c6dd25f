/** The text of a message's content blocks (`[{type, text}, …]`, the shape most transcripts store). Pure. */
import { asRecord } from './json.js';

/** The `text` of the blocks in `content` whose `type` is one of `types`, joined; '' when `content` is no list. */
export function blockText(content: unknown, types: readonly string[]): string {
  if (!Array.isArray(content)) return '';
  return content
    .map(asRecord)
    .filter((b) => b !== undefined && types.includes(b.type as string) && typeof b.text === 'string')
    .map((b) => b?.text as string)
    .join('');
}
