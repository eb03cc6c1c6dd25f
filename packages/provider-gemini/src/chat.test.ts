import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readGeminiMessages, readGeminiTurn, replayGeminiChat, userText } from './chat.js';

// Recorded from the real @google/gemini-cli@0.61.0 in tmux against test-fixtures/mock-servers/gemini.mjs.
// session: ECHO; TOOL touch (approved); TOOL rm (rejected -> rewrite with new ids); DELAY (Esc-cancelled);
//          ECHO after cancel; FAIL 400 (API error); ECHO with @existing.txt (expanded).
const session = readFileSync(new URL('./__fixtures__/real-0.61.0-session.jsonl', import.meta.url), 'utf8');
// rejected-repeat: two pastes merged into one prompt then Esc-cancelled; TOOL touch y.txt approved;
//                  the SAME prompt again, rejected (the rewrite merges the first prompt into the
//                  <session_context> message under a new id).
const repeat = readFileSync(new URL('./__fixtures__/real-0.61.0-rejected-repeat.jsonl', import.meta.url), 'utf8');

/** BeforeAgent timestamps of the recorded session (the hook payloads in __fixtures__). */
const accepted = {
  hello: '2026-11-29T21:53:51.770Z',
  touch: '2026-11-29T21:53:54.054Z',
  rm: '2026-11-29T21:54:02.747Z',
  delay: '2026-11-29T21:54:07.047Z',
  afterCancel: '2026-11-29T21:54:10.949Z',
  fail: '2026-11-29T21:54:18.963Z',
  at: '2026-11-29T21:54:22.393Z',
  repeatFirst: '2026-11-29T21:58:11.478Z',
  repeatSecond: '2026-11-29T21:58:15.802Z',
};

// resumed: ECHO alpha answer; the CLI killed with SIGKILL; `gemini --resume <id>` appends to the same
//          file (a second header, a reload of the list), then ECHO beta answer (test-fixtures/real/REVIVE-FACTS.md §2).
const resumed = readFileSync(new URL('./__fixtures__/real-0.61.0-resumed.jsonl', import.meta.url), 'utf8');

describe('a chat file resumed by `gemini --resume <id>` (REVIVE-FACTS.md §2)', () => {
  it('the reload after the second header keeps the earlier prompts: each turn reads its own answer', () => {
    const chat = replayGeminiChat(resumed);
    expect(chat.prompts.map((p) => [userText(p.message), p.alive])).toEqual([
      ['ECHO alpha answer', true],
      ['ECHO beta answer', true],
    ]);
    const read = (prompt: string, acceptedAt: string) => readGeminiTurn(resumed, { prompt, acceptedAt, stopSeen: true });
    expect(read('ECHO alpha answer', '2026-12-05T16:20:07.900Z')).toMatchObject({ status: 'completed', answer: 'alpha answer' });
    expect(read('ECHO beta answer', '2026-12-05T16:20:19.600Z')).toMatchObject({ status: 'completed', answer: 'beta answer' });
  });
});

describe('replayGeminiChat', () => {
  it('applies upserts by id, $set.messages rewrites and keeps the session id', () => {
    const chat = replayGeminiChat(session);
    expect(chat.sessionId).toBe('35050a10-9aac-4847-a4f2-808d4c777543');
    // the tool step is written twice under one id: only one copy remains
    const ids = chat.messages.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    const prompts = chat.prompts.map((p) => [userText(p.message), p.alive]);
    expect(prompts).toEqual([
      ['ECHO hello from umbel', true],
      ['TOOL touch /tmp/h6-exp/work/x.txt', true],
      ['TOOL rm -f /tmp/h6-exp/work/x.txt', false],
      ['DELAY 5000 ECHO slow one', false],
      ['ECHO after cancel', true],
      ['FAIL 400 bad thing', false], // an API error drops the prompt, then appends the error
      ['ECHO see @existing.txt now', true],
    ]);
  });

  it('handles $rewindTo and skips a half-written last line', () => {
    const lines = [
      '{"sessionId":"s1","projectHash":"h"}',
      '{"id":"u1","type":"user","content":[{"text":"one"}]}',
      '{"id":"g1","type":"gemini","content":"first"}',
      '{"id":"u2","type":"user","content":[{"text":"two"}]}',
      '{"id":"g2","type":"gemini","content":"second"}',
      '{"$rewindTo":"u2"}',
      '{"id":"g3","type":"gemini","content":"tru',
    ];
    const chat = replayGeminiChat(lines.join('\n'));
    expect(chat.messages.map((m) => m.id)).toEqual(['u1', 'g1']);
    expect(chat.prompts.map((p) => p.alive)).toEqual([true, false]);
  });
});

describe('readGeminiTurn on a real 0.61.0 chat', () => {
  const read = (prompt: string, acceptedAt?: string, content = session) =>
    readGeminiTurn(content, { prompt, ...(acceptedAt ? { acceptedAt } : {}), stopSeen: true });

  it('reads a plain answer after later rewrites turned its content into Part[]', () => {
    const r = read('ECHO hello from umbel', accepted.hello);
    expect(r).toMatchObject({ status: 'completed', answer: 'hello from umbel', sessionId: '35050a10-9aac-4847-a4f2-808d4c777543' });
  });

  it('reads an approved tool turn even after a later rewrite regenerated its ids', () => {
    expect(read('TOOL touch /tmp/h6-exp/work/x.txt', accepted.touch)).toMatchObject({ status: 'completed', answer: 'TOOL-RESULT: (empty)', numTurns: 2 });
  });

  it('reports a rejected tool turn as interrupted (its prompt was dropped), never the previous answer', () => {
    expect(read('TOOL rm -f /tmp/h6-exp/work/x.txt', accepted.rm).status).toBe('interrupted');
    expect(read('TOOL rm -f /tmp/h6-exp/work/x.txt').status).toBe('interrupted');
  });

  it('reports an Esc-cancelled turn as interrupted', () => {
    expect(read('DELAY 5000 ECHO slow one', accepted.delay).status).toBe('interrupted');
  });

  it('reads the turn after a cancel', () => {
    expect(read('ECHO after cancel', accepted.afterCancel)).toMatchObject({ status: 'completed', answer: 'after cancel' });
  });

  it('reports an API error as failed with the error text', () => {
    const r = read('FAIL 400 bad thing', accepted.fail);
    expect(r.status).toBe('failed');
    expect(r.status === 'failed' && r.message).toContain('"code":400');
  });

  it('matches an @file prompt by what was typed (displayContent), with usage and model', () => {
    const r = read('ECHO see @existing.txt now', accepted.at);
    expect(r).toMatchObject({ status: 'completed', answer: 'see @existing.txt now', model: 'gemini-3.8-flash' });
    // the neutral names, once: input 7 is inputTokens (a legacy record said input: 7 beside input_tokens: 0)
    expect(r.status === 'completed' && r.tokenUsage).toEqual({ inputTokens: 7, outputTokens: 6, cacheReadTokens: 0, reasoningTokens: 0 });
  });

  it("does not pin the next turn's API error on the turn before it", () => {
    // the failed prompt is dropped before its error is appended, so the error follows "after cancel" in the list
    expect(read('ECHO after cancel')).toMatchObject({ status: 'completed', answer: 'after cancel' });
  });

  it('matches the prompt the way the CLI trims it', () => {
    expect(read('  ECHO after cancel\n', accepted.afterCancel)).toMatchObject({ status: 'completed', answer: 'after cancel' });
  });

  it('says running (not completed) before the stop hook, and missing before the prompt is recorded', () => {
    expect(readGeminiTurn(session, { prompt: 'ECHO after cancel', acceptedAt: accepted.afterCancel, stopSeen: false }).status).toBe('running');
    expect(readGeminiTurn(session, { prompt: 'not sent yet', stopSeen: false }).status).toBe('missing');
    const head = session.split('\n').slice(0, 2).join('\n');
    expect(readGeminiTurn(head, { prompt: 'ECHO hello from umbel', acceptedAt: accepted.hello, stopSeen: false }).status).toBe('missing');
  });

  it("names a running turn's last tool call as the hook's activity line does (the kit's toolActivity: one line, at most 80 characters)", () => {
    const lines = (command: unknown) => [
      '{"sessionId":"s","startTime":"2026-11-29T21:53:50.000Z"}',
      '{"id":"u1","timestamp":"2026-11-29T21:53:54.100Z","type":"user","content":[{"text":"TOOL x"}]}',
      JSON.stringify({ id: 'g1', type: 'gemini', content: '', toolCalls: [{ id: 'c1', name: 'run_shell_command', args: { command } }] }),
    ];
    const activity = (command: unknown) => readGeminiTurn(lines(command).join('\n'), { prompt: 'TOOL x', stopSeen: false });
    expect(activity('touch a\nb')).toEqual({ status: 'running', activity: 'run_shell_command(touch a b)' });
    expect(activity('x'.repeat(100))).toEqual({ status: 'running', activity: `run_shell_command(${'x'.repeat(79)}…)` });
    expect(activity(7)).toEqual({ status: 'running', activity: 'run_shell_command' });
  });

  it('tells a repeated prompt that was rejected from the earlier identical one', () => {
    const text = 'TOOL touch /tmp/h6-exp/work/y.txt';
    expect(read(text, accepted.repeatFirst, repeat)).toMatchObject({ status: 'completed', answer: 'TOOL-RESULT: (empty)' });
    expect(read(text, accepted.repeatSecond, repeat).status).toBe('interrupted');
    // without the BeforeAgent time, the newest record of that text decides
    expect(read(text, undefined, repeat).status).toBe('interrupted');
  });

  it('finds the first prompt merged into the <session_context> message after a rewrite', () => {
    const chat = replayGeminiChat(repeat);
    expect(userText(chat.messages[0] as never)).toBe('TOOL touch /tmp/h6-exp/work/y.txt');
    expect(chat.prompts.filter((p) => p.alive).length).toBe(1);
  });

  it('reports a merged early paste that was cancelled as interrupted', () => {
    expect(read('DELAY 1500 ECHO same\nDELAY 1500 ECHO same', '2026-11-29T21:58:08.411Z', repeat).status).toBe('interrupted');
  });
});

describe('readGeminiTurn on synthetic records', () => {
  it('joins the text of every model step with \\n and reads Part[] content', () => {
    const lines = [
      '{"id":"u1","timestamp":"2026-01-01T00:00:01.000Z","type":"user","content":[{"text":"go"}]}',
      '{"id":"g1","type":"gemini","content":"step one","tokens":{"input":1,"output":2,"total":3}}',
      '{"id":"t1","type":"user","content":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"x"}}}]}',
      '{"id":"g2","type":"gemini","content":[{"text":"thinking","thought":true},{"text":"step two"}],"tokens":null}',
      '{"id":"g3","type":"gemini","content":""}',
    ];
    const r = readGeminiTurn(lines.join('\n'), { prompt: 'go', stopSeen: true });
    expect(r).toMatchObject({ status: 'completed', answer: 'step one\nstep two', numTurns: 3, tokenUsage: { inputTokens: 1, outputTokens: 2 } });
  });

  it('returns the stream messages of a tool turn', () => {
    const messages = readGeminiMessages(session, { prompt: 'TOOL touch /tmp/h6-exp/work/x.txt', acceptedAt: accepted.touch, stopSeen: true });
    expect(messages.map((m) => m.type)).toEqual(['assistant', 'user', 'assistant']);
    expect(JSON.stringify(messages[0])).toContain('tool_use');
    expect(JSON.stringify(messages[2])).toContain('TOOL-RESULT: (empty)');
  });
});
