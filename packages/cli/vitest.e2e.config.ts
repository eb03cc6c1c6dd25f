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
    // a file's afterAll purges every worker it left, one umbel process each: on a loaded 2-core box
    // (two busy loops beside the suite) e2e.test's took over 60 s
    hookTimeout: 120_000,
  },
});
