import { describe, expect, it } from 'vitest';
import { classifyTool, jsonToolError, type ToolFacts } from './tools.js';

const facts: ToolFacts = {
  table: {
    Read: { does: 'read', fields: ['file_path', 'notebook_path'] },
    Edit: { does: 'edited', fields: ['file_path'] },
    Write: { does: 'written', fields: ['file_path'] },
    Bash: { does: 'command', fields: ['cmd', 'command'] },
    ReadMany: { does: 'read', fields: ['include'] },
  },
};

describe('classifyTool', () => {
  it('maps a tool by its rule, taking the first non-empty field', () => {
    expect(classifyTool(facts, { name: 'Read', input: { file_path: '', notebook_path: '/w/n.ipynb' } })).toEqual({ read: ['/w/n.ipynb'] });
    expect(classifyTool(facts, { name: 'Edit', input: { file_path: '/w/a.ts' } })).toEqual({ edited: ['/w/a.ts'] });
    expect(classifyTool(facts, { name: 'Write', input: { file_path: '/w/c.ts' } })).toEqual({ written: ['/w/c.ts'] });
    expect(classifyTool(facts, { name: 'Bash', input: { command: 'ls' } })).toEqual({ command: 'ls' });
  });

  it('reads an array field as several files, patterns naming none', () => {
    expect(classifyTool(facts, { name: 'ReadMany', input: { include: ['a.ts', 'src/**/*.ts', 7, 'b.ts'] } })).toEqual({ read: ['a.ts', 'b.ts'] });
  });

  it('names nothing for unknown tools, inherited names and unexpected inputs', () => {
    expect(classifyTool(facts, { name: 'Grep', input: { path: '/w' } })).toEqual({});
    expect(classifyTool(facts, { name: 'constructor', input: {} })).toEqual({});
    expect(classifyTool(facts, { name: 'Read', input: { file_path: 7 } })).toEqual({ read: [] });
    expect(classifyTool(facts, { name: 'Bash', input: { command: '' } })).toEqual({});
    for (const input of [undefined, null, 'text', 42, []]) expect(() => classifyTool(facts, { name: 'Read', input })).not.toThrow();
  });

  it('lets the provider decide first, falling back to the table', () => {
    const withCode: ToolFacts = { ...facts, classify: (call) => (call.name === 'Bash' ? { written: ['/x'] } : undefined) };
    expect(classifyTool(withCode, { name: 'Bash', input: { command: 'ls' } })).toEqual({ written: ['/x'] });
    expect(classifyTool(withCode, { name: 'Edit', input: { file_path: '/w/a.ts' } })).toEqual({ edited: ['/w/a.ts'] });
  });
});

describe('jsonToolError', () => {
  it('reads the error of a `{"error": …}` result: its text, else its JSON', () => {
    expect(jsonToolError('  {"error": "File not found"}\n')).toBe('File not found');
    expect(jsonToolError('{"error":{"code":403}}')).toBe('{"code":403}');
  });

  it('finds none in plain output, other JSON or JSON that does not parse', () => {
    expect(jsonToolError('all good')).toBeUndefined();
    expect(jsonToolError('{"output":"x"}')).toBeUndefined();
    expect(jsonToolError('{"error": oops')).toBeUndefined();
    expect(jsonToolError('[{"error":"x"}]')).toBeUndefined();
  });
});
