import { defineProject } from 'vitest/config';

// The repository's guards. The pack check (pack.test.ts: packs every package and installs the
// tarballs, which may reach the npm registry for third-party dependencies) is the `pack` project.
export default defineProject({
  test: { name: 'repo', include: ['**/*.test.ts'], exclude: ['pack.test.ts', '**/node_modules/**'], testTimeout: 300_000, hookTimeout: 300_000 },
});
