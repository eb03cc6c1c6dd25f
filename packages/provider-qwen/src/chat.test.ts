import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readQwenMessages, readQwenTurn, turnRecords } from './chat.js';

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
// Recorded from the real Qwen Code 0.15.10 against the chat-completions mock (QWEN-FACTS §6).
const chat = fixture('real-0.15.10-chat.jsonl');
const retries = fixture('real-0.15.10-chat-retries.jsonl');
const read = (content: string, ordinal: number, prompt?: string) =>
  readQwenTurn({ content, transcriptPath: '/x.jsonl', ordinal, stopSeen: false, ...(prompt !== undefined ? { prompt } : {}) });

describe('readQwenTurn on real 0.15.10 chat recordings', () => {
  it('a turn is completed with the final text, its usage, model and session', () => {
    expect(read(chat, 1, 'ECHO first answer')).toMatchObject({
      status: 'completed',
      answer: 'first answer',
      model: 'mock-model',
      sessionId: '11cdf5d9-7b3a-4ee5-901e-d11cc18a1876',
      tokenUsage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number), cacheReadTokens: 0, reasoningTokens: 0 },
    });
  });

  it("the <task-notification> turn Qwen Code runs after a background agent is no turn of umbel's: it ends the turn before it and takes no ordinal", () => {
    const background = fixture('real-0.15.10-background-chat.jsonl');
    const first = read(background, 1);
    expect(first.status === 'completed' && first.answer).toMatch(/^TOOL-RESULT: Background agent launched successfully\./);
    expect(read(background, 2)).toMatchObject({ status: 'completed', answer: 'after the notification' });
    expect(readQwenMessages({ content: background, transcriptPath: '/x.jsonl', ordinal: 2, stopSeen: false })).toHaveLength(1);
    expect(read(background, 3)).toEqual({ status: 'missing' });
  });

  it('a multi-line answer is byte-exact', () => {
    expect(read(chat, 2, 'ECHO multi\nline answer\n  indented')).toMatchObject({ status: 'completed', answer: 'multi\nline answer\n  indented' });
  });

  it('a turn that called a tool completes with the text after the tool result', () => {
    const turn = read(chat, 7, 'TOOL touch approved.txt');
    expect(turn).toMatchObject({ status: 'completed' });
    expect(turn.status === 'completed' && turn.answer).toMatch(/^TOOL-RESULT: Command: touch approved.txt\n/);
  });

  it('a turn whose last record is a function call is still running, naming the tool', () => {
    const upToCall = chat
      .split('\n')
      .slice(0, chat.split('\n').findIndex((l) => l.includes('"functionCall"')) + 1)
      .join('\n');
    expect(read(upToCall, 3, 'TOOL touch approved.txt')).toEqual({ status: 'running', activity: 'run_shell_command' });
  });

  it('401 is auth-failed and 400 a plain failure, neither retried', () => {
    expect(read(chat, 8, 'FAIL 401 invalid key')).toEqual({
      status: 'failed',
      message: '401 invalid key',
      apiErrorStatus: 401,
      apiErrorType: 'AuthenticationError',
      account: { kind: 'auth-failed' },
    });
    expect(read(chat, 4, 'FAIL 400 bad request body')).toEqual({
      status: 'failed',
      message: '400 bad request body',
      apiErrorStatus: 400,
      apiErrorType: 'BadRequestError',
    });
  });

  it('a 429 the SDK absorbed leaves no record: the turn completes', () => {
    expect(read(chat, 5, 'FAIL 429 x1 ECHO recovered')).toMatchObject({ status: 'completed', answer: 'recovered' });
  });

  it('a recorded 429 or 5xx is a failure the CLI keeps retrying (rate-limited for 429)', () => {
    const lines = chat.split('\n');
    const first429 = lines.slice(0, lines.findIndex((l) => l.includes('"status_code":429')) + 1).join('\n');
    expect(read(first429, 6, 'FAIL 429 too many')).toEqual({
      status: 'failed',
      message: '429 too many',
      apiErrorStatus: 429,
      apiErrorType: 'RateLimitError',
      account: { kind: 'rate-limited' },
      retrying: true,
    });
    expect(read(retries, 7, 'FAIL 500 server broke')).toMatchObject({
      status: 'failed',
      apiErrorStatus: 500,
      apiErrorType: 'InternalServerError',
      retrying: true,
    });
    expect(read(retries, 7, 'FAIL 500 server broke')).not.toHaveProperty('account');
  });

  it('a call aborted by Esc (while retrying) is an interrupted turn', () => {
    expect(read(chat, 6, 'FAIL 429 too many')).toEqual({ status: 'interrupted', message: 'the request was cancelled; the worker waits for input' });
  });

  it("a side agent's API error (the auto-memory extractor's prompt id) is no failure of the turn", () => {
    const first = chat.split('\n').slice(0, 5).join('\n');
    const side = {
      type: 'system',
      subtype: 'ui_telemetry',
      systemPayload: { uiEvent: { 'event.name': 'qwen-code.api_error', prompt_id: 's#managed-auto-memory-extractor-x#0', status_code: 500 } },
    };
    expect(read(first, 1, 'ECHO first answer')).toMatchObject({ status: 'completed', answer: 'first answer' });
    expect(read(`${first}\n${JSON.stringify(side)}`, 1, 'ECHO first answer')).toMatchObject({ status: 'completed', answer: 'first answer' });
  });

  it('finds the turn by its prompt when the ordinal points elsewhere, and is missing without one', () => {
    expect(read(chat, 1, 'ECHO multi\nline answer\n  indented')).toMatchObject({ answer: 'multi\nline answer\n  indented' });
    expect(read(chat, 20)).toEqual({ status: 'missing' });
    expect(read('', 1, 'x')).toEqual({ status: 'missing' });
    expect(turnRecords(chat, 2)?.[0]).toMatchObject({ type: 'user' });
  });

  it('a prompt with no record after it yet is running', () => {
    const firstPrompt = chat.split('\n').slice(0, 2).join('\n');
    expect(read(firstPrompt, 1, 'ECHO first answer')).toEqual({ status: 'running' });
  });
});

describe('readQwenMessages on the real 0.15.10 chat recording', () => {
  it('a tool turn: the call, its result, the final text, in stream-json shape', () => {
    const messages = readQwenMessages({ content: chat, transcriptPath: '/x.jsonl', ordinal: 7, prompt: 'TOOL touch approved.txt', stopSeen: true });
    expect(messages.map((m) => m.type)).toEqual(['assistant', 'user', 'assistant']);
    expect(messages[0]?.message).toMatchObject({
      role: 'assistant',
      model: 'mock-model',
      content: [{ type: 'tool_use', name: 'run_shell_command', input: { command: 'touch approved.txt' } }],
    });
    expect(messages[1]?.message).toMatchObject({
      role: 'user',
      content: [{ type: 'tool_result', content: expect.stringMatching(/^Command: touch approved.txt\n/) }],
    });
    expect(messages[2]?.message).toMatchObject({ content: [{ type: 'text', text: expect.stringMatching(/^TOOL-RESULT: /) }] });
  });

  it('a plain turn is one assistant text message; a failed one has none', () => {
    expect(readQwenMessages({ content: chat, transcriptPath: '/x.jsonl', ordinal: 1, prompt: 'ECHO first answer', stopSeen: true })).toEqual([
      expect.objectContaining({ type: 'assistant', message: expect.objectContaining({ content: [{ type: 'text', text: 'first answer' }] }) }),
    ]);
    expect(readQwenMessages({ content: chat, transcriptPath: '/x.jsonl', ordinal: 8, prompt: 'FAIL 401 invalid key', stopSeen: true })).toEqual([]);
  });
});
