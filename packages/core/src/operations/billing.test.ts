import { describe, expect, it } from 'vitest';
import { apiEnvIn, detectBilling, endpointOf, refuseApiBilling, refuseApiEnv, safeEndpoint } from './billing.js';
import { UmbelError } from '../contract/errors.js';
import { errorExitCode } from '../contract/exit-codes.js';
import type { Provider } from '@umbel/provider';

const provider = {
  providerId: 'p',
  billing: { apiEnv: ['KEY_A', 'KEY_B'], endpointEnv: ['BASE_URL'] },
} as unknown as Provider;

const thrown = (fn: () => void): unknown => {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
};

describe('billing', () => {
  it('names the API-billing variables present (set and non-empty) in a worker env', () => {
    expect(apiEnvIn(provider, { KEY_A: 'x', KEY_B: '', HOME: '/h' })).toEqual(['KEY_A']);
    expect(apiEnvIn(provider, { HOME: '/h' })).toEqual([]);
  });

  it('the guard refuses a subscription-only spawn given an API key, before any I/O (exit 3); any allows it', () => {
    const error = thrown(() => refuseApiEnv(provider, { KEY_B: 'secret-value' }, 'subscription', 'w1'));
    expect(UmbelError.isInstance(error) && error.code).toBe('UMBEL_BILLING_REFUSED');
    expect(errorExitCode(error)).toBe(3);
    expect(String((error as Error).message)).toContain('KEY_B passed to the worker');
    expect(String((error as Error).message)).not.toContain('secret-value');
    expect(thrown(() => refuseApiEnv(provider, { KEY_B: 'x' }, 'any', 'w1'))).toBeUndefined();
    expect(thrown(() => refuseApiEnv(provider, { HOME: '/h' }, 'subscription', 'w1'))).toBeUndefined();
  });

  it('the guard refuses an unknown verdict unless the provider declares that its CLI bills only a subscription', () => {
    const unknown = thrown(() => refuseApiBilling(provider, { billing: 'unknown' }, 'subscription', 'w')) as UmbelError;
    expect(errorExitCode(unknown)).toBe(3);
    expect(unknown.message).toMatch(/billing is unknown/);
    expect(unknown.message).toMatch(/cannot guarantee/);
    const subscriptionOnly = { ...provider, billing: { apiEnv: [], subscriptionOnly: true } } as unknown as Provider;
    expect(thrown(() => refuseApiBilling(subscriptionOnly, { billing: 'unknown' }, 'subscription', 'w'))).toBeUndefined();
    expect(thrown(() => refuseApiBilling(provider, { billing: 'unknown' }, 'any', 'w'))).toBeUndefined();
  });

  it('the guard refuses a worker found billing the API; subscription passes', () => {
    expect(errorExitCode(thrown(() => refuseApiBilling(provider, { billing: 'api', evidence: 'banner' }, 'subscription', 'w')))).toBe(3);
    expect(thrown(() => refuseApiBilling(provider, { billing: 'api' }, 'any', 'w'))).toBeUndefined();
    expect(thrown(() => refuseApiBilling(provider, { billing: 'subscription' }, 'subscription', 'w'))).toBeUndefined();
  });

  it("takes the provider's verdict, else the launch's, else unknown", () => {
    const detecting = {
      ...provider,
      doDetectBilling: ({ screen }: { screen: string }) => ({ billing: screen === 'S' ? 'subscription' : 'api' }),
    } as unknown as Provider;
    expect(detectBilling(detecting, 'S', [])).toEqual({ billing: 'subscription' });
    expect(detectBilling(provider, '', [], { billing: 'api', evidence: 'auth.json' })).toEqual({ billing: 'api', evidence: 'auth.json' });
    expect(detectBilling(provider, '', [])).toEqual({ billing: 'unknown' });
  });

  it('shows an endpoint without its credentials, query or fragment; never a non-URL', () => {
    expect(safeEndpoint('https://user:sk-secret@gw.example/v1?key=sk-2#x')).toBe('https://gw.example/v1');
    expect(safeEndpoint('not a url')).toBeUndefined();
    expect(endpointOf(provider, { BASE_URL: 'http://127.0.0.1:8080' })).toBe('http://127.0.0.1:8080/');
    expect(endpointOf(provider, {}, 'http://a:b@c.example/v1')).toBe('http://c.example/v1');
    expect(endpointOf(provider, {})).toBeUndefined();
  });
});
