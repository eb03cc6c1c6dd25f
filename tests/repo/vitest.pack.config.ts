import { defineProject } from 'vitest/config';

// The packed tarballs installed into an empty project and run (see pack.test.ts).
export default defineProject({
  test: { name: 'pack', include: ['pack.test.ts'], testTimeout: 300_000, hookTimeout: 300_000 },
});
