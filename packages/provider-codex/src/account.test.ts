// Account failures of the real codex 0.169.0, from its recordings against the Responses mock
// (test-fixtures/real/recorded/account/codex-*.json, ACCOUNT-FACTS.md §2.2): task_complete.error's
// codex_error_info names them; a plan limit's reset is in the turn's token_count.rate_limits.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readRecorded } from './__fixtures__/recorded.js';
import { readCodexTurn } from './rollout.js';

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

describe('codex account failures (real recordings)', () => {
  it.each(['429', '429-retry-after', '429-insufficient-quota'])('%s: rate-limited, no reset recorded', (name) => {
    const read = readRecorded(name);
    expect(read).toMatchObject({ status: 'failed', account: { kind: 'rate-limited' } });
    expect(read.status === 'failed' && read.account?.resetsAt).toBeUndefined();
  });

  it('a plan limit: rate-limited, reset from the used-up window of token_count.rate_limits', () => {
    expect(readRecorded('usage-limit')).toMatchObject({
      status: 'failed',
      account: { kind: 'rate-limited', resetsAt: iso(1796133882), limit: 'usage_limit_exceeded' },
    });
    expect(readRecorded('usage-limit-chatgpt')).toMatchObject({ account: { kind: 'rate-limited', resetsAt: iso(1796133898) } });
    expect(readRecorded('weekly-limit-chatgpt')).toMatchObject({ account: { kind: 'rate-limited', resetsAt: iso(1796385912) } });
  });

  it.each(['401', '401-chatgpt', '403'])('%s: auth-failed', (name) => {
    expect(readRecorded(name)).toMatchObject({ status: 'failed', account: { kind: 'auth-failed' } });
  });
});

describe('the "Approaching rate limits" dialog (real recordings)', () => {
  const recording = (name: string) =>
    JSON.parse(readFileSync(new URL(`../../../test-fixtures/real/recorded/account/codex-${name}.json`, import.meta.url), 'utf8')) as {
      turns: { rollout: Record<string, unknown>[]; screen: string }[];
    };
  const read = (turn: { rollout: Record<string, unknown>[] }) =>
    readCodexTurn({ content: `${turn.rollout.map(({ ordinal: _, ...r }) => JSON.stringify(r)).join('\n')}\n`, ordinal: 1, stopSeen: false });

  it('without [notice] hide_rate_limit_model_nudge a plan limit leaves the blocking dialog on screen', () => {
    expect(recording('usage-limit-chatgpt').turns[0]?.screen).toMatch(/Approaching rate limits[\s\S]*2\. Keep current model/);
  });

  it('with it (what umbel writes) no dialog, and the next prompt is a normal turn', () => {
    const [limited, next] = recording('usage-limit-chatgpt-nudge-hidden').turns;
    if (!limited || !next) throw new Error('two turns expected');
    expect(read(limited)).toMatchObject({ status: 'failed', account: { kind: 'rate-limited' } });
    expect(limited.screen).not.toMatch(/Approaching rate limits/);
    expect(read(next)).toMatchObject({ status: 'completed', answer: 'after the limit' });
    expect(next.screen).not.toMatch(/Approaching rate limits/);
  });
});
