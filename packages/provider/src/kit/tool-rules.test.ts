import { describe, expect, it } from 'vitest';
import { splitToolRules } from './tool-rules.js';

describe('splitToolRules', () => {
  it('splits on commas and whitespace outside parentheses only', () => {
    expect(splitToolRules('Bash(git diff:*) Edit,Read')).toEqual(['Bash(git diff:*)', 'Edit', 'Read']);
    expect(splitToolRules('Bash(npm run a, b)  ,\tWrite')).toEqual(['Bash(npm run a, b)', 'Write']);
    expect(splitToolRules('Bash((a b)) c')).toEqual(['Bash((a b))', 'c']);
  });
  it('keeps going after an unbalanced closing parenthesis, and gives none for blanks', () => {
    expect(splitToolRules('a) b')).toEqual(['a)', 'b']);
    expect(splitToolRules(' , ')).toEqual([]);
  });
});
