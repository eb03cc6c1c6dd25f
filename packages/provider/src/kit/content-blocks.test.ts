import { describe, expect, it } from 'vitest';
import { contentBlocks } from './content-blocks.js';

describe('contentBlocks', () => {
  it('reads a string as one text block and skips entries that are no object', () => {
    expect(contentBlocks('hi')).toEqual([{ type: 'text', text: 'hi' }]);
    expect(contentBlocks([{ type: 'tool_use', name: 'Bash' }, null, 'x', [1]])).toEqual([{ type: 'tool_use', name: 'Bash' }]);
    expect(contentBlocks(undefined)).toEqual([]);
    expect(contentBlocks({ type: 'text', text: 'a' })).toEqual([]);
  });
});
