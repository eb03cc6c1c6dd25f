import { defineProject } from 'vitest/config';

export default defineProject({
  ssr: { resolve: { conditions: ['@umbel/source', 'node', 'import', 'module', 'default'] } },
  resolve: { conditions: ['@umbel/source', 'node', 'import', 'module', 'default'] },
  test: {
    name: '@umbel/provider-copilot',
    include: ['src/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
