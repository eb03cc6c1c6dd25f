import { describe, expect, it } from 'vitest';
import { withoutJsonMember } from './json-member.js';

describe('withoutJsonMember', () => {
  const state = { first: 1, projects: { '/a': { trusted: true }, '/b': {} }, last: true };

  it('drops the member at the path, keeping every other member and the key order, as 2-space JSON', () => {
    const text = withoutJsonMember(JSON.stringify(state), ['projects', '/a']);
    expect(text).toBe(`${JSON.stringify({ first: 1, projects: { '/b': {} }, last: true }, null, 2)}\n`);
    expect(Object.keys(JSON.parse(text as string))).toEqual(['first', 'projects', 'last']);
  });

  it('is undefined when there is nothing to drop: no such member, a path through a non-object, no JSON object', () => {
    expect(withoutJsonMember(JSON.stringify(state), ['projects', '/c'])).toBeUndefined();
    expect(withoutJsonMember(JSON.stringify(state), ['first', 'x'])).toBeUndefined();
    expect(withoutJsonMember(JSON.stringify(state), ['projects', 'toString'])).toBeUndefined();
    expect(withoutJsonMember('not json', ['projects'])).toBeUndefined();
    expect(withoutJsonMember('[1]', ['0'])).toBeUndefined();
  });

  it('drops a top-level member', () => {
    expect(JSON.parse(withoutJsonMember(JSON.stringify(state), ['last']) as string)).toEqual({ first: 1, projects: state.projects });
  });
});
