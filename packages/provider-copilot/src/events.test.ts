import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findCopilotTurn, parseEvents, readCopilotMessages, readCopilotTurn } from './events.js';
import { copilot } from './provider.js';

// One real session of Copilot CLI 1.0.102 against the chat mock (test-fixtures/real/COPILOT-FACTS.md):
// 1 ECHO, 2 a pasted two-line ECHO, 3 TOOL touch (permission approved), 4 FAIL 500 x1, 5 FAIL 401,
// 6 TOOL rm (Escape at the permission), 7 FAIL 429 (five retries).
const recorded = readFileSync(new URL('./__fixtures__/real-1.0.102-events.jsonl', import.meta.url), 'utf8');
const lines = recorded.split('\n').filter(Boolean);
const read = (ordinal: number, content = recorded) => readCopilotTurn({ content, transcriptPath: '/x/events.jsonl', ordinal, stopSeen: false });
/** The file as it was right after its first line of `type` following the `ordinal`-th prompt (a read mid-turn). */
function cutAfter(ordinal: number, type: string, nth = 1): string {
  let seen = 0;
  let prompts = 0;
  for (const [i, line] of lines.entries()) {
    const t = (JSON.parse(line) as { type: string }).type;
    if (t === 'user.message') prompts += 1;
    if (prompts === ordinal && t === type && ++seen === nth) return `${lines.slice(0, i + 1).join('\n')}\n`;
  }
  throw new Error(`no ${type} #${nth} in turn ${ordinal}`);
}

describe('the session events of a real Copilot session', () => {
  it('completed turns: the answer byte-exact from the last message without tool requests, usage summed, the session named', () => {
    expect(read(1)).toEqual({
      status: 'completed',
      answer: 'first answer',
      tokenUsage: { inputTokens: 14362, outputTokens: 13, cacheReadTokens: 0, cacheCreationTokens: 0 },
      numTurns: 1,
      sessionId: '11111111-2222-4333-8444-555555555555',
      model: 'mock-model',
    });
    expect(read(2)).toMatchObject({ status: 'completed', answer: 'line one\nline two' });
    // a tool step, then the answer: two model calls
    expect(read(3)).toMatchObject({ status: 'completed', answer: 'TOOL-RESULT: <shellId: 0 completed with exit code 0>', numTurns: 2 });
    // a 500 retried once leaves no record: the turn completes
    expect(read(4)).toMatchObject({ status: 'completed', answer: 'recovered' });
  });

  it('failed turns: session.error with its status and type; 401 is auth-failed, 429 rate-limited', () => {
    expect(read(5)).toMatchObject({ status: 'failed', apiErrorStatus: 401, apiErrorType: 'authentication', account: { kind: 'auth-failed' } });
    expect((read(5) as { message: string }).message).toMatch(/^Authentication failed with provider at http:\/\/127\.0\.0\.1:\d+\/v1 \(HTTP 401\)/);
    expect(read(7)).toMatchObject({ status: 'failed', apiErrorStatus: 429, apiErrorType: 'rate_limit', account: { kind: 'rate-limited' } });
    expect((read(7) as { message: string }).message).toMatch(/retried 5 times .*Last error: 429 slow down/);
  });

  it("a session.error's account failure: its HTTP status wins over its errorType, which names one without a status", () => {
    const failed = (data: Record<string, unknown>) =>
      read(
        1,
        `${[
          { type: 'user.message', data: { content: 'x' } },
          { type: 'session.error', data },
        ]
          .map((e) => JSON.stringify(e))
          .join('\n')}\n`,
      );
    expect(failed({ statusCode: 401, errorType: 'rate_limit' })).toMatchObject({ account: { kind: 'auth-failed' }, apiErrorType: 'rate_limit' });
    expect(failed({ statusCode: 500, errorType: 'authentication', message: '' })).toEqual({
      status: 'failed',
      message: 'Copilot reported an error',
      apiErrorStatus: 500,
      apiErrorType: 'authentication',
      account: { kind: 'auth-failed' },
    });
    expect(failed({ statusCode: '429', errorType: 'other' })).toEqual({ status: 'failed', message: 'Copilot reported an error', apiErrorType: 'other' });
  });

  it('usage: every neutral name, 0 where no usage record has a finite number for it', () => {
    const events = [
      { type: 'user.message', data: { content: 'x' } },
      { type: 'session.usage_record', data: { usage: { inputTokens: 5, outputTokens: 'many', cacheWriteTokens: 2 } } },
      { type: 'session.usage_record', data: { usage: [1] } },
      { type: 'session.usage_record', data: { usage: { inputTokens: 3, outputTokens: Number.NaN } } },
      { type: 'assistant.turn_start', data: {} },
      { type: 'assistant.message', data: { content: 'done' } },
      { type: 'assistant.turn_end', data: {} },
    ];
    const content = `${events.map((e) => JSON.stringify(e)).join('\n')}\n`;
    expect(read(1, content)).toMatchObject({ tokenUsage: { inputTokens: 8, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 2 } });
  });

  it('through the provider, the events file is parsed once per text: its turn and messages are read from that parse', () => {
    const parsed = copilot.doParseTranscript?.({ content: recorded, transcriptPath: '/x/events.jsonl' });
    expect(parsed).toBeDefined();
    const options = { content: '', transcriptPath: '/x/events.jsonl', ordinal: 1, stopSeen: false, parsed };
    expect(copilot.doReadTurn(options)).toMatchObject({ status: 'completed', answer: 'first answer' });
    expect(copilot.doReadMessages?.(options)).toEqual(readCopilotMessages({ ...options, content: recorded }));
  });

  it('Escape at a permission prompt is an abort: interrupted', () => {
    expect(read(6)).toMatchObject({ status: 'interrupted' });
  });

  it('mid-turn: a turn_end after a tool step, or before the error lands, is no end; a prompt not yet there is missing', () => {
    expect(read(3, cutAfter(3, 'tool.execution_start'))).toEqual({ status: 'running', activity: 'bash: touch made-by-tool.txt' });
    expect(read(3, cutAfter(3, 'assistant.turn_end'))).toEqual({ status: 'running' });
    expect(read(5, cutAfter(5, 'assistant.turn_end'))).toEqual({ status: 'running' });
    expect(read(6, cutAfter(6, 'assistant.turn_end'))).toEqual({ status: 'running', activity: 'bash: rm made-by-tool.txt' });
    expect(read(1, cutAfter(1, 'user.message'))).toEqual({ status: 'running' });
    expect(read(8)).toEqual({ status: 'missing' });
    expect(read(1, '')).toEqual({ status: 'missing' });
    // a half-written last line is not read
    expect(read(1, `${cutAfter(1, 'assistant.message')}{"type":"assistant.turn_e`)).toEqual({ status: 'running' });
  });

  it('turns are the n-th user.message and the events up to the next one', () => {
    const events = parseEvents(recorded);
    expect(events.filter((e) => e.type === 'user.message').map((e) => e.data.content)).toEqual([
      'ECHO first answer',
      'ECHO line one\nline two',
      'TOOL touch made-by-tool.txt',
      'FAIL 500 x1 ECHO recovered',
      'FAIL 401 bad key',
      'TOOL rm made-by-tool.txt',
      'FAIL 429 slow down',
    ]);
    const second = findCopilotTurn(events, 2)?.events ?? [];
    expect(second[0]?.data.content).toBe('ECHO line one\nline two');
    expect(second.filter((e) => e.type === 'user.message')).toHaveLength(1);
    expect(second.map((e) => e.type)).toContain('assistant.turn_end');
  });

  it('stream messages: the tool call, its result and the answer, in stream-json shape', () => {
    const messages = readCopilotMessages({ content: recorded, transcriptPath: '/x', ordinal: 3, stopSeen: true });
    expect(messages.map((m) => m.type)).toEqual(['assistant', 'user', 'assistant']);
    expect(messages[0]?.message).toMatchObject({
      content: [{ type: 'tool_use', name: 'bash', input: { command: 'touch made-by-tool.txt', description: 'Run touch made-by-tool.txt' } }],
    });
    expect(messages[1]?.message).toMatchObject({ content: [{ type: 'tool_result', content: '\n<shellId: 0 completed with exit code 0>', is_error: false }] });
    expect(messages[2]?.message).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'TOOL-RESULT: <shellId: 0 completed with exit code 0>' }] });
    expect(readCopilotMessages({ content: recorded, transcriptPath: '/x', ordinal: 9, stopSeen: false })).toEqual([]);
  });
});

// A real session with subagents (test-fixtures/real/BACKGROUND-FACTS.md §7): 1 `AGENT DELAY 10000 ECHO
// sub-done` (a sync `task`: the subagent's events, each with its `agentId`, in the same file), 2
// `BGAGENT DELAY 15000 ECHO bg-done` (`mode: background`: the turn ends while it runs), then the turn
// Copilot starts by itself when the agent is idle (a `system.notification`, no user.message).
const subagents = readFileSync(new URL('./__fixtures__/real-1.0.102-subagents-events.jsonl', import.meta.url), 'utf8');
const subLines = subagents.split('\n').filter(Boolean);
const readSub = (ordinal: number, content = subagents) => readCopilotTurn({ content, transcriptPath: '/x/events.jsonl', ordinal, stopSeen: true });
/** The file up to (and with) its `nth` event of `type` whose line contains `text`. */
function subUpTo(type: string, text = '', nth = 1): string {
  let seen = 0;
  const i = subLines.findIndex((l) => (JSON.parse(l) as { type: string }).type === type && l.includes(text) && ++seen === nth);
  if (i < 0) throw new Error(`no ${type} with ${text}`);
  return `${subLines.slice(0, i + 1).join('\n')}\n`;
}
const BG_AGENT = '863458c8-eb6d-4e7f-b843-0750e68859ec';

describe('subagents in the session events of a real Copilot session', () => {
  it("a sync subagent's own user.message and answer are not the turn's: the turn completes with the main agent's answer", () => {
    expect(readSub(1)).toMatchObject({ status: 'completed', answer: 'TOOL-RESULT: sub-done', numTurns: 2 });
    expect(readSub(1)).not.toHaveProperty('background');
    // while the subagent runs, and right after its own answer, the turn runs on
    expect(readSub(1, subUpTo('user.message', '"content":"DELAY 10000 ECHO sub-done"'))).toEqual({ status: 'running', activity: 'task' });
    expect(readSub(1, subUpTo('assistant.turn_end', '"parentToolCallId":"call_c3ef0aa5a8c3242165c1c269"'))).toEqual({ status: 'running', activity: 'task' });
    expect(readSub(1, subUpTo('subagent.completed'))).toEqual({ status: 'running', activity: 'task' });
  });

  it("stream messages of a turn with a subagent: the main agent's task call, its result and answer, none of the agent's own", () => {
    const messages = readCopilotMessages({ content: subagents, transcriptPath: '/x', ordinal: 1, stopSeen: true });
    expect(messages.map((m) => m.type)).toEqual(['assistant', 'user', 'assistant']);
    expect(messages[0]?.message).toMatchObject({ content: [{ type: 'tool_use', name: 'task' }] });
    expect(messages[2]?.message).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'TOOL-RESULT: sub-done' }] });
  });

  it('a background subagent still running at the turn’s end is listed (kind subagent, its agent id); the turn Copilot starts when it ends is no turn', () => {
    // read at the turn's end: its answer, then its turn_end (the agent's model call still pending)
    const second = readSub(2, subUpTo('assistant.turn_end', '"turnId":"1"}', 2));
    expect(second).toMatchObject({ status: 'completed', background: [{ kind: 'subagent', id: BG_AGENT, running: true }] });
    expect((second as { answer: string }).answer).toMatch(/^TOOL-RESULT: Agent started in background with agent_id: 863458c8/);
    // the whole file: turn 2 keeps its answer (not the notification turn's), and there is no turn 3
    expect(readSub(2)).toMatchObject({ status: 'completed', answer: (second as { answer: string }).answer });
    expect(readSub(3)).toEqual({ status: 'missing' });
    expect(parseEvents(subagents).filter((e) => e.type === 'user.message' && !e.agentId)).toHaveLength(2);
  });
});
