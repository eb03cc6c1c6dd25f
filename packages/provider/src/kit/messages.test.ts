import { describe, expect, it } from 'vitest';
import { addUsage, assistantMessage, textBlock, toolResultBlock, toolResultsMessage, toolUseBlock } from './messages.js';

describe('stream-json messages', () => {
  it('builds assistant and tool-result messages, the uuid only when given', () => {
    expect(assistantMessage([textBlock('hi'), toolUseBlock('c1', 'Bash', { command: 'ls' })], 'u1', { model: 'm' })).toEqual({
      type: 'assistant',
      uuid: 'u1',
      message: {
        role: 'assistant',
        model: 'm',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'tool_use', id: 'c1', name: 'Bash', input: { command: 'ls' } },
        ],
      },
    });
    expect(assistantMessage([])).not.toHaveProperty('uuid');
    expect(toolResultsMessage([toolResultBlock('c1', 'out')])).toEqual({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'out' }] },
    });
    expect(toolResultBlock('c1', 'boom', true)).toEqual({ type: 'tool_result', tool_use_id: 'c1', content: 'boom', is_error: true });
  });
});

describe('addUsage', () => {
  const names = { input_tokens: 'inputTokens', output_tokens: 'outputTokens' } as const;

  it('sums the named fields into the neutral names, leaving out the others and non-numbers', () => {
    const total = addUsage({}, { input_tokens: 10, output_tokens: 2, total_tokens: 12, toString: 1 }, names);
    expect(addUsage(total, { input_tokens: 5, output_tokens: 'x' }, names)).toEqual({ inputTokens: 15, outputTokens: 2 });
  });

  it('takes a record that is not an object as empty', () => {
    expect(addUsage({}, null, names)).toEqual({});
    expect(addUsage({}, [1, 2], names)).toEqual({});
  });
});
