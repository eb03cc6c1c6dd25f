import { readFileSync } from 'node:fs';
import type { ProviderV1Message, ProviderV1ToolCall } from '@umbel/core';
import { expectReadsFromOneParse } from '@umbel/core/testing';
import { describe, expect, it } from 'vitest';
import { createClaude } from './provider.js';

const toolUses = (messages: readonly ProviderV1Message[]) =>
  messages.flatMap((m) => ((m.message as { content?: { type: string; name: string; input: unknown }[] }).content ?? []).filter((b) => b.type === 'tool_use'));

/** What the engine calls: the provider's doClassifyTool, compiled from CLAUDE_TOOLS. */
const classifyClaudeTool = (call: ProviderV1ToolCall) => createClaude().doClassifyTool?.(call);

describe('classifyClaudeTool', () => {
  it('maps the file tools and Bash', () => {
    expect(classifyClaudeTool({ name: 'Read', input: { file_path: '/w/a.ts' } })).toEqual({ read: ['/w/a.ts'] });
    expect(classifyClaudeTool({ name: 'Edit', input: { file_path: '/w/a.ts', old_string: 'a', new_string: 'b' } })).toEqual({ edited: ['/w/a.ts'] });
    expect(classifyClaudeTool({ name: 'MultiEdit', input: { file_path: '/w/b.ts', edits: [] } })).toEqual({ edited: ['/w/b.ts'] });
    expect(classifyClaudeTool({ name: 'NotebookEdit', input: { notebook_path: '/w/n.ipynb' } })).toEqual({ edited: ['/w/n.ipynb'] });
    expect(classifyClaudeTool({ name: 'Write', input: { file_path: '/w/c.ts', content: 'x' } })).toEqual({ written: ['/w/c.ts'] });
    expect(classifyClaudeTool({ name: 'Bash', input: { command: 'pnpm test', description: 'run' } })).toEqual({ command: 'pnpm test' });
    expect(classifyClaudeTool({ name: 'Grep', input: { pattern: 'x', path: '/w' } })).toEqual({});
  });

  it('never throws on inputs it does not expect', () => {
    for (const input of [undefined, null, 'text', 42, [], { file_path: 7 }, { command: '' }]) {
      for (const name of ['Read', 'Edit', 'Write', 'Bash', 'Task', '']) expect(() => classifyClaudeTool({ name, input })).not.toThrow();
    }
    expect(classifyClaudeTool({ name: 'Read', input: { file_path: 7 } })).toEqual({ read: [] });
  });

  it('is wired into the provider and reads the tool calls of a recorded turn', () => {
    const claude = createClaude();
    const content = readFileSync(new URL('./__fixtures__/transcripts/tool-turn.jsonl', import.meta.url), 'utf8');
    const messages = claude.doReadMessages?.({ content, transcriptPath: '/t.jsonl', turnKey: 'p-tool-1', ordinal: 1, stopSeen: true }) ?? [];
    const uses = toolUses(messages);
    expect(uses.length).toBeGreaterThan(0);
    expect(uses.map((u) => claude.doClassifyTool?.({ name: u.name, input: u.input }))).toEqual([{ command: 'ls -la' }]);
    expectReadsFromOneParse(claude, { content, transcriptPath: '/t.jsonl', turnKey: 'p-tool-1', ordinal: 1, stopSeen: true });
  });
});
