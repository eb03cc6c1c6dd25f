import { describe, expect, it } from 'vitest';
import { toolErrorReader } from './tool-errors.js';

describe('toolErrorReader', () => {
  const bare = toolErrorReader({ json: true, exitCode: /^Exit Code: (-?\d+)$/m });
  const withOutput = toolErrorReader({
    json: true,
    exitCode: /^\[?Exit Code: (-?\d+)\]?$/m,
    output: /^Output: ([\s\S]*?)(?:\nExit Code:|$)/m,
    noOutput: '(empty)',
  });

  it('a result flagged as an error is its own text', () => {
    expect(bare({ content: 'denied', isError: true })).toBe('denied');
  });

  it('reads a JSON error body, a string or any other value', () => {
    expect(bare({ content: ' {"error":"File not found: /w/x"}', isError: false })).toBe('File not found: /w/x');
    expect(bare({ content: '{"error":{"code":3}}', isError: false })).toBe('{"code":3}');
    expect(toolErrorReader({ exitCode: /^Exit Code: (-?\d+)$/m })({ content: '{"error":"x"}', isError: false })).toBeUndefined();
  });

  it('a non-zero exit code is a failure; zero and none are not', () => {
    expect(bare({ content: 'hi\nExit Code: 2\n', isError: false })).toBe('Exit Code: 2');
    expect(bare({ content: 'Exit Code: -1', isError: false })).toBe('Exit Code: -1');
    expect(bare({ content: 'Exit Code: 0', isError: false })).toBeUndefined();
    expect(bare({ content: 'all fine', isError: false })).toBeUndefined();
  });

  it('names the output of a failed command, its last 240 characters, unless it is the no-output text', () => {
    expect(withOutput({ content: 'Output: boom\nExit Code: 2', isError: false })).toBe('Exit Code: 2: boom');
    expect(withOutput({ content: '[Exit Code: 1]', isError: false })).toBe('Exit Code: 1');
    expect(withOutput({ content: 'Output: (empty)\nExit Code: 3', isError: false })).toBe('Exit Code: 3');
    expect(withOutput({ content: `Output: ${'a'.repeat(300)}b\nExit Code: 4`, isError: false })).toBe(`Exit Code: 4: ${'a'.repeat(239)}b`);
  });
});
