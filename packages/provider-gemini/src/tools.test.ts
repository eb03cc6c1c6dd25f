import { readFileSync } from 'node:fs';
import { expectReadsFromOneParse } from '@umbel/core/testing';
import { describe, expect, it } from 'vitest';
import { createGemini } from './provider.js';
import { classifyGeminiTool, readGeminiToolError } from './facts.js';

describe('classifyGeminiTool', () => {
  it('maps the file tools and the shell (gemini-cli 0.61 names and parameters)', () => {
    expect(classifyGeminiTool({ name: 'read_file', input: { file_path: '/w/a.ts', start_line: 1 } })).toEqual({ read: ['/w/a.ts'] });
    expect(classifyGeminiTool({ name: 'read_many_files', input: { include: ['a.ts', 'src/**/*.ts', 'b.md'] } })).toEqual({ read: ['a.ts', 'b.md'] });
    expect(classifyGeminiTool({ name: 'write_file', input: { file_path: '/w/c.ts', content: 'x' } })).toEqual({ written: ['/w/c.ts'] });
    expect(classifyGeminiTool({ name: 'replace', input: { file_path: '/w/c.ts', old_string: 'a', new_string: 'b' } })).toEqual({ edited: ['/w/c.ts'] });
    expect(classifyGeminiTool({ name: 'run_shell_command', input: { command: 'npm test', description: 'd' } })).toEqual({ command: 'npm test' });
    expect(classifyGeminiTool({ name: 'glob', input: { pattern: '**/*' } })).toEqual({});
  });

  it('never throws on inputs it does not expect', () => {
    for (const input of [undefined, null, 'x', 42, [], { include: 'a' }, { file_path: {} }]) {
      for (const name of ['read_file', 'read_many_files', 'write_file', 'replace', 'run_shell_command', 'x'])
        expect(() => classifyGeminiTool({ name, input })).not.toThrow();
    }
  });

  it('reads error responses and non-zero exits', () => {
    expect(readGeminiToolError({ name: 'read_file', content: '{"error":"File not found: /w/x"}', isError: false })).toBe('File not found: /w/x');
    expect(readGeminiToolError({ content: 'Output: boom\nExit Code: 2\nProcess Group PGID: 9', isError: false })).toBe('Exit Code: 2: boom');
    expect(readGeminiToolError({ content: 'Output: (empty)\nProcess Group PGID: 9', isError: false })).toBeUndefined();
    expect(readGeminiToolError({ content: '{"output":"fine"}', isError: false })).toBeUndefined();
  });

  it('is wired into the provider and reads the tool calls of a recorded session', () => {
    const gemini = createGemini();
    const content = readFileSync(new URL('./__fixtures__/real-0.61.0-session.jsonl', import.meta.url), 'utf8');
    const options = {
      content,
      transcriptPath: '/c.jsonl',
      prompt: 'TOOL touch /tmp/h6-exp/work/x.txt',
      turnKey: '2026-11-29T21:53:54.054Z',
      ordinal: 2,
      stopSeen: true,
    };
    const messages = gemini.doReadMessages?.(options) ?? [];
    const blocks = messages.flatMap((m) => (m.message as { content: { type: string; name?: string; input?: unknown; content?: string }[] }).content);
    const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => gemini.doClassifyTool?.({ name: b.name as string, input: b.input }));
    expect(uses).toEqual([{ command: 'touch /tmp/h6-exp/work/x.txt' }]);
    const errors = blocks.filter((b) => b.type === 'tool_result').map((b) => gemini.doReadToolError?.({ content: b.content as string, isError: false }));
    expect(errors).toEqual([undefined]);
    expectReadsFromOneParse(gemini, options);
  });
});
