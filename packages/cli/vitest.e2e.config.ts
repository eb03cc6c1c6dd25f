import { defineProject } from 'vitest/config';

// The CLI end to end: the built bin on real tmux, driving the fake CLIs from test-fixtures/ (and a
// real sshd on 127.0.0.1 for the remote tests). `pnpm test:e2e` and `pnpm test` run it.
export default defineProject({
  ssr: { resolve: { conditions: ['@umbel/source', 'node', 'import', 'module', 'default'] } },
  resolve: { conditions: ['@umbel/source', 'node', 'import', 'module', 'default'] },
  test: {
    name: 'e2e',
    include: ['src/**/e2e*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
