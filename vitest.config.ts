import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

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

/** The projects whose files are the slowest: started first, so no long file starts last. */
const SLOW_FIRST = ['real', 'e2e', 'test-fixtures', 'pack'];

/**
 * vitest's own order runs the projects by name (`real` last of all) and, without timings from an
 * earlier run (a fresh clone), larger files first: the real CLIs' files, minutes each, then started
 * after everything else and ran alone at the end. This order starts them first; within a project
 * vitest's order stands (failed, then longer, then larger first).
 */
class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = SLOW_FIRST.indexOf(f.project.name);
      return i === -1 ? SLOW_FIRST.length : i;
    };
    return (await super.sort(files))
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map(({ f }) => f);
  }
}

// One project per package (packages/*/vitest.config.ts) and per example (examples/*), the CLI's
// end-to-end tests (e2e), the scaffold's generated package (create-umbel-provider-scaffold), the shared fixtures, the repository guards (repo), the pack check (pack) and
// the real-CLI tier (tests/real).
export default defineConfig({
  test: {
    maxWorkers: workers(),
    sequence: { sequencer: SlowestFirst },
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
