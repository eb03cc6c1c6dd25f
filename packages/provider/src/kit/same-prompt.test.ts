import { describe, expect, it } from 'vitest';
import { samePrompt } from './same-prompt.js';

describe('samePrompt', () => {
  it('matches across the input box’s tab, CRLF and trimming', () => {
    expect(samePrompt('a    b\nc', 'a\tb\r\nc  ')).toBe(true);
    expect(samePrompt('  x\ny  ', 'x\ry')).toBe(true);
    expect(samePrompt('a  b', 'a\tb')).toBe(false);
    expect(samePrompt('other', 'x')).toBe(false);
  });

  it('matches the pasted form under the prompt facts (an escaped command), and never a refused prompt', () => {
    expect(samePrompt(' /x', '/x', { escapeLeading: ['/'] })).toBe(true);
    expect(samePrompt('/x', '/x', { escapeLeading: ['/'] })).toBe(true);
    const refuse = [{ match: /^!/, message: () => 'no' }];
    expect(samePrompt('!ls x', '!ls', { refuse })).toBe(false);
    expect(samePrompt('!ls', '!ls', { refuse })).toBe(true);
  });
});
