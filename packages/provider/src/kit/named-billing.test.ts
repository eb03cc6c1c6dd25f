import { describe, expect, it } from 'vitest';
import { namedBilling } from './named-billing.js';

describe('namedBilling: how a worker bills, from the value its config names its auth by', () => {
  const facts = { source: 'auth.type', billing: { login: 'subscription', shell: 'unknown' }, otherwise: 'api' } as const;

  it('a listed value bills as listed, any other as `otherwise`; the evidence names the value and where it was read', () => {
    expect(namedBilling('login', facts)).toEqual({ billing: 'subscription', evidence: 'auth.type "login"' });
    expect(namedBilling('shell', facts)).toEqual({ billing: 'unknown', evidence: 'auth.type "shell"' });
    expect(namedBilling('key', facts)).toEqual({ billing: 'api', evidence: 'auth.type "key"' });
    expect(namedBilling('toString', facts)).toEqual({ billing: 'api', evidence: 'auth.type "toString"' });
  });

  it('no value (missing, empty, not a string) is unknown', () => {
    for (const value of [undefined, '', 7]) expect(namedBilling(value, facts)).toEqual({ billing: 'unknown', evidence: 'no auth.type' });
  });
});
