import { describe, expect, it } from 'vitest';
import { toolActivity } from './activity.js';

describe('toolActivity', () => {
  const activity = toolActivity({ tool: 'tool_name', input: 'tool_input', fields: ['command', 'file_path'] });

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
