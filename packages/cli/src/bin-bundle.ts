/**
 * The entry of `bin.cjs`, the bundle the bin runs through the code cache (./boot.ts): the command
 * (`main`) and the seam through which the loader hands in its `import()` (a script compiled from a
 * code cache has none of its own on node 20).
 */
export { main } from './main.js';
export { setModuleImporter } from '@umbel/runtime';
