import { describe, expect, it } from 'vitest';
import { AUTO_TRUNCATE_TOKENS, shapeAnswer } from './answer.js';

const doc = ['# Report', 'intro', '## Findings', 'f1', '### Detail', 'd1', '## Next', 'n1', '# Appendix', 'a1'].join('\n');
/** `n` numbered lines of 40 characters (about 10 tokens each). */
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${String(i).padStart(4, '0')} ${'x'.repeat(29)}`).join('\n');

describe('shapeAnswer', () => {
  it('returns a markdown section up to the next heading of the same or a higher level', () => {
    expect(shapeAnswer(doc, { section: '## Findings' }).text).toBe('## Findings\nf1\n### Detail\nd1');
    expect(shapeAnswer(doc, { section: 'findings' }).text).toBe('## Findings\nf1\n### Detail\nd1');
    expect(shapeAnswer(doc, { section: '# Report' }).text).toBe(doc.split('\n# Appendix')[0]);
    expect(shapeAnswer(doc, { section: 'Appendix' }).text).toBe('# Appendix\na1');
    // the level must match when hashes are given; an absent section is empty
    expect(shapeAnswer(doc, { section: '### Findings' }).text).toBe('');
    expect(shapeAnswer(doc, { section: 'Missing' }).text).toBe('');
    // a heading inside a fenced code block is not a heading
    expect(shapeAnswer('## A\n```\n## B\n```\ntail', { section: 'A' }).text).toBe('## A\n```\n## B\n```\ntail');
  });

  it('head and tail keep about N tokens (4 characters each), cut at line boundaries', () => {
    const text = lines(100);
    const head = shapeAnswer(text, { head: 25 });
    expect(head.text).toBe(text.split('\n').slice(0, 2).join('\n'));
    expect(head.elidedTokens).toBeGreaterThan(900);
    const tail = shapeAnswer(text, { tail: 25 });
    expect(tail.text).toBe(text.split('\n').slice(-2).join('\n'));
    const both = shapeAnswer(text, { head: 25, tail: 25, hint: 'ask for more' });
    expect(both.text).toMatch(/^line 0000 .*\nline 0001 .*\n\.\.\. \[~\d+ tokens elided, ask for more\] \.\.\.\nline 0098 .*\nline 0099 .*$/);
    // overlapping head and tail: nothing to elide
    expect(shapeAnswer(text, { head: 800, tail: 800 })).toEqual({ text });
    expect(shapeAnswer(text, { head: 0 }).text).toBe('');
  });

  it('auto-truncates only answers over the limit, to head and tail with a marker', () => {
    const short = lines(10);
    expect(shapeAnswer(short, { auto: true })).toEqual({ text: short });
    const long = lines(Math.ceil((AUTO_TRUNCATE_TOKENS * 4) / 40) + 50);
    const auto = shapeAnswer(long, { auto: true, hint: 'call umbel_read with full=true to see all' });
    expect(auto.text.length).toBeLessThan(long.length);
    expect(auto.text).toContain('tokens elided, call umbel_read with full=true to see all] ...');
    expect(auto.text.startsWith('line 0000')).toBe(true);
    expect(auto.text.endsWith(long.slice(long.lastIndexOf('\n') + 1))).toBe(true);
    expect(auto.elidedTokens).toBeGreaterThan(0);
    // without auto, or with a section, nothing is cut
    expect(shapeAnswer(long, {})).toEqual({ text: long });
  });

  it('a single line longer than the budget is cut inside the line', () => {
    const one = 'y'.repeat(1000);
    expect(shapeAnswer(one, { head: 10 }).text).toBe('y'.repeat(40));
    expect(shapeAnswer(one, { tail: 10 }).text).toBe('y'.repeat(40));
  });
});
