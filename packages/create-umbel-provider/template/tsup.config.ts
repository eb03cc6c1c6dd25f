import { defineConfig } from 'tsup';

// @umbel/provider is a peer dependency: tsup keeps it external (it is never bundled).
export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: true,
  sourcemap: true,
  clean: true,
});
