import { describe, expect, it } from 'vitest';
import { attempt } from './attempt.js';

describe('attempt', () => {
  it("is fn's value, or undefined when fn throws", () => {
    expect(attempt(() => JSON.parse('{"a":1}'))).toEqual({ a: 1 });
    expect(attempt(() => JSON.parse('{'))).toBeUndefined();
    expect(attempt(() => 0)).toBe(0);
  });
});
