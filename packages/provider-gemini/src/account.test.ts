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

describe('gemini account dialogs (real recording)', () => {
  it("the daily quota's Usage limit reached dialog is rate-limited; a normal screen is nothing", () => {
    const path = new URL('../../../test-fixtures/real/recorded/account/gemini-usage-limit.json', import.meta.url);
    const turn = (JSON.parse(readFileSync(path, 'utf8')) as { turns: { dialogScreen: string; screen: string }[] }).turns[0];
    expect(gemini.doDetectAccountScreen?.(turn?.dialogScreen ?? '')).toEqual({ kind: 'rate-limited', message: 'Usage limit reached for gemini-3.8-flash.' });
    expect(gemini.doDetectAccountScreen?.(turn?.screen ?? 'x')).toBeUndefined();
  });
});
