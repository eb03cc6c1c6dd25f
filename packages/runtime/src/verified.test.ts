/**
 * Every built-in provider declares the CLI versions it was verified against (what `umbel providers`
 * and `umbel doctor` compare the installed CLI with), each a readable `x.y.z`, and the pinned real
 * CLI the real tier runs (test-fixtures/real/pins.json) is one of them: bumping a pin that passes
 * means recording it as verified.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseVersion } from '@umbel/core';
import { describe, expect, it } from 'vitest';
import { builtInProviders } from './builtins.js';

const pins = JSON.parse(readFileSync(join(import.meta.dirname, '../../../test-fixtures/real/pins.json'), 'utf8')) as Record<string, { version: string }>;

describe('verified versions', () => {
  for (const { provider } of builtInProviders()) {
    it(`${provider.providerId} declares its verified CLI versions, the pinned one among them`, () => {
      const verified = provider.verifiedVersions ?? [];
      expect(verified.length).toBeGreaterThan(0);
      for (const v of verified) expect(parseVersion(v)).toBe(v);
      expect(verified).toContain(pins[provider.providerId]?.version);
    });
  }
});
