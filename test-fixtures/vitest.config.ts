import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'test-fixtures',
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**'],
    testTimeout: 60000,
  },
});
