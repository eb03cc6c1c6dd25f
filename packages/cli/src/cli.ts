/**
 * The `umbel` bin: it runs the CLI bundle through the code cache (./boot.ts). The one place that
 * exits the process. Built as CommonJS (`dist/cli.cjs`), as are the bins that load it: node sets up
 * its ESM loader for the first ES module a process loads, ~8 ms of every command's start.
 */
import { boot } from './boot.js';

void boot(process.argv.slice(2)).then((code) => process.exit(code));
