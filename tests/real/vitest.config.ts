import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'real',
    include: ['**/*.test.ts'],
    testTimeout: 120000,
    hookTimeout: 120000,
  },
});
