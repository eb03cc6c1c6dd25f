import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from './text-diff.js';

/** GNU diff's unified output for the same texts (the hunks, without the file header). */
function gnuDiff(a: string, b: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'umbel-diff-'));
  try {
    writeFileSync(join(dir, 'a'), a);
    writeFileSync(join(dir, 'b'), b);
    try {
      return execFileSync('diff', ['-u', join(dir, 'a'), join(dir, 'b')], { encoding: 'utf8' });
    } catch (error) {
      return (error as { stdout: string }).stdout;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const hunks = (text: string) => text.split('\n').slice(2).join('\n');

describe('unifiedDiff', () => {
  it('is empty for equal texts', () => {
    expect(unifiedDiff('same\n', 'same\n', { from: 'a', to: 'b' })).toBe('');
  });

  const cases: [string, string, string][] = [
    ['one change, one added line far away', 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n', 'a\nb\nX\nd\ne\nf\ng\nh\ni\nj\nk\nl\n'],
    ['from nothing', '', 'x\ny\n'],
    ['to nothing', 'x\ny\n', ''],
    ['changes close together share a hunk', '1\n2\n3\n4\n5\n6\n7\n8\n', '1\nX\n3\n4\n5\nY\n7\n8\n'],
    ['reordered lines', 'alpha\nbeta\ngamma\ndelta\n', 'gamma\nalpha\nbeta\ndelta\n'],
  ];
  for (const [name, a, b] of cases) {
    it(`matches diff -u: ${name}`, () => {
      const ours = unifiedDiff(a, b, { from: 'turn 1', to: 'turn 2' });
      expect(ours.split('\n').slice(0, 2)).toEqual(['--- turn 1', '+++ turn 2']);
      expect(hunks(ours)).toBe(hunks(gnuDiff(a, b)));
    });
  }
});
