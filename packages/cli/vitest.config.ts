import { packageProject } from '../../vitest.package.config.js';

// The package's own tests. Its end-to-end tests (src/e2e*.test.ts: real tmux, the fake CLIs, a real
// sshd) are the `e2e` project (vitest.e2e.config.ts), so `pnpm test:unit` needs none of that.
export default packageProject('@umbel/cli', { exclude: ['src/**/e2e*.test.ts', '**/node_modules/**'] });
