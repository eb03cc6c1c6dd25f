/** @umbel/cli: the `umbel` command line, as a library (`run(argv, io)`) and a bin (`main(argv)`). */
export { run } from './run.js';
export { main } from './main.js';
export type { CliIo, Interrupt, Out } from './io.js';
export { INTERRUPT_EXIT_CODES } from './io.js';
export { runPrint, resultObject, printExitCode } from './print.js';
export { errorResultObject } from './print-result.js';
export { describeOutcome, envFromArgs } from './verbs.js';
export { logLine, statusTable } from './output.js';
export { VERSION } from './version.js';
