import { defineProject } from 'vitest/config';

// The package's own tests. Its end-to-end tests (src/e2e*.test.ts: real tmux, the fake CLIs, a real
// sshd) are the `e2e` project (vitest.e2e.config.ts), so `pnpm test:unit` needs none of that.
export default defineProject({
  ssr: { resolve: { conditions: ['@umbel/source', 'node', 'import', 'module', 'default'] } },
  resolve: { conditions: ['@umbel/source', 'node', 'import', 'module', 'default'] },
  test: {
    name: '@umbel/cli',
    include: ['src/**/*.test.ts'],
    exclude: ['src/**/e2e*.test.ts', '**/node_modules/**'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
