import { describe, expect, it } from 'vitest';
import { envPrecedence } from './env-precedence.js';

describe('envPrecedence', () => {
  const reconcile = envPrecedence({ ACME_TOKEN: ['ACME_KEY', 'ACME_KEY_FILE'] });

  it('drops the losers when the winner is set', () => {
    expect(reconcile({ ACME_TOKEN: 't', ACME_KEY: 'k', ACME_KEY_FILE: '/k', OTHER: 'o' })).toEqual({ ACME_TOKEN: 't', OTHER: 'o' });
  });

  it('keeps them when the winner is absent or empty, and never changes its input', () => {
    const env = { ACME_TOKEN: '', ACME_KEY: 'k' };
    expect(reconcile(env)).toEqual(env);
    expect(reconcile({ ACME_KEY: 'k' })).toEqual({ ACME_KEY: 'k' });
    const both = Object.freeze({ ACME_TOKEN: 't', ACME_KEY: 'k' });
    expect(reconcile(both)).not.toBe(both);
  });
});
