// A launch reads the managed config.toml's text for its env key, billing and endpoint: the text is
// parsed once for all of them (TOML parsing was ~20 ms of every cold `umbel -p` on a 2-core machine).
import { describe, expect, it, vi } from 'vitest';

const parses = vi.hoisted(() => ({ count: 0 }));
vi.mock('@decimalturn/toml-patch', async (importOriginal) => {
  const original = await importOriginal<typeof import('@decimalturn/toml-patch')>();
  return {
    ...original,
    parse: (...args: Parameters<typeof original.parse>) => {
      parses.count += 1;
      return original.parse(...args);
    },
  };
});

const config = `model_provider = "mock"
openai_base_url = "http://unused.invalid"

[model_providers.mock]
base_url = "http://127.0.0.1:9/v1"
env_key = "MOCK_API_KEY"
`;

describe("the managed config's text", () => {
  it('is parsed once for the env key, the billing and the endpoint of a launch; another text is parsed anew', async () => {
    vi.resetModules();
    const { codexBilling, codexEndpoint, configuredEnvKey } = await import('./codex-home.js');
    parses.count = 0;
    expect(configuredEnvKey(config)).toBe('MOCK_API_KEY');
    expect(codexBilling(config, undefined)).toMatchObject({ billing: 'api' });
    expect(codexEndpoint(config)).toBe('http://127.0.0.1:9/v1');
    expect(parses.count).toBe(1);
    const other = config.replace('"mock"', '"openai"');
    expect(codexEndpoint(other)).toBe('http://unused.invalid');
    expect(configuredEnvKey(other)).toBeUndefined();
    expect(parses.count).toBe(2);
  });
});
