import { defineProject } from 'vitest/config';

// The unit tests (pnpm test:unit). The generated package's own tests and its tarball in umbel run
// in their own project, after a build (vitest.scaffold.config.ts, pnpm test:e2e).
export default defineProject({
  test: { name: 'create-umbel-provider', include: ['src/**/*.test.ts'], exclude: ['src/scaffold.test.ts'], environment: 'node', testTimeout: 60_000 },
});
