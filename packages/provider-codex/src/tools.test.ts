import { readFileSync } from 'node:fs';
import type { ProviderV1Message, ProviderV1ToolCall } from '@umbel/core';
import { classifyTool } from '@umbel/core';
import { expectReadsFromOneParse } from '@umbel/core/testing';
import { describe, expect, it } from 'vitest';
import { createCodex } from './provider.js';
import { codexTurns, parseRollout } from './rollout.js';
import { CODEX_TOOLS, patchPaths, readCodexToolError } from './tools.js';

const classifyCodexTool = (call: ProviderV1ToolCall) => classifyTool(CODEX_TOOLS, call);

const PATCH = [
  '*** Begin Patch',
  '*** Add File: src/new.ts',
  '+x',
  '*** Update File: src/old.ts',
  '@@',
  '-a',
  '+b',
  '*** Update File: src/moved.ts',
  '*** Move to: src/renamed.ts',
  '*** Delete File: src/gone.ts',
  '*** End Patch',
].join('\n');

describe('classifyCodexTool', () => {
  it('reads the shell tools of every codex version', () => {
    expect(classifyCodexTool({ name: 'exec_command', input: { cmd: 'echo hi', login: false } })).toEqual({ command: 'echo hi' });
    expect(classifyCodexTool({ name: 'shell_command', input: { command: 'ls -la' } })).toEqual({ command: 'ls -la' });
    expect(classifyCodexTool({ name: 'shell', input: { command: ['bash', '-lc', 'cat a | wc -l'], workdir: '/w' } })).toEqual({ command: 'cat a | wc -l' });
    expect(classifyCodexTool({ name: 'shell', input: { command: ['rg', 'two words', 'src'] } })).toEqual({ command: "rg 'two words' src" });
  });

  it('reads the files of a patch, as a tool and through the shell', () => {
    expect(patchPaths(PATCH)).toEqual({ edited: ['src/old.ts', 'src/moved.ts', 'src/gone.ts'], written: ['src/new.ts', 'src/renamed.ts'] });
    expect(classifyCodexTool({ name: 'apply_patch', input: { input: PATCH } })).toMatchObject({ written: ['src/new.ts', 'src/renamed.ts'] });
    expect(classifyCodexTool({ name: 'apply_patch', input: PATCH })).toMatchObject({ edited: ['src/old.ts', 'src/moved.ts', 'src/gone.ts'] });
    expect(classifyCodexTool({ name: 'shell', input: { command: ['apply_patch', PATCH], workdir: '/w' } })).toMatchObject({
      written: ['/w/src/new.ts', '/w/src/renamed.ts'],
    });
  });

  it('never throws on inputs it does not expect', () => {
    for (const input of [undefined, null, 'x', 42, [], { cmd: 7 }, { command: [1, 2] }]) {
      for (const name of ['exec_command', 'shell', 'shell_command', 'apply_patch', 'web_search'])
        expect(() => classifyCodexTool({ name, input })).not.toThrow();
    }
  });

  it('a non-zero exit is an error; exit 0 is not', () => {
    const out = (code: number) => `Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code ${code}\nOriginal token count: 1\nOutput:\nboom\n`;
    expect(readCodexToolError({ name: 'exec_command', content: out(2), isError: false })).toBe('exit 2: boom');
    expect(readCodexToolError({ name: 'exec_command', content: out(0), isError: false })).toBeUndefined();
    expect(readCodexToolError({ content: '{"output":"nope\\n","metadata":{"exit_code":1}}', isError: false })).toBe('exit 1: nope');
    expect(readCodexToolError({ content: '{"output":"ok","metadata":{"exit_code":0}}', isError: false })).toBeUndefined();
    const long = `${'x'.repeat(300)}END`; // the output's last 240 characters only
    expect(readCodexToolError({ content: `Process exited with code 1\nOutput:\n${long}\n`, isError: false })).toBe(`exit 1: ${long.slice(-240)}`);
    expect(readCodexToolError({ content: JSON.stringify({ output: long, metadata: { exit_code: 3 } }), isError: false })).toBe(`exit 3: ${long.slice(-240)}`);
  });

  it('is wired into the provider and reads the tool calls of a recorded rollout', () => {
    const codex = createCodex();
    const content = readFileSync(new URL('./__fixtures__/real-0.169.0-session.jsonl', import.meta.url), 'utf8');
    const turnKey = codexTurns(parseRollout(content))[1]?.turnId;
    const messages: readonly ProviderV1Message[] =
      codex.doReadMessages?.({ content, transcriptPath: '/r.jsonl', ...(turnKey ? { turnKey } : {}), ordinal: 2, stopSeen: true }) ?? [];
    const blocks = messages.flatMap((m) => (m.message as { content: { type: string; name?: string; input?: unknown; content?: string }[] }).content);
    const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => codex.doClassifyTool?.({ name: b.name as string, input: b.input }));
    expect(uses).toEqual([{ command: 'echo hi' }]);
    const results = blocks.filter((b) => b.type === 'tool_result').map((b) => codex.doReadToolError?.({ content: b.content as string, isError: false }));
    expect(results).toEqual([undefined]);
    expectReadsFromOneParse(codex, { content, transcriptPath: '/r.jsonl', ...(turnKey ? { turnKey } : {}), ordinal: 2, stopSeen: true });
  });
});
