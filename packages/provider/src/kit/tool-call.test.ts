import { describe, expect, it } from 'vitest';
import { describeToolCall, toolArgument } from './tool-call.js';

const FIELDS = ['command', 'file_path', 'args.path'];

describe('toolArgument / describeToolCall', () => {
  it('takes the first non-empty field in the order given, on one line', () => {
    expect(toolArgument({ file_path: '/a.ts', command: 'ls\n  -la' }, FIELDS)).toBe('ls -la');
    expect(toolArgument({ command: '', file_path: '/a.ts' }, FIELDS)).toBe('/a.ts');
    expect(toolArgument({ args: { path: 'src' } }, FIELDS)).toBe('src');
    expect(toolArgument({ command: 'x'.repeat(100) }, FIELDS)).toHaveLength(80);
  });
  it('is undefined for an input without those fields, or no object', () => {
    expect(toolArgument({ other: 'x' }, FIELDS)).toBeUndefined();
    expect(toolArgument('ls', FIELDS)).toBeUndefined();
    expect(toolArgument(undefined, FIELDS)).toBeUndefined();
  });
  it('draws name(argument), else the bare name', () => {
    expect(describeToolCall('Bash', { command: 'ls -la' }, FIELDS)).toBe('Bash(ls -la)');
    expect(describeToolCall('Glob', { pattern: '*.ts' }, FIELDS)).toBe('Glob');
  });
});
