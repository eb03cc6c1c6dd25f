import { describe, expect, it } from 'vitest';
import { billingOf, endpointsOf } from './billing.js';
import { compareVersions, parseVersion, versionStanding } from './version.js';

describe('versionStanding', () => {
  const verified = ['2.1.300', '2.1.328'];
  it.each([
    ['2.1.328 (Claude Code)', 'verified'],
    ['codex-cli 2.1.330', 'newer'],
    ['2.10.0', 'newer'],
    ['2.1.310', 'between'],
    ['2.1.9', 'older'],
    ['2.1.328-beta.1', 'between'],
    ['Claude Code', 'unparseable'],
  ])('%s is %s', (line, standing) => {
    expect(versionStanding(line, verified).standing).toBe(standing);
  });
  it('without a verified list there is nothing to compare with', () => {
    expect(versionStanding('1.0.0', []).standing).toBe('no-list');
  });
  it('compares numerically, a pre-release before its release', () => {
    expect(compareVersions('0.10.0', '0.9.9')).toBe(1);
    expect(compareVersions('1.0.0-rc.1', '1.0.0')).toBe(-1);
    expect(compareVersions('1.0.0', '1.0.0')).toBe(0);
    expect(parseVersion('gemini 0.61.0\n')).toBe('0.61.0');
  });
});

describe('billing and endpoint', () => {
  const claude = { apiEnv: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'], endpointEnv: ['ANTHROPIC_BASE_URL'] };
  it("by the provider's facts: api only for a variable the worker gets; one the caller set but never passed is named", () => {
    expect(billingOf({ HOME: '/h', CLAUDE_CODE_OAUTH_TOKEN: 't' }, claude)).toEqual({ billing: 'subscription' });
    expect(billingOf({ ANTHROPIC_AUTH_TOKEN: 'k' }, claude)).toEqual({ billing: 'api', variable: 'ANTHROPIC_AUTH_TOKEN' });
    expect(billingOf({ ANTHROPIC_API_KEY: '' }, claude)).toEqual({ billing: 'subscription' });
    expect(billingOf({}, claude, { ANTHROPIC_API_KEY: 'sk' })).toEqual({ billing: 'subscription', withheld: 'ANTHROPIC_API_KEY' });
    // a name outside the facts is not the provider's billing switch
    expect(billingOf({ OPENAI_API_KEY: 'k' }, claude)).toEqual({ billing: 'subscription' });
  });
  it('without facts: the name rule (a key or token variable the worker gets)', () => {
    expect(billingOf({ GEMINI_API_KEY: 'k' })).toEqual({ billing: 'api', variable: 'GEMINI_API_KEY' });
    expect(billingOf({ OPENAI_API_KEY: '' })).toEqual({ billing: 'subscription' });
  });
  it('endpoints without credentials or query; by the facts when the provider names its variables', () => {
    expect(endpointsOf({ OPENAI_BASE_URL: 'https://u:p@gw.example/v1?key=s', PATH: '/bin' })).toEqual([
      { variable: 'OPENAI_BASE_URL', url: 'https://gw.example/v1' },
    ]);
    expect(endpointsOf({ GOOGLE_GEMINI_BASE_URL: 'not a url' })).toEqual([{ variable: 'GOOGLE_GEMINI_BASE_URL', url: '(not a URL)' }]);
    expect(endpointsOf({ OPENAI_BASE_URL: 'https://gw.example/v1', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/' }, claude)).toEqual([
      { variable: 'ANTHROPIC_BASE_URL', url: 'http://127.0.0.1:9/' },
    ]);
  });
});
