import { describe, expect, it } from 'vitest';
import { EnvArgsSchema, EnvMapSchema, SpawnOptionsSchema } from './schemas.js';
import { usageFromZod } from './errors.js';

describe('an env value with a NUL byte is refused by the one env schema (issue 38)', () => {
  it('in the env map of MCP and YAML, naming the byte', () => {
    const parsed = EnvMapSchema.safeParse({ OK: 'fine', BAD: 'a\u0000b' });
    if (parsed.success) throw new Error('a NUL byte was accepted');
    expect(usageFromZod(parsed.error, 'env').message).toMatch(/BAD.*NUL byte/s);
    expect(SpawnOptionsSchema.safeParse({ name: 'w', env: { BAD: '\u0000' } }).success).toBe(false);
  });

  it('in --env NAME=VALUE; other values and {fromEnv} pass', () => {
    expect(EnvArgsSchema.safeParse(['BAD=x\u0000']).success).toBe(false);
    expect(EnvArgsSchema.parse(['A=tab\there', 'B'])).toEqual({ A: 'tab\there', B: { fromEnv: 'B' } });
    expect(EnvMapSchema.parse({ A: '', B: { fromEnv: 'B' } })).toEqual({ A: '', B: { fromEnv: 'B' } });
  });
});
