import { describe, expect, it } from 'vitest';
import { blockText } from './blocks.js';

describe('blockText', () => {
  it('joins the text of the blocks of the named types only', () => {
    const content = [{ type: 'output_text', text: 'a' }, { type: 'reasoning', text: 'x' }, null, { type: 'text', text: 'b' }, { type: 'text', text: 3 }];
    expect(blockText(content, ['output_text', 'text'])).toBe('ab');
    expect(blockText(content, ['input_text'])).toBe('');
    expect(blockText('plain', ['text'])).toBe('');
  });
});
