import { describe, expect, it } from 'vitest';
import { rememberLast } from './remember-last.js';

describe('rememberLast', () => {
  it('gives the same text its last result without reading it again, and reads a new text', () => {
    let calls = 0;
    const lines = rememberLast((text: string) => {
      calls += 1;
      return text.split('\n');
    });
    const first = lines('a\nb');
    expect(lines('a\nb')).toBe(first);
    expect(calls).toBe(1);
    expect(lines('a\nb\nc')).toEqual(['a', 'b', 'c']);
    expect(lines('a\nb')).not.toBe(first);
    expect(calls).toBe(3);
  });
});
