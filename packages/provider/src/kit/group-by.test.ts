import { describe, expect, it } from 'vitest';
import { groupBy } from './group-by.js';

describe('groupBy', () => {
  it('groups by key in the order of each group’s first item, keeping the order inside a group', () => {
    const items = [
      { id: 'b', n: 1 },
      { id: 'a', n: 2 },
      { id: 'b', n: 3 },
      { id: 'c', n: 4 },
      { id: 'a', n: 5 },
    ];
    expect(groupBy(items, (item) => item.id).map((group) => group.map((item) => item.n))).toEqual([[1, 3], [2, 5], [4]]);
    expect(groupBy([], String)).toEqual([]);
  });
});
