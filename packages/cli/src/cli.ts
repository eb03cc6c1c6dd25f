/** The `umbel` bin: it runs the CLI bundle through the code cache (./boot.ts). The one place that exits the process. */
import { boot } from './boot.js';

process.exit(await boot(process.argv.slice(2)));
