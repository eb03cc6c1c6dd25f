import { defineProject } from 'vitest/config';

// The unit tests, and the generated package's own tests run against this repository's built
// packages (scaffold.test.ts: needs `pnpm build` first).
export default defineProject({
  test: { name: 'create-umbel-provider', include: ['src/**/*.test.ts'], environment: 'node', testTimeout: 300_000, hookTimeout: 300_000 },
});
