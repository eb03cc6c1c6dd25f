import { defineProject } from 'vitest/config';

// The generated package as its author gets it: its own `npm test`, then its tarball loaded into the
// built `umbel providers` (scaffold.test.ts). Needs `pnpm build`; runs in pnpm test:e2e.
export default defineProject({
  test: { name: 'create-umbel-provider-scaffold', include: ['src/scaffold.test.ts'], environment: 'node', testTimeout: 300_000, hookTimeout: 300_000 },
});
