import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Test files run in parallel: most of their time is spent waiting on tmux, the fake and real CLIs
 * and their timers, not on a CPU, so even a 2-core machine runs several at once (vitest's default
 * would be one file at a time there). UMBEL_TEST_WORKERS overrides it.
 */
function workers(): number {
  const asked = Number(process.env.UMBEL_TEST_WORKERS);
  if (Number.isInteger(asked) && asked > 0) return asked;
  return Math.max(4, availableParallelism());
}

// One project per package (packages/*/vitest.config.ts) and per example (examples/*), the CLI's
// end-to-end tests (e2e), the scaffold's generated package (create-umbel-provider-scaffold), the shared fixtures, the repository guards (repo), the pack check (pack) and
// the real-CLI tier (tests/real).
export default defineConfig({
  test: {
    maxWorkers: workers(),
    projects: [
      'packages/*',
      'packages/cli/vitest.e2e.config.ts',
      'packages/create-umbel-provider/vitest.scaffold.config.ts',
      'examples/*',
      'test-fixtures',
      'tests/repo',
      'tests/repo/vitest.pack.config.ts',
      'tests/real',
    ],
  },
});
