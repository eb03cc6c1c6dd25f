import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GEMINI_VERIFIED_VERSIONS, createGemini } from './index.js';

// test-fixtures/real/pins.json: the release the real-CLI tier runs (pnpm test:real); a pin is bumped
// only after that release passed it (pnpm test:latest, docs/testing.md), together with this list.
const pins = JSON.parse(readFileSync(new URL('../../../test-fixtures/real/pins.json', import.meta.url), 'utf8')) as Record<string, { version: string }>;
const numbers = (v: string) => v.split(/[.-]/).slice(0, 3).map(Number);
const older = (a: string, b: string) => {
  const [x, y] = [numbers(a), numbers(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] ?? 0) < (y[i] ?? 0);
  return false;
};

describe('verified versions', () => {
  it('the provider declares GEMINI_VERIFIED_VERSIONS, oldest first, each once', () => {
    expect(createGemini().verifiedVersions).toEqual([...GEMINI_VERIFIED_VERSIONS]);
    expect(GEMINI_VERIFIED_VERSIONS.length).toBeGreaterThan(0);
    for (let i = 1; i < GEMINI_VERIFIED_VERSIONS.length; i++) expect(older(GEMINI_VERIFIED_VERSIONS[i - 1]!, GEMINI_VERIFIED_VERSIONS[i]!)).toBe(true);
  });

  it('the newest verified version is the pinned real gemini (test-fixtures/real/pins.json)', () => {
    expect(GEMINI_VERIFIED_VERSIONS.at(-1)).toBe(pins.gemini?.version);
  });
});
