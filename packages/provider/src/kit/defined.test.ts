import { describe, expect, it } from 'vitest';
import { definedMembers } from './defined.js';

describe('definedMembers', () => {
  it('drops the undefined members only, keeping the order of the others', () => {
    const out = definedMembers({ a: 1, b: undefined, c: '', d: null, e: 0, f: false });
    expect(out).toStrictEqual({ a: 1, c: '', d: null, e: 0, f: false });
    expect(Object.keys(out)).toEqual(['a', 'c', 'd', 'e', 'f']);
    expect('b' in out).toBe(false);
  });

  it('returns a copy', () => {
    const record = { a: 1 };
    expect(definedMembers(record)).not.toBe(record);
  });
});
