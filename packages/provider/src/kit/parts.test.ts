import { describe, expect, it } from 'vitest';
import { functionCallBlocks, functionResponseBlocks, partsText } from './parts.js';

describe('Gemini API content parts', () => {
  it('joins the text parts, thoughts and non-text parts left out; a string content is its own text', () => {
    const parts = [{ text: 'a' }, { text: 'hidden', thought: true }, { functionCall: { name: 'x' } }, { text: 'b' }, null, 'junk'];
    expect(partsText(parts)).toBe('ab');
    expect(partsText('plain')).toBe('plain');
    expect(partsText(undefined)).toBe('');
    expect(partsText({ text: 'not a list' })).toBe('');
  });

  it('makes tool_use blocks of the function calls (input {} without args)', () => {
    const parts = [{ text: 'a' }, { functionCall: { id: 'c1', name: 'read_file', args: { file_path: 'x' } } }, { functionCall: { id: 'c2', name: 'ls' } }];
    expect(functionCallBlocks(parts)).toEqual([
      { type: 'tool_use', id: 'c1', name: 'read_file', input: { file_path: 'x' } },
      { type: 'tool_use', id: 'c2', name: 'ls', input: {} },
    ]);
    expect(functionCallBlocks('text')).toEqual([]);
  });

  it("makes tool_result blocks of the function responses: the response's output text, else the response as JSON", () => {
    const parts = [
      { functionResponse: { id: 'c1', response: { output: 'done' } } },
      { functionResponse: { id: 'c2', response: { error: 'nope' } } },
      { functionResponse: { id: 'c3' } },
      { text: 'ignored' },
    ];
    expect(functionResponseBlocks(parts)).toEqual([
      { type: 'tool_result', tool_use_id: 'c1', content: 'done' },
      { type: 'tool_result', tool_use_id: 'c2', content: '{"error":"nope"}' },
      { type: 'tool_result', tool_use_id: 'c3', content: 'null' },
    ]);
  });
});
