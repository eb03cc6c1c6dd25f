import { describe, expect, it } from 'vitest';
import { partsMessage } from './parts-message.js';

describe('partsMessage: one Gemini API content as a stream-json message', () => {
  it("a model's text and function calls: one assistant message, with its uuid and model", () => {
    const parts = [{ text: 'thinking', thought: true }, { text: 'a' }, { functionCall: { id: 'c1', name: 'ls', args: { path: '.' } } }];
    expect(partsMessage('model', parts, { uuid: 'm1', model: 'g-1' })).toEqual({
      type: 'assistant',
      uuid: 'm1',
      message: {
        role: 'assistant',
        model: 'g-1',
        content: [
          { type: 'text', text: 'a' },
          { type: 'tool_use', id: 'c1', name: 'ls', input: { path: '.' } },
        ],
      },
    });
    expect(partsMessage('model', 'plain')).toEqual({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'plain' }] } });
  });

  it('calls recorded beside the parts come after the text; a function call part of the same id is not repeated', () => {
    const calls = [{ type: 'tool_use', id: 'c1', name: 'ls', input: {} }];
    const parts = [{ functionCall: { id: 'c1', name: 'ls' } }, { functionCall: { id: 'c2', name: 'cat' } }];
    const content = [...calls, { type: 'tool_use', id: 'c2', name: 'cat', input: {} }];
    expect(partsMessage('model', parts, { calls })).toEqual({ type: 'assistant', message: { role: 'assistant', content } });
  });

  it("a user's function responses: one message of tool results; nothing else makes a message", () => {
    const parts = [{ text: 'prompt' }, { functionResponse: { id: 'c1', name: 'ls', response: { output: 'x' } } }];
    expect(partsMessage('user', parts, { uuid: 'u1' })).toEqual({
      type: 'user',
      uuid: 'u1',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'x' }] },
    });
    expect(partsMessage('user', [{ text: 'prompt' }])).toBeUndefined();
    expect(partsMessage('model', [{ text: '' }])).toBeUndefined();
  });
});
