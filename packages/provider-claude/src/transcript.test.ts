import { readFileSync } from 'node:fs';
import type { ProviderV1ReadTurnOptions } from '@umbel/core';
import { describe, expect, it } from 'vitest';
import { claude } from './provider.js';
import { parseClaudeTranscript, readClaudeMessages, readClaudeTurn } from './transcript.js';

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/transcripts/${name}.jsonl`, import.meta.url), 'utf8');
const read = (name: string, over: Partial<ProviderV1ReadTurnOptions> = {}) =>
  readClaudeTurn({ content: fixture(name), transcriptPath: `/cfg/projects/-srv-work/${name}.jsonl`, ordinal: 1, stopSeen: true, ...over });
const messages = (name: string, over: Partial<ProviderV1ReadTurnOptions> = {}) =>
  readClaudeMessages({ content: fixture(name), transcriptPath: `/cfg/projects/-srv-work/${name}.jsonl`, ordinal: 1, stopSeen: true, ...over });

const SID = '22222222-2222-4222-8222-222222222222';

describe('parseClaudeTranscript', () => {
  it('skips blank and partial lines', () => {
    const entries = parseClaudeTranscript('{"type":"mode"}\n\n{"type":"us\nnot json\n[1]\n{"type":"user"}');
    expect(entries.map((e) => e.data.type)).toEqual(['mode', 'user']);
  });
});

describe('readClaudeTurn', () => {
  it('text turn: answer, usage, numTurns, model, session, stop reason', () => {
    expect(read('text-turn', { turnKey: 'p-text-1' })).toEqual({
      status: 'completed',
      answer: 'first answer',
      tokenUsage: { inputTokens: 10, outputTokens: 5, cacheCreationTokens: 0, cacheReadTokens: 100 },
      numTurns: 1,
      sessionId: SID,
      model: 'claude-opus-5-5',
      stopReason: 'end_turn',
    });
  });

  it('text turn by ordinal when no turnKey is known', () => {
    expect(read('text-turn')).toMatchObject({ status: 'completed', answer: 'first answer' });
  });

  it('metadata after the reply (and a partial last line) does not hide the answer', () => {
    expect(read('metadata-after-reply', { turnKey: 'p-meta-1' })).toMatchObject({ status: 'completed', answer: 'MOCK-REPLY: hello there' });
  });

  it('multi-block message (text + tool_use with one message.id) counts as one API message', () => {
    const turn = read('multi-block', { turnKey: 'p-multi-1' });
    expect(turn).toMatchObject({ status: 'completed', answer: 'TOOL-RESULT: multi-block', numTurns: 2 });
    // msg_B1's usage is copied on both of its entries: counted once.
    expect(turn.status === 'completed' && turn.tokenUsage).toEqual({ inputTokens: 50, outputTokens: 13, cacheCreationTokens: 0, cacheReadTokens: 200 });
    // Through the provider, the legacy record (Claude's names) comes with it, for engines that read only that.
    const viaProvider = claude.doReadTurn({ content: fixture('multi-block'), transcriptPath: '/t', ordinal: 1, stopSeen: true, turnKey: 'p-multi-1' });
    expect(viaProvider.status === 'completed' && viaProvider.usage).toEqual({
      input_tokens: 50,
      output_tokens: 13,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 200,
    });
  });

  it('a prompt entry repeated with its promptId is one prompt; a synthetic message counts in neither usage nor numTurns', () => {
    const line = (data: object) => JSON.stringify({ sessionId: SID, ...data });
    const user = (uuid: string, promptId: string, text: string) =>
      line({ type: 'user', uuid, promptId, origin: { kind: 'human' }, message: { role: 'user', content: text } });
    const assistant = (id: string, model: string, text: string, outputTokens: number) =>
      line({
        type: 'assistant',
        message: { role: 'assistant', id, model, stop_reason: 'end_turn', usage: { output_tokens: outputTokens }, content: [{ type: 'text', text }] },
      });
    const content = [
      user('u0', 'p-1', 'first'),
      user('u0b', 'p-1', 'first'),
      assistant('m0', '<synthetic>', 'No response requested.', 7),
      assistant('m1', 'claude-a', 'answer one', 2),
      line({ type: 'system', subtype: 'turn_duration' }),
      user('u1', 'p-2', 'second'),
      assistant('m2', 'claude-a', 'answer two', 3),
      line({ type: 'system', subtype: 'turn_duration' }),
    ].join('\n');
    const byOrdinal = (ordinal: number) => readClaudeTurn({ content, transcriptPath: 'x', ordinal, stopSeen: true });
    expect(byOrdinal(1)).toMatchObject({ status: 'completed', answer: 'answer one', numTurns: 1, tokenUsage: { outputTokens: 2 } });
    expect(byOrdinal(2)).toMatchObject({ status: 'completed', answer: 'answer two' });
    expect(byOrdinal(3)).toEqual({ status: 'missing' });
  });

  it('tool turn: tool_use, tool_result, then the final text', () => {
    expect(read('tool-turn', { turnKey: 'p-tool-1' })).toMatchObject({ status: 'completed', answer: 'TOOL-RESULT: total 0', numTurns: 2 });
  });

  it('Stop seen and its final message in the transcript: completed before turn_duration lands, only when the texts agree', () => {
    const before = (name: string) =>
      fixture(name)
        .split('\n')
        .filter((line) => !/"subtype":"(turn_duration|stop_hook_summary)"|"type":"last-prompt"/.test(line))
        .join('\n');
    const early = (name: string, over: Partial<ProviderV1ReadTurnOptions>) =>
      readClaudeTurn({ content: before(name), transcriptPath: '/cfg/t.jsonl', ordinal: 1, stopSeen: true, ...over });
    expect(early('text-turn', { turnKey: 'p-text-1' })).toMatchObject({ status: 'running' });
    expect(early('text-turn', { turnKey: 'p-text-1', stopMessage: 'first answer' })).toEqual(read('text-turn', { turnKey: 'p-text-1' }));
    expect(early('tool-turn', { turnKey: 'p-tool-1', stopMessage: 'TOOL-RESULT: total 0' })).toMatchObject({
      status: 'completed',
      answer: 'TOOL-RESULT: total 0',
      numTurns: 2,
    });
    // a different text (the final entry not written yet), no Stop, or a tool call last: keep waiting
    expect(early('text-turn', { turnKey: 'p-text-1', stopMessage: 'first answer, longer' })).toMatchObject({ status: 'running' });
    expect(early('text-turn', { turnKey: 'p-text-1', stopMessage: 'first answer', stopSeen: false })).toMatchObject({ status: 'running' });
    expect(early('final-missing', { turnKey: 'p-multi-1', stopMessage: 'Running: echo multi-block' })).toMatchObject({ status: 'running' });
  });

  it('final message missing (Stop came first) → running with the last tool call as activity', () => {
    expect(read('final-missing', { turnKey: 'p-multi-1' })).toEqual({ status: 'running', activity: 'Bash(echo multi-block)' });
  });

  it('only the header lines written yet → missing', () => {
    const content = fixture('text-turn').split('\n').slice(0, 3).join('\n');
    expect(readClaudeTurn({ content, transcriptPath: 'x', turnKey: 'p-text-1', ordinal: 1, stopSeen: true })).toEqual({ status: 'missing' });
    expect(readClaudeTurn({ content: '', transcriptPath: 'x', ordinal: 1, stopSeen: false })).toEqual({ status: 'missing' });
  });

  it('prompt written, no reply yet → running without activity', () => {
    expect(read('two-turns', { turnKey: 'p-two-2', ordinal: 2 })).toEqual({ status: 'running' });
  });

  it('API error → failed with the error text', () => {
    const turn = read('api-error', { turnKey: 'p-err-1' });
    expect(turn.status).toBe('failed');
    expect(turn.status === 'failed' && turn.message).toMatch(/^API Error: 500 boom\. This is a server-side issue/);
    // what `claude -p` prints as api_error_status / api_error_type / stop_reason
    expect(turn).toMatchObject({ apiErrorStatus: 500, apiErrorType: 'api_error', stopReason: 'stop_sequence' });
  });

  it('interrupt → interrupted', () => {
    expect(read('interrupt', { turnKey: 'p-int-1' })).toEqual({ status: 'interrupted', message: '[Request interrupted by user for tool use]' });
  });

  it('queued prompt: its own promptId, by ordinal, and when keyed by the running turn’s prompt_id (queued UPS)', () => {
    expect(read('queued', { turnKey: 'p-q-1', prompt: 'DELAY 2000 ECHO slow one' })).toMatchObject({ status: 'completed', answer: 'slow one' });
    expect(read('queued', { turnKey: 'p-q-2' })).toMatchObject({ status: 'completed', answer: 'queued two' });
    expect(read('queued', { ordinal: 2 })).toMatchObject({ status: 'completed', answer: 'queued two' });
    expect(read('queued', { turnKey: 'p-q-1', prompt: 'ECHO queued two', ordinal: 2 })).toMatchObject({ status: 'completed', answer: 'queued two' });
  });

  it('queued prompt not written yet, keyed by the running turn’s prompt_id → missing, not turn 1’s answer', () => {
    const lines = fixture('queued').split('\n');
    const cut = lines.findIndex((line) => line.includes('"promptId":"p-q-2"'));
    const content = lines.slice(0, cut).join('\n');
    expect(readClaudeTurn({ content, transcriptPath: 'x', turnKey: 'p-q-1', prompt: 'ECHO queued two', ordinal: 2, stopSeen: true })).toEqual({
      status: 'missing',
    });
    // Text the CLI stored differently, but key and ordinal agree: still the keyed turn.
    expect(
      readClaudeTurn({ content, transcriptPath: 'x', turnKey: 'p-q-1', prompt: 'DELAY 2000 ECHO slow one\u00a0(as sent)', ordinal: 1, stopSeen: true }),
    ).toMatchObject({
      status: 'completed',
      answer: 'slow one',
    });
  });

  it('two turns: turn 2 never returns turn 1’s answer', () => {
    expect(read('two-turns', { turnKey: 'p-two-1' })).toMatchObject({ status: 'completed', answer: 'answer one' });
    expect(read('two-turns', { ordinal: 2 })).toEqual({ status: 'running' });
    const turn1Only = fixture('two-turns').split('\n').slice(0, 9).join('\n');
    expect(readClaudeTurn({ content: turn1Only, transcriptPath: 'x', turnKey: 'p-two-2', ordinal: 2, stopSeen: true })).toEqual({ status: 'missing' });
    expect(readClaudeTurn({ content: turn1Only, transcriptPath: 'x', ordinal: 2, stopSeen: true })).toEqual({ status: 'missing' });
  });

  it('an unknown turnKey is missing, not another turn', () => {
    expect(read('text-turn', { turnKey: 'p-other' })).toEqual({ status: 'missing' });
  });
});

describe('readClaudeMessages', () => {
  it('merges the per-block entries of one message.id into one assistant message, in stream-json shape', () => {
    const out = messages('multi-block', { turnKey: 'p-multi-1' });
    expect(out.map((m) => m.type)).toEqual(['assistant', 'user', 'assistant']);
    const first = out[0]?.message as { id: string; content: { type: string }[] };
    expect(first.id).toBe('msg_B1');
    expect(first.content.map((b) => b.type)).toEqual(['text', 'tool_use']);
    const result = out[1]?.message as { content: { type: string }[] };
    expect(result.content[0]?.type).toBe('tool_result');
    expect((out[2]?.message as { content: { text: string }[] }).content[0]?.text).toBe('TOOL-RESULT: multi-block');
    expect(out.every((m) => typeof m.uuid === 'string')).toBe(true);
  });

  it('a merged message takes the fields of its later entries (the last carries stop_reason and usage); the turn’s model is the last real message’s', () => {
    const line = (data: object) => JSON.stringify({ sessionId: SID, ...data });
    const assistant = (uuid: string, message: object) => line({ type: 'assistant', uuid, message: { role: 'assistant', ...message } });
    const content = [
      line({ type: 'user', uuid: 'u0', promptId: 'p-m', origin: { kind: 'human' }, message: { role: 'user', content: 'hi' } }),
      assistant('a1', { id: 'm1', model: 'claude-a', stop_reason: null, content: [{ type: 'text', text: 'one ' }] }),
      assistant('a2', {
        id: 'm1',
        model: 'claude-a',
        stop_reason: 'tool_use',
        usage: { output_tokens: 2 },
        content: [{ type: 'tool_use', name: 'Bash', input: {} }],
      }),
      assistant('a3', { id: 'm2', model: 'claude-b', stop_reason: 'end_turn', usage: { output_tokens: 3 }, content: [{ type: 'text', text: 'two' }] }),
      line({ type: 'system', subtype: 'turn_duration' }),
    ].join('\n');
    const options = { content, transcriptPath: 'x', turnKey: 'p-m', ordinal: 1, stopSeen: true };
    const [first] = readClaudeMessages(options);
    expect(first).toMatchObject({ type: 'assistant', uuid: 'a1', message: { id: 'm1', stop_reason: 'tool_use', usage: { output_tokens: 2 } } });
    expect((first?.message as { content: unknown[] }).content).toHaveLength(2);
    expect(readClaudeTurn(options)).toMatchObject({ status: 'completed', answer: 'two', model: 'claude-b', numTurns: 2, tokenUsage: { outputTokens: 5 } });
  });

  it('does not include the prompt or other turns', () => {
    expect(messages('two-turns', { turnKey: 'p-two-1' })).toHaveLength(1);
    expect(messages('two-turns', { turnKey: 'p-two-2' })).toEqual([]);
    expect(messages('text-turn', { turnKey: 'nope' })).toEqual([]);
  });

  it('does not mutate the transcript entries it merges (reading twice gives the same result)', () => {
    const once = JSON.stringify(messages('multi-block', { turnKey: 'p-multi-1' }));
    expect(JSON.stringify(messages('multi-block', { turnKey: 'p-multi-1' }))).toBe(once);
  });
});

// The real 2.1.332 after a background subagent ended: a <task-notification> user entry (origin
// task-notification, its own promptId) and the turn Claude Code started by itself (test-fixtures/real/BACKGROUND-FACTS.md §2).
describe('a turn Claude Code started by itself (<task-notification>, recorded on 2.1.332)', () => {
  const name = 'real-2.1.332-task-notification';
  const first = { turnKey: '669d3c09-0ef1-4641-8e03-f88ac4d4efb2', prompt: 'BGAGENT DELAY 25000 ECHO sub-done' };

  it("ends the turn before it: turn 1 still reads its own answer, not the self-started turn's", () => {
    const turn = read(name, first);
    expect(turn.status).toBe('completed');
    expect(turn.status === 'completed' && turn.answer).toMatch(/^TOOL-RESULT: Async agent launched successfully\./);
  });

  it('is not a turn umbel sent: the second prompt by ordinal is not found', () => {
    expect(read(name, { ordinal: 2 }).status).toBe('missing');
  });
});
