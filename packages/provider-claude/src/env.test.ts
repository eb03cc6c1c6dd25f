import { describe, expect, it } from 'vitest';
import { CLAUDE_API_BILLING_ENV, CLAUDE_CHILD_MARKERS, CLAUDE_INHERIT_ENV, CLAUDE_RESERVED_ENV } from './facts.js';
import { claude } from './provider.js';

const reconcileClaudeEnv = (env: Record<string, string>) => claude.doReconcileEnv?.(env);

describe('CLAUDE_INHERIT_ENV', () => {
  it('names variables one by one: no prefix wildcard, no duplicates', () => {
    for (const name of CLAUDE_INHERIT_ENV) {
      expect(name).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(name.endsWith('*')).toBe(false);
    }
    expect(new Set(CLAUDE_INHERIT_ENV).size).toBe(CLAUDE_INHERIT_ENV.length);
  });

  it('never inherits a child-session marker a parent Claude Code exports (§8)', () => {
    const markers = [
      'CLAUDECODE',
      'CLAUDE_CODE_CHILD_SESSION',
      'CLAUDE_CODE_ENTRYPOINT',
      'CLAUDE_CODE_SESSION_ID',
      'CLAUDE_PID',
      'CLAUDE_CODE_SESSION_ATTENDED',
      'CLAUDE_CODE_EXECPATH',
      'CLAUDE_CODE_MESSAGING_SOCKET',
      'CLAUDE_CODE_MESSAGING_TOKEN',
      'CLAUDE_CODE_CHILD_NOTES_DIR',
      'CLAUDE_EFFORT',
      'CLAUDE_PROJECT_DIR',
      'CLAUDE_ENV_FILE',
      'CLAUDE_CODE_SKIP_PROMPT_HISTORY',
    ];
    for (const marker of [...markers, ...CLAUDE_CHILD_MARKERS]) expect(CLAUDE_INHERIT_ENV).not.toContain(marker);
    expect(CLAUDE_CHILD_MARKERS).toContain('CLAUDE_CODE_CHILD_SESSION');
  });

  it('never inherits a variable that bills the API instead of the subscription (issue 17; ACCOUNT-FACTS §1.1)', () => {
    for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX', 'CLAUDE_CODE_USE_FOUNDRY']) {
      expect(CLAUDE_API_BILLING_ENV).toContain(name);
      expect(CLAUDE_INHERIT_ENV).not.toContain(name);
      expect(claude.inheritEnv).not.toContain(name);
    }
    expect(claude.billing?.apiEnv).toEqual([...CLAUDE_API_BILLING_ENV]);
    // a subscription token is not API billing: it is still inherited
    expect(CLAUDE_INHERIT_ENV).toContain('CLAUDE_CODE_OAUTH_TOKEN');
  });

  it('lists the configuration the brief requires', () => {
    for (const name of [
      'ANTHROPIC_BASE_URL',
      'CLAUDE_CONFIG_DIR',
      'CLAUDE_CODE_OAUTH_TOKEN',
      'API_TIMEOUT_MS',
      'CLAUDE_CODE_MAX_RETRIES',
      'DISABLE_TELEMETRY',
    ]) {
      expect(CLAUDE_INHERIT_ENV).toContain(name);
    }
    expect(CLAUDE_INHERIT_ENV).toHaveLength(16);
  });

  it('reserves DISABLE_AUTOUPDATER=1', () => {
    expect(CLAUDE_RESERVED_ENV).toEqual({ DISABLE_AUTOUPDATER: '1' });
  });
});

describe('reconcileClaudeEnv', () => {
  it('drops ANTHROPIC_API_KEY when ANTHROPIC_AUTH_TOKEN is set', () => {
    const input = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_AUTH_TOKEN: 't', HOME: '/h' };
    expect(reconcileClaudeEnv(input)).toEqual({ ANTHROPIC_AUTH_TOKEN: 't', HOME: '/h' });
    expect(input.ANTHROPIC_API_KEY).toBe('k');
  });

  it('keeps ANTHROPIC_API_KEY without a token (or with an empty one)', () => {
    expect(reconcileClaudeEnv({ ANTHROPIC_API_KEY: 'k' })).toEqual({ ANTHROPIC_API_KEY: 'k' });
    expect(reconcileClaudeEnv({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_AUTH_TOKEN: '' })).toEqual({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_AUTH_TOKEN: '' });
  });
});
