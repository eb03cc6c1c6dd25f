import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'repo', include: ['**/*.test.ts'], testTimeout: 300_000, hookTimeout: 300_000 },
});
