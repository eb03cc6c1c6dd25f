import { describe, expect, it } from 'vitest';
import { blocksText, contentBlocks } from './content-blocks.js';

describe('contentBlocks / blocksText', () => {
  it('reads a string as one text block and skips entries that are no object', () => {
    expect(contentBlocks('hi')).toEqual([{ type: 'text', text: 'hi' }]);
    expect(contentBlocks([{ type: 'tool_use', name: 'Bash' }, null, 'x', [1]])).toEqual([{ type: 'tool_use', name: 'Bash' }]);
    expect(contentBlocks(undefined)).toEqual([]);
    expect(contentBlocks({ type: 'text', text: 'a' })).toEqual([]);
  });
  it('joins the text of the text blocks only, or of the types given', () => {
    const content = [
      { type: 'text', text: 'a' },
      { type: 'tool_use', text: 'no' },
      { type: 'output_text', text: 'b' },
      { type: 'text', text: 'c' },
      { type: 'text', text: 1 },
    ];
    expect(blocksText(content)).toBe('ac');
    expect(blocksText(content, ['output_text'])).toBe('b');
    expect(blocksText('whole')).toBe('whole');
    expect(blocksText(undefined)).toBe('');
  });
});
