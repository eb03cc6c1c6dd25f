import { fileURLToPath } from 'node:url';
import { defineProject } from 'vitest/config';

// In this repository the example is not a workspace package (so no release tool publishes it):
// @umbel/core resolves to the repository's source. In your own repository, install @umbel/core
// as a devDependency instead and drop the aliases.
const core = (path: string) => fileURLToPath(new URL(`../../packages/core/src/${path}`, import.meta.url));

export default defineProject({
  resolve: {
    alias: [
      { find: /^@umbel\/core\/testing$/, replacement: core('testing/index.ts') },
      { find: /^@umbel\/core$/, replacement: core('index.ts') },
    ],
  },
  test: { name: 'umbel-provider-echo', include: ['src/**/*.test.ts'], environment: 'node', testTimeout: 60_000, hookTimeout: 60_000 },
});
