import { fileURLToPath } from 'node:url';
import { defineConfig } from 'tsup';

/**
 * esbuild escapes the non-ASCII characters of strings but keeps those of comments and regular
 * expressions (the providers' screen facts: `│`, `❯`, `…`). One of them makes node decode the whole
 * bundle the slow way and V8 hold it as two-byte text: ~10 ms more at every command's start. Each
 * UTF-16 unit becomes its `\uXXXX` escape, which means the same character in a regex, a string or
 * a comment (a line with one is a few columns off in the source map).
 */
const asciiOnly = {
  name: 'ascii-only',
  renderChunk(code: string, chunk: { path: string }) {
    if (!/[^\x00-\x7f]/.test(code)) return undefined;
    // `\│` (an identity escape) would become `\\u2502`: refuse it rather than change its meaning
    if (/\\[^\x00-\x7f]/.test(code)) throw new Error(`${chunk.path}: a backslash before a non-ASCII character; write it as \\uXXXX in the source`);
    return { code: code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) };
  },
};

const shared = {
  plugins: [asciiOnly],
  format: ['esm'] as const,
  target: 'node20',
  platform: 'node' as const,
  sourcemap: true,
  tsconfig: 'tsconfig.build.json',
  // The CommonJS corners of the inlined packages (yargs) need require.
  banner: { js: "import { createRequire as __umbelCreateRequire } from 'node:module'; const require = __umbelCreateRequire(import.meta.url);" },
  // The inlined yargs (and its cliui, wrap-ansi) measure text with ./src/text-width.ts: the
  // `string-width` package builds its Unicode tables at load, ~30 ms of every command's start.
  esbuildOptions(options: { alias?: Record<string, string> }) {
    options.alias = { ...options.alias, 'string-width': fileURLToPath(new URL('./src/text-width.ts', import.meta.url)) };
  },
};

const BIN_INLINED = [
  'yargs',
  'zod',
  '@umbel/core',
  '@umbel/tmux',
  '@umbel/provider-claude',
  '@umbel/provider-codex',
  '@umbel/provider-gemini',
  '@umbel/provider-opencode',
  '@umbel/provider-copilot',
  '@umbel/remote',
  '@umbel/provider-qwen',
  '@umbel/runtime',
];
const BIN_EXTERNAL = ['@umbel/mcp', '@umbel/workflow', '@umbel/top', 'ajv'];

export default defineConfig([
  // `pnpm build` empties dist/ first (two configs build into it side by side, so neither cleans it).
  // The library (`@umbel/cli`): its dependencies stay packages of their own; yargs is inlined (one
  // module instead of ~40: the ESM loader's per-file cost dominates a command's start).
  { ...shared, entry: { index: 'src/index.ts' }, dts: true, noExternal: ['yargs'] },
  // `@umbel/cli/main` (the bin's main(), for embedding): everything `umbel -p` and the verbs load
  // is inlined (yargs, zod, core, tmux, the providers, the default engine) instead of some 60
  // modules, which took ~80 ms of CPU off every call on the 2-core bench machine. `umbel mcp` and
  // `umbel run` load their own packages on demand. Bundled core resolves ajv (loaded with require
  // for `--schema`) from here: a dependency of this package.
  {
    ...shared,
    entry: { main: 'src/main.ts' },
    dts: { entry: { main: 'src/main.ts' } },
    noExternal: BIN_INLINED,
    external: BIN_EXTERNAL,
  },
  // The same as one CommonJS file, `bin.cjs`, which the bin (`cli.js`, ./src/boot.ts: node's own
  // modules only) runs through V8's code cache: ~50 ms of compiling off every command's start.
  {
    ...shared,
    entry: { bin: 'src/bin-bundle.ts' },
    format: ['cjs'] as const,
    banner: {},
    shims: true,
    outExtension: () => ({ js: '.cjs' }),
    noExternal: BIN_INLINED,
    external: BIN_EXTERNAL,
  },
  // The bin's loader (./src/cli.ts, ./src/boot.ts): CommonJS like the bins that require it, so a
  // command never sets up node's ESM loader (~8 ms of every start).
  { ...shared, entry: { cli: 'src/cli.ts' }, format: ['cjs'] as const, banner: {}, shims: true, outExtension: () => ({ js: '.cjs' }) },
]);
