// Account failures of the real Gemini CLI 0.61.0, from its recordings against the Gemini mock
// (test-fixtures/real/recorded/account/gemini-*.json, ACCOUNT-FACTS.md §3.2): the chat's `error`
// record carries the API's JSON body (its `code`) or the daily-quota text; no reset is recorded.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readGeminiTurn } from './chat.js';
import { gemini } from './provider.js';

interface Recording {
  readonly prompt?: string;
  readonly turns: readonly { readonly prompt: string; readonly chat: readonly unknown[] }[];
}
function readRecorded(name: string) {
  const path = new URL(`../../../test-fixtures/real/recorded/account/gemini-${name}.json`, import.meta.url);
  const turn = (JSON.parse(readFileSync(path, 'utf8')) as Recording).turns[0];
  if (!turn) throw new Error(`${name}: no turn`);
  const content = `${turn.chat.map((record) => JSON.stringify(record)).join('\n')}\n`;
  return readGeminiTurn(content, { prompt: turn.prompt, stopSeen: true });
}

describe('gemini account failures (real recordings)', () => {
  it('the daily quota (Usage limit reached, Stop): rate-limited, no reset recorded', () => {
    const read = readRecorded('usage-limit');
    expect(read).toMatchObject({ status: 'failed', account: { kind: 'rate-limited' } });
    expect(read.status === 'failed' && read.account?.resetsAt).toBeUndefined();
  });

  it.each(['401', '403', '400-bad-key'])('%s: auth-failed', (name) => {
    expect(readRecorded(name)).toMatchObject({ status: 'failed', account: { kind: 'auth-failed' } });
  });

  it('a retryable 429 never reaches the chat: Escape leaves a cancelled turn, no account error', () => {
    expect(readRecorded('429')).toEqual({ status: 'interrupted', message: 'Request cancelled.' });
  });
});

describe("a retryable 429's rounds, from the CLI's telemetry beside the chat (real recordings, general.maxAttempts 3)", () => {
  const telemetry = (name: string) =>
    readFileSync(new URL(`../../../test-fixtures/real/recorded/account/gemini-${name}-telemetry.log`, import.meta.url), 'utf8');
  const QUOTA_TEXT = 'You exceeded your current quota, please check your plan and billing details.';
  const ACCEPTED = '2026-12-01T19:35:32.022Z';
  const settings = JSON.stringify({ general: { maxAttempts: 3 } });
  const read = (chat: string, stopSeen: boolean, sideRecords?: Record<string, string>) =>
    gemini.doReadTurn({
      content: chat,
      transcriptPath: '/t.jsonl',
      turnKey: ACCEPTED,
      prompt: PROMPT_429,
      ordinal: 1,
      stopSeen,
      ...(sideRecords ? { sideRecords } : {}),
    });
  const PROMPT_429 = `FAIL 429 ${QUOTA_TEXT}`;
  const running = `${JSON.stringify({ id: 'u1', timestamp: '2026-12-01T19:35:32.030Z', type: 'user', content: [{ text: PROMPT_429 }] })}\n`;

  it('still retrying after a whole round: failed rate-limited with the API message, retrying (umbel cancels it)', () => {
    expect(read(running, false, { telemetry: telemetry('429'), settings })).toEqual({
      status: 'failed',
      message: QUOTA_TEXT,
      apiErrorStatus: 429,
      account: { kind: 'rate-limited' },
      retrying: true,
    });
  });

  it('after the cancel (AfterAgent, the prompt dropped): still rate-limited, no longer retrying', () => {
    const path = new URL('../../../test-fixtures/real/recorded/account/gemini-429.json', import.meta.url);
    const turn = (JSON.parse(readFileSync(path, 'utf8')) as Recording).turns[0];
    const chat = `${(turn?.chat ?? []).map((record) => JSON.stringify(record)).join('\n')}\n`;
    expect(read(chat, true, { telemetry: telemetry('429'), settings })).toMatchObject({ status: 'failed', account: { kind: 'rate-limited' } });
    expect(read(chat, true, { telemetry: telemetry('429'), settings })).not.toHaveProperty('retrying');
  });

  it('the default budget (10) not yet spent, or no telemetry: the turn is still running', () => {
    expect(read(running, false, { telemetry: telemetry('429') })).toEqual({ status: 'running' });
    expect(read(running, false)).toEqual({ status: 'running' });
  });
});

describe('gemini account dialogs (real recording)', () => {
  it("the daily quota's Usage limit reached dialog is rate-limited; a normal screen is nothing", () => {
    const path = new URL('../../../test-fixtures/real/recorded/account/gemini-usage-limit.json', import.meta.url);
    const turn = (JSON.parse(readFileSync(path, 'utf8')) as { turns: { dialogScreen: string; screen: string }[] }).turns[0];
    expect(gemini.doDetectAccountScreen?.(turn?.dialogScreen ?? '')).toEqual({ kind: 'rate-limited', message: 'Usage limit reached for gemini-3.8-flash.' });
    expect(gemini.doDetectAccountScreen?.(turn?.screen ?? 'x')).toBeUndefined();
  });
});
