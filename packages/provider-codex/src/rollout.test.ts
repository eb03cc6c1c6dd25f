import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codex } from './provider.js';
import { codexTurns, parseRollout, readCodexMessages, readCodexTurn } from './rollout.js';

// Recorded from the real codex 0.169.0 against test-fixtures/mock-servers/openai-responses.mjs:
// turn 1 "ECHO first answer", 2 "TOOL echo hi", 3 "FAIL 500 boom", 4 "DELAY 8000 ECHO late" + Esc,
// 5 "ASK echo approved-run" + y, 6 " /not-a-command x" (leading space: sent as a prompt).
const real = readFileSync(new URL('./__fixtures__/real-0.169.0-session.jsonl', import.meta.url), 'utf8');
const lines = real.trimEnd().split('\n');

const turnIds = codexTurns(parseRollout(real)).map((t) => t.turnId);

describe('readCodexTurn on a real 0.169.0 rollout', () => {
  it('finds six turns', () => {
    expect(turnIds).toHaveLength(6);
  });

  it('reads a completed turn by turn id (the UserPromptSubmit/Stop turn_id)', () => {
    const r = readCodexTurn({ content: real, turnKey: turnIds[0], ordinal: 1, stopSeen: true });
    expect(r).toMatchObject({ status: 'completed', answer: 'first answer', sessionId: '01a2294c-9e44-7922-a62f-8ba67cfeae4d', model: 'mock-model' });
    if (r.status === 'completed') expect(r.tokenUsage?.outputTokens).toBe(3);
  });

  it('reads a tool turn', () => {
    expect(readCodexTurn({ content: real, turnKey: turnIds[1] })).toMatchObject({ status: 'completed', answer: 'TOOL-RESULT: hi', numTurns: 2 });
  });

  it('reports an API error (task_complete with error, no hook fired) as failed', () => {
    expect(readCodexTurn({ content: real, turnKey: turnIds[2], stopSeen: false })).toEqual({
      status: 'failed',
      message: 'We’re currently experiencing high demand, which may cause temporary errors.',
    });
  });

  it('reports Esc as interrupted', () => {
    expect(readCodexTurn({ content: real, turnKey: turnIds[3] })).toEqual({ status: 'interrupted', message: 'interrupted' });
  });

  it('reads an approved escalation and the slash-looking prompt', () => {
    expect(readCodexTurn({ content: real, turnKey: turnIds[4] })).toMatchObject({ status: 'completed', answer: 'TOOL-RESULT: approved-run' });
    expect(readCodexTurn({ content: real, turnKey: turnIds[5] })).toMatchObject({ status: 'completed', answer: 'MOCK-REPLY: /not-a-command x' });
  });

  it('falls back to the ordinal when no turn id is known', () => {
    expect(readCodexTurn({ content: real, ordinal: 2 })).toMatchObject({ status: 'completed', answer: 'TOOL-RESULT: hi' });
    expect(readCodexTurn({ content: real, ordinal: 7 })).toEqual({ status: 'missing' });
  });

  it('is missing for an unknown turn id and for an empty file', () => {
    expect(readCodexTurn({ content: real, turnKey: 'nope' })).toEqual({ status: 'missing' });
    expect(readCodexTurn({ content: '', ordinal: 1 })).toEqual({ status: 'missing' });
  });

  it('inside the Stop hook (answer written, task_complete not yet): running before stop, completed after', () => {
    const end = lines.findIndex((l) => l.includes('"task_complete"'));
    const snapshot = `${lines.slice(0, end).join('\n')}\n`;
    expect(readCodexTurn({ content: snapshot, turnKey: turnIds[0], stopSeen: false }).status).toBe('running');
    expect(readCodexTurn({ content: snapshot, turnKey: turnIds[0], stopSeen: true })).toMatchObject({ status: 'completed', answer: 'first answer' });
  });

  it('ignores a partial last line', () => {
    const end = lines.findIndex((l) => l.includes('"task_complete"'));
    const partial = `${lines.slice(0, end).join('\n')}\n${(lines[end] ?? '').slice(0, 40)}`;
    expect(readCodexTurn({ content: partial, turnKey: turnIds[0] }).status).toBe('running');
  });

  it('reports the running tool as activity', () => {
    const at = lines.findIndex((l) => l.includes('"function_call"'));
    expect(readCodexTurn({ content: lines.slice(0, at + 1).join('\n'), turnKey: turnIds[1] })).toEqual({
      status: 'running',
      activity: 'exec_command: echo hi',
    });
  });

  it('does not take an interim commentary message as the answer before task_complete', () => {
    const started = lines.findIndex((l) => l.includes('"task_started"'));
    const commentary = JSON.stringify({
      type: 'response_item',
      payload: {
        type: 'message',
        role: 'assistant',
        phase: 'commentary',
        content: [{ type: 'output_text', text: 'thinking…' }],
        internal_chat_message_metadata_passthrough: { turn_id: turnIds[0] },
      },
    });
    const text = [...lines.slice(0, started + 1), commentary].join('\n');
    expect(readCodexTurn({ content: text, turnKey: turnIds[0], stopSeen: true }).status).toBe('running');
  });
});

describe('the answer before task_complete, once Stop has fired', () => {
  const started = { type: 'event_msg', payload: { type: 'task_started', turn_id: 't1' } };
  const read = (...records: unknown[]) =>
    readCodexTurn({ content: `${[started, ...records].map((r) => JSON.stringify(r)).join('\n')}\n`, turnKey: 't1', stopSeen: true });
  const item = (phase?: string) => ({
    type: 'event_msg',
    payload: { type: 'item_completed', turn_id: 't1', item: { type: 'AgentMessage', phase, content: [{ type: 'Text', text: `agent ${phase}` }] } },
  });
  const message = (text: string, phase?: string) => ({
    type: 'response_item',
    payload: {
      type: 'message',
      role: 'assistant',
      phase,
      content: [{ type: 'output_text', text }],
      internal_chat_message_metadata_passthrough: { turn_id: 't1' },
    },
  });

  it('an assistant message without a phase (older builds) is the final answer', () => {
    expect(read(message('no phase'))).toMatchObject({ status: 'completed', answer: 'no phase' });
  });

  it('with no assistant response_item, the last AgentMessage item counts, unless it is commentary', () => {
    expect(read(item('final_answer'))).toMatchObject({ status: 'completed', answer: 'agent final_answer' });
    expect(read(item('commentary'))).toEqual({ status: 'running' });
    expect(read(message('said', 'final_answer'), item('final_answer'))).toMatchObject({ status: 'completed', answer: 'said' });
  });
});

describe('shell turns and messages', () => {
  const shellTurn = [
    { type: 'event_msg', payload: { type: 'task_started', turn_id: 't-shell' } },
    {
      type: 'response_item',
      payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<user_shell_command>\n<command>\necho bang\n</command>' }] },
    },
    { type: 'event_msg', payload: { type: 'task_complete', turn_id: 't-shell', last_agent_message: null } },
  ]
    .map((r) => JSON.stringify(r))
    .join('\n');

  it('skips !cmd turns when counting by ordinal', () => {
    const content = `${shellTurn}\n${real}`;
    expect(readCodexTurn({ content, ordinal: 1 })).toMatchObject({ status: 'completed', answer: 'first answer' });
  });

  it('builds stream messages for a tool turn, as `claude -p` does: the prompt itself is not echoed', () => {
    const msgs = readCodexMessages({ content: real, turnKey: turnIds[1] });
    expect(msgs.map((m) => m.type)).toEqual(['assistant', 'user', 'assistant']);
    expect(JSON.stringify(msgs[0])).toContain('"tool_use"');
    expect(JSON.stringify(msgs[1])).toContain('"tool_result"');
    expect(JSON.stringify(msgs[2])).toContain('TOOL-RESULT: hi');
    expect(JSON.stringify(msgs)).not.toContain('TOOL echo hi');
  });

  it('reports usage in the neutral names (cached input is cacheReadTokens), with no total', () => {
    const r = readCodexTurn({ content: real, turnKey: turnIds[0] });
    if (r.status !== 'completed') throw new Error(`expected completed, got ${r.status}`);
    expect(r.tokenUsage).toEqual({ inputTokens: 13124, outputTokens: 3, cacheReadTokens: 0, cacheCreationTokens: 0, reasoningTokens: 0 });
    // the provider adds the legacy record in Claude's names, for engines that read only that
    const legacy = codex.doReadTurn({ content: real, transcriptPath: '/r.jsonl', turnKey: turnIds[0], ordinal: 1, stopSeen: true });
    expect(legacy.status === 'completed' && legacy.usage).toEqual({
      input_tokens: 13124,
      output_tokens: 3,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
      reasoningTokens: 0,
    });
  });
});
