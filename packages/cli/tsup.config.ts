import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', cli: 'src/cli.ts', main: 'src/main.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: true,
  sourcemap: true,
  clean: true,
  tsconfig: 'tsconfig.build.json',
  // yargs is inlined: one module instead of ~40 makes every command start faster (yargs is ESM
  // with many small files; the loader's per-file cost dominates). Its CommonJS corners need require.
  noExternal: ['yargs'],
  banner: { js: "import { createRequire as __umbelCreateRequire } from 'node:module'; const require = __umbelCreateRequire(import.meta.url);" },
});
