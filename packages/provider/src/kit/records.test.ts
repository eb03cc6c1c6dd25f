import { describe, expect, it } from 'vitest';
import { canonicalJson, lastOf, recordAt, valueAt } from './records.js';

describe('record helpers', () => {
  it('valueAt follows keys that hold dots, and stops at what is no object', () => {
    const root = { projects: { '/w/a.b': { trust: 'yes' } }, list: [1] };
    expect(valueAt(root, ['projects', '/w/a.b', 'trust'])).toBe('yes');
    expect(valueAt(root, ['list', '0'])).toBeUndefined();
    expect(valueAt(undefined, ['x'])).toBeUndefined();
    expect(valueAt(root, [])).toBe(root);
  });

  it('recordAt makes the tables on the way and replaces what is no table', () => {
    const root: Record<string, unknown> = { a: 1, keep: { b: { c: 2 } } };
    recordAt(root, ['a', 'x']).y = true;
    recordAt(root, ['keep', 'b']).d = 3;
    expect(root).toEqual({ a: { x: { y: true } }, keep: { b: { c: 2, d: 3 } } });
  });

  it('lastOf picks the latest value that is not undefined', () => {
    const items = [{ v: 1 }, { v: 2 }, {}, { v: 0 }, {}] as { v?: number }[];
    expect(lastOf(items, (i) => i.v)).toBe(0);
    expect(lastOf(items, () => undefined)).toBeUndefined();
  });

  it('canonicalJson sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }, 3] })).toBe('{"a":[{"c":2,"d":1},3],"b":1}');
    expect(canonicalJson({ b: 1, a: 2 })).toBe(canonicalJson({ a: 2, b: 1 }));
  });
});
