import { defineConfig } from 'vitest/config';

// The child run of conformance-sabotage.test.ts: only the sabotaged providers' suites.
export default defineConfig({
  test: {
    include: ['sabotaged-providers.ts'],
    root: import.meta.dirname,
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
