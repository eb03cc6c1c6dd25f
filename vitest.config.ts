import { defineConfig } from 'vitest/config';

// One project per package (packages/*/vitest.config.ts) and per example (examples/*), the shared fixtures, the repository
// guards (tests/repo) and the real-CLI tier (tests/real).
export default defineConfig({
  test: {
    projects: ['packages/*', 'examples/*', 'test-fixtures', 'tests/repo', 'tests/real'],
  },
});
