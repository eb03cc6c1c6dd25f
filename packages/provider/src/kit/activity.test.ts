import { describe, expect, it } from 'vitest';
import { payloadActivity, toolActivity, toolArgument } from './activity.js';

const FIELDS = ['command', 'file_path', 'args.path'];

describe('toolArgument', () => {
  it('takes the first non-empty field in the order given, on one line of at most 80 characters', () => {
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
});

describe('toolActivity', () => {
  it('names the tool and the first non-empty string argument among the keys, in their order', () => {
    const keys = ['command', 'filePath', 'url'];
    expect(toolActivity('bash', { filePath: '/w/a', command: 'ls -l' }, keys, 'colon')).toBe('bash: ls -l');
    expect(toolActivity('read', { command: '', filePath: '/w/a' }, keys, 'colon')).toBe('read: /w/a');
    expect(toolActivity('fetch', { details: { url: 'https://x' } }, ['details.url'])).toBe('fetch(https://x)');
  });

  it('the tool alone when no key holds a string, or the arguments are not an object', () => {
    expect(toolActivity('glob', { pattern: 3, command: '' }, ['command', 'pattern'])).toBe('glob');
    expect(toolActivity('task', undefined, ['command'])).toBe('task');
    expect(toolActivity('task', ['ls'], ['0'])).toBe('task');
  });
});

describe('payloadActivity', () => {
  const activity = payloadActivity({ tool: 'tool_name', input: 'tool_input', fields: ['command', 'file_path'] });

  it('names the tool and the first non-empty input field of the list', () => {
    expect(activity({ tool_name: 'run_shell_command', tool_input: { command: 'ls -la', file_path: 'x' } })).toBe('run_shell_command(ls -la)');
    expect(activity({ tool_name: 'read_file', tool_input: { command: '', file_path: 'a.ts' } })).toBe('read_file(a.ts)');
  });

  it('is the bare name when no field has a text, and nothing without a tool', () => {
    expect(activity({ tool_name: 'glob', tool_input: { pattern: '*.ts' } })).toBe('glob');
    expect(activity({ tool_name: 'glob', tool_input: 'not an object' })).toBe('glob');
    expect(activity({ tool_input: { command: 'ls' } })).toBeUndefined();
  });
});

describe('payloadActivity with max', () => {
  it('cuts the whole line (a long tool name included) to max characters', () => {
    const activity = payloadActivity({ tool: 'tool_name', input: 'tool_input', fields: ['command'], max: 20 });
    expect(activity({ tool_name: 'mcp__server__a_long_tool', tool_input: { command: 'ls' } })).toBe('mcp__server__a_long…');
    expect(activity({ tool_name: 'Bash', tool_input: { command: 'ls\n-la' } })).toBe('Bash(ls -la)');
  });
});
