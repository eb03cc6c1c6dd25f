import { readFileSync } from 'node:fs';
import type { ProviderRecording } from '@umbel/core/testing';
import { expectReadsFromOneParse } from '@umbel/core/testing';
import { describe, expect, it } from 'vitest';
import { opencode } from './provider.js';
import type { ProviderV1ReadTurnOptions } from '@umbel/provider';
import { opencodeMessages, opencodeTurn, parseSessionDoc } from './transcript.js';

const readOpencodeTurn = (o: ProviderV1ReadTurnOptions) => opencodeTurn(parseSessionDoc(o.content), o);
const readOpencodeMessages = (o: ProviderV1ReadTurnOptions) => opencodeMessages(parseSessionDoc(o.content), o);

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
// `opencode export <id>` of a real 1.18.33 session (test-fixtures/fake-opencode/recorded/export.json)
const exported = fixture('real-1.18.33-export.json');
// what umbel's plugin wrote on the real 1.18.33: an answer, an API error, a rejected permission
const recording = JSON.parse(fixture('conformance.json')) as ProviderRecording;
const transcriptOf = (steps: ProviderRecording['answer']['turn']) => steps.find((s) => s.transcript !== undefined)?.transcript ?? '';
const answered = transcriptOf(recording.answer.turn);
const failed = transcriptOf(recording.apiError.turn);
const rejected = fixture('real-1.18.33-transcript-rejected.json');
const read = (content: string, o: { turnKey?: string; ordinal?: number; stopSeen?: boolean } = {}) =>
  readOpencodeTurn({ content, transcriptPath: '/t.json', ordinal: o.ordinal ?? 1, stopSeen: o.stopSeen ?? true, ...(o.turnKey ? { turnKey: o.turnKey } : {}) });
const userIds = (content: string) => (parseSessionDoc(content)?.messages ?? []).filter((m) => m.info.role === 'user').map((m) => m.info.id);

describe('readOpencodeTurn on what the real 1.18.33 stored', () => {
  it('reads an `opencode export` turn by turn, byte-exact (leading spaces, tabs, unicode, blank lines kept)', () => {
    const ids = userIds(exported);
    expect(ids).toHaveLength(6);
    expect(read(exported, { turnKey: ids[0] })).toMatchObject({
      status: 'completed',
      answer: 'MOCK-REPLY:   ECHO? no: leading space\nline2 ünï 🎉\n\tindented\ttab  ',
      stopReason: 'stop',
      numTurns: 1,
      sessionId: expect.stringMatching(/^ses_/),
      model: 'mock/mock-model',
    });
    expect(read(exported, { turnKey: ids[1] })).toMatchObject({ status: 'completed', answer: 'a\n\nb\n\nc' });
    // without a turn key, the n-th user message
    expect(read(exported, { ordinal: 2 })).toMatchObject({ status: 'completed', answer: 'a\n\nb\n\nc' });
    expect(read(exported, { ordinal: 7 })).toEqual({ status: 'missing' });
  });

  it('reads a turn and its messages from one parse of the transcript', () => {
    expectReadsFromOneParse(opencode, { content: exported, transcriptPath: '/t.json', turnKey: userIds(exported)[1] as string, ordinal: 2, stopSeen: true });
  });

  it("reads the plugin's transcript of an answer with opencode's token counts in the neutral names", () => {
    const [user] = userIds(answered);
    expect(read(answered, { turnKey: user })).toEqual({
      status: 'completed',
      answer: 'recorded answer',
      tokenUsage: { inputTokens: 8062, outputTokens: 13, reasoningTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0, costUsd: 0 },
      numTurns: 1,
      sessionId: expect.stringMatching(/^ses_/),
      model: 'mock/mock-model',
      stopReason: 'stop',
    });
  });

  it('an API error is failed with its message, status and type', () => {
    const [user] = userIds(failed);
    expect(read(failed, { turnKey: user })).toEqual({ status: 'failed', message: 'recorded bad request', apiErrorStatus: 400, apiErrorType: 'APIError' });
    // the same from opencode's own record, without umbel's
    const doc = JSON.parse(failed);
    delete doc.umbel;
    expect(read(JSON.stringify(doc), { turnKey: user })).toMatchObject({ status: 'failed', message: 'recorded bad request', apiErrorStatus: 400 });
  });

  it('a rejected permission: running while opencode may go on, interrupted once the stop was seen', () => {
    const [first, second] = userIds(rejected);
    expect(read(rejected, { turnKey: first })).toMatchObject({ status: 'completed', answer: 'recorded `code` **bold**' });
    expect(read(rejected, { turnKey: second, stopSeen: false })).toEqual({ status: 'running' });
    expect(read(rejected, { turnKey: second, stopSeen: true })).toEqual({
      status: 'interrupted',
      message: 'a tool call was rejected; the worker waits for input',
    });
  });

  it('missing, never an answer: empty, half-written, not a session, an unknown turn key', () => {
    expect(read('')).toEqual({ status: 'missing' });
    expect(read(answered.slice(0, answered.length / 2))).toEqual({ status: 'missing' });
    expect(read('{"hello":1}')).toEqual({ status: 'missing' });
    expect(read(answered, { turnKey: 'msg_nope' })).toEqual({ status: 'missing' });
  });
});

type Part = Record<string, unknown>;
const user = (id: string, text: string) => ({ info: { id, role: 'user', sessionID: 'ses_1', time: { created: 1 } }, parts: [{ type: 'text', text }] });
const step = (id: string, parent: string, info: Record<string, unknown>, parts: Part[]) => ({
  info: { id, role: 'assistant', sessionID: 'ses_1', parentID: parent, modelID: 'm', providerID: 'p', time: { created: 2 }, ...info },
  parts,
});
const tool = (status: string, extra: Part = {}): Part => ({
  type: 'tool',
  tool: 'bash',
  callID: 'call_1',
  state: { status, input: { command: 'echo hi' }, ...extra },
});
const doc = (...messages: unknown[]) => JSON.stringify({ messages, umbel: { version: 1, failures: {} } });

describe('readOpencodeTurn on the states of a turn', () => {
  it('running while the last step is open (with the tool it runs), or a tool step ended and the turn goes on', () => {
    const open = doc(user('u1', 'TOOL echo hi'), step('a1', 'u1', {}, [{ type: 'step-start' }, tool('running')]));
    expect(read(open, { turnKey: 'u1', stopSeen: false })).toEqual({ status: 'running', activity: 'bash: echo hi' });
    const toolDone = doc(
      user('u1', 'x'),
      step('a1', 'u1', { finish: 'tool-calls', time: { created: 2, completed: 3 } }, [tool('completed', { output: 'hi\n' })]),
    );
    expect(read(toolDone, { turnKey: 'u1', stopSeen: false })).toEqual({ status: 'running' });
    expect(read(doc(user('u1', 'x')), { turnKey: 'u1' })).toEqual({ status: 'running' });
  });

  it('the answer is the last step’s text, after a tool step; usage sums every step', () => {
    const turn = doc(
      user('u1', 'TOOL echo hi'),
      step('a1', 'u1', { finish: 'tool-calls', time: { created: 2, completed: 3 }, tokens: { input: 10, output: 2 }, cost: 0.5 }, [
        { type: 'text', text: 'let me run it' },
        tool('completed', { output: 'hi\n' }),
      ]),
      step('a2', 'u1', { finish: 'stop', time: { created: 4, completed: 5 }, tokens: { input: 20, output: 3, cache: { read: 7 } }, cost: 0.25 }, [
        { type: 'text', text: 'TOOL-RESULT: ' },
        { type: 'text', text: 'hi', synthetic: true },
        { type: 'text', text: 'hi' },
      ]),
    );
    expect(read(turn, { turnKey: 'u1' })).toMatchObject({
      status: 'completed',
      answer: 'TOOL-RESULT: hi',
      numTurns: 2,
      tokenUsage: { inputTokens: 30, outputTokens: 5, cacheReadTokens: 7, costUsd: 0.75 },
    });
    expect(readOpencodeMessages({ content: turn, transcriptPath: '/t', turnKey: 'u1', ordinal: 1, stopSeen: true })).toEqual([
      { type: 'assistant', uuid: 'a1', message: { role: 'assistant', content: [{ type: 'text', text: 'let me run it' }] } },
      {
        type: 'assistant',
        uuid: 'a1',
        message: { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'bash', input: { command: 'echo hi' } }] },
      },
      { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'hi\n', is_error: false }] } },
      { type: 'assistant', uuid: 'a2', message: { role: 'assistant', content: [{ type: 'text', text: 'TOOL-RESULT: ' }] } },
      { type: 'assistant', uuid: 'a2', message: { role: 'assistant', content: [{ type: 'text', text: 'hi' }] } },
    ]);
  });

  it('a tool step last and the stop seen: interrupted only once the plugin recorded the turn as ended (the stop comes before the final write)', () => {
    const messages = [
      user('u1', 'TOOL echo hi'),
      step('a1', 'u1', { finish: 'tool-calls', time: { created: 2, completed: 3 } }, [tool('completed', { output: 'hi\n' })]),
    ];
    const written = (ended: string[]) => JSON.stringify({ messages, umbel: { version: 1, failures: {}, ended } });
    // the copy written after the tool step, read when the stop hook arrived: the answer is still on its way
    expect(read(written([]), { turnKey: 'u1', stopSeen: true })).toEqual({ status: 'running' });
    expect(read(written(['u1']), { turnKey: 'u1', stopSeen: true })).toEqual({
      status: 'interrupted',
      message: 'the turn ended after a tool call, without an answer',
    });
  });

  it('a turn still `ending` (the final copy, written before its stop is delivered) reads running until its stop is seen; a failure reads at once', () => {
    const answer = step('a1', 'u1', { finish: 'stop', time: { created: 2, completed: 3 } }, [{ type: 'text', text: 'done' }]);
    const final = (messages: unknown[], failures = {}) => JSON.stringify({ messages, umbel: { version: 1, failures, ended: [], ending: ['u1'] } });
    expect(read(final([user('u1', 'x'), answer]), { turnKey: 'u1', stopSeen: false })).toEqual({ status: 'running' });
    expect(read(final([user('u1', 'x'), answer]), { turnKey: 'u1', stopSeen: true })).toMatchObject({ status: 'completed', answer: 'done' });
    // the final copy of a turn that ended at a tool step: interrupted once the stop is seen
    const toolStep = step('a1', 'u1', { finish: 'tool-calls', time: { created: 2, completed: 3 } }, [tool('completed', { output: 'hi\n' })]);
    expect(read(final([user('u1', 'x'), toolStep]), { turnKey: 'u1', stopSeen: false })).toEqual({ status: 'running' });
    expect(read(final([user('u1', 'x'), toolStep]), { turnKey: 'u1', stopSeen: true })).toMatchObject({ status: 'interrupted' });
    // a failure umbel recorded is the turn's end whatever the hook (its stop-failure is no stop)
    expect(read(final([user('u1', 'x')], { u1: { name: 'RetryLimit', message: 'down' } }), { turnKey: 'u1', stopSeen: false })).toMatchObject({
      status: 'failed',
      message: 'down',
    });
  });

  it('interrupted: a step that completed with no finish (Escape twice, an abort) or an aborted message', () => {
    expect(read(doc(user('u1', 'x'), step('a1', 'u1', { time: { created: 2, completed: 3 } }, [])), { turnKey: 'u1' })).toMatchObject({
      status: 'interrupted',
    });
    const aborted = step('a1', 'u1', { time: { created: 2, completed: 3 }, error: { name: 'MessageAbortedError', data: { message: 'aborted' } } }, []);
    expect(read(doc(user('u1', 'x'), aborted), { turnKey: 'u1' })).toMatchObject({ status: 'interrupted' });
  });

  it('an account failure by its HTTP status: 401/403 auth-failed, 429 rate-limited (no reset: opencode records none); other statuses none', () => {
    const failing = (statusCode: number) =>
      JSON.stringify({
        messages: [
          user('u1', 'x'),
          step('a1', 'u1', { time: { created: 2, completed: 3 }, error: { name: 'APIError', data: { message: 'no', statusCode } } }, []),
        ],
        umbel: { version: 1, failures: {} },
      });
    expect(read(failing(401), { turnKey: 'u1' })).toMatchObject({ status: 'failed', apiErrorStatus: 401, account: { kind: 'auth-failed' } });
    expect(read(failing(403), { turnKey: 'u1' })).toMatchObject({ account: { kind: 'auth-failed' } });
    expect(read(failing(429), { turnKey: 'u1' })).toEqual({
      status: 'failed',
      message: 'no',
      apiErrorStatus: 429,
      apiErrorType: 'APIError',
      account: { kind: 'rate-limited' },
    });
    expect(read(failing(400), { turnKey: 'u1' })).not.toHaveProperty('account');
    expect(read(failing(500), { turnKey: 'u1' })).not.toHaveProperty('account');
  });

  it("failed when umbel stopped the turn (the plugin's record), even though opencode's own step shows no error", () => {
    const content = JSON.stringify({
      messages: [user('u1', 'FAIL 500 down'), step('a1', 'u1', { time: { created: 2, completed: 3 } }, [])],
      umbel: {
        version: 1,
        failures: { u1: { name: 'RetryLimit', message: 'down (opencode was retrying, attempt 3; umbel stopped the turn after 2 retries)' } },
      },
    });
    expect(read(content, { turnKey: 'u1' })).toEqual({
      status: 'failed',
      message: 'down (opencode was retrying, attempt 3; umbel stopped the turn after 2 retries)',
      apiErrorType: 'RetryLimit',
    });
  });
});
