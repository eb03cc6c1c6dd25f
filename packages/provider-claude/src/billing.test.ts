/** Claude Code's billing verdict on the ready screens the real 2.1.328 drew (test-fixtures/real/recorded/account). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { claude } from './provider.js';

const recorded = (name: string): { env: string[]; startupScreen: string } => {
  const r = JSON.parse(readFileSync(new URL(`../../../test-fixtures/real/recorded/account/${name}.json`, import.meta.url), 'utf8'));
  return { env: Array.isArray(r.env) ? r.env : Object.keys(r.env), startupScreen: r.startupScreen };
};

const detect = (screen: string, envNames: readonly string[]) => claude.doDetectBilling?.({ screen, envNames });

describe('claude billing (ACCOUNT-FACTS §1.1)', () => {
  it.each([
    ['claude-auth-claude-ai', 'subscription', 'banner "Claude Max"'],
    ['claude-auth-oauth-token', 'subscription', 'banner "Claude API" (CLAUDE_CODE_OAUTH_TOKEN)'],
    ['claude-auth-api-key', 'api', 'banner "API Usage Billing" with ANTHROPIC_API_KEY passed'],
    ['claude-auth-auth-token', 'api', 'banner "API Usage Billing" with ANTHROPIC_AUTH_TOKEN passed'],
  ])('%s → %s (%s)', (name, billing, evidence) => {
    const r = recorded(name);
    expect(detect(r.startupScreen, r.env)).toEqual({ billing, evidence });
  });

  it('a claude.ai login with an approved key bills the key (the banner of the turn screen, real 2.1.328)', () => {
    const r = JSON.parse(readFileSync(new URL('../../../test-fixtures/real/recorded/account/claude-auth-claude-ai+key-yes.json', import.meta.url), 'utf8'));
    expect(detect(r.turns[0].screen, Object.keys(r.env))).toEqual({ billing: 'api', evidence: 'banner "API Usage Billing" with ANTHROPIC_API_KEY passed' });
  });

  it('a cloud switch bills the cloud account; nothing at all is unknown', () => {
    expect(detect('', ['CLAUDE_CODE_USE_BEDROCK'])).toEqual({ billing: 'api', evidence: 'CLAUDE_CODE_USE_BEDROCK set (cloud provider billing)' });
    expect(detect('❯ ', ['HOME'])).toEqual({ billing: 'unknown' });
    expect(detect('', ['ANTHROPIC_API_KEY'])).toEqual({ billing: 'api', evidence: 'ANTHROPIC_API_KEY passed' }); // (no banner seen)
  });

  it('names the endpoint variable, never a key', () => {
    expect(claude.billing?.endpointEnv).toEqual(['ANTHROPIC_BASE_URL']);
  });
});

describe('claude quota: the statusLine input (ACCOUNT-FACTS §1.4)', () => {
  const statusline = (payload: unknown) => claude.doParseEvent({ kind: 'statusline', at: 1n, payload });

  it('reads rate_limits (used %, reset in epoch s) from the recorded input; nothing else of it counts', () => {
    const real = JSON.parse(readFileSync(new URL('../../../test-fixtures/real/recorded/account/claude-statusline.json', import.meta.url), 'utf8'));
    const input = real.statusLine.inputs[1].input;
    expect(statusline(input)).toEqual({
      quota: {
        fiveHour: { usedPercent: 42, resetsAt: input.rate_limits.five_hour.resets_at },
        sevenDay: { usedPercent: 13, resetsAt: input.rate_limits.seven_day.resets_at },
      },
    });
    // the startup call (no rate_limits yet) and an API-key session's: no quota, and no turn key / session
    expect(statusline(real.statusLine.inputs[0].input)).toEqual({});
    expect(statusline({ session_id: 's', prompt_id: 'p', rate_limits: { five_hour: { used_percentage: 'x' } } })).toEqual({});
  });
});
