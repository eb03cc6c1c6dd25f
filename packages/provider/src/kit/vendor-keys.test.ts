import { describe, expect, it } from 'vitest';
import { ENV_NAME } from './env-rules.js';
import { MODEL_VENDOR_KEY_ENV } from './vendor-keys.js';

describe('MODEL_VENDOR_KEY_ENV', () => {
  it('names each vendor key once, each one variable name ending in _API_KEY', () => {
    for (const name of MODEL_VENDOR_KEY_ENV) expect(name).toMatch(ENV_NAME);
    for (const name of MODEL_VENDOR_KEY_ENV) expect(name).toMatch(/^[A-Z][A-Z_]*_API_KEY$/);
    expect(new Set(MODEL_VENDOR_KEY_ENV).size).toBe(MODEL_VENDOR_KEY_ENV.length);
  });
});
