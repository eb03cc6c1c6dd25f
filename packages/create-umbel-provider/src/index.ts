/** create-umbel-provider as a library: what its bin runs. */
export { HELP, runCli, VERSION, type CliResult } from './cli.js';
export { fill, generate, TEMPLATE_DIR, targetPath } from './generate.js';
export { BUILT_IN_IDS, ScaffoldError, scaffoldNames, type ScaffoldNames } from './names.js';
