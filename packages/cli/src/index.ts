/** @umbel/cli: the `umbel` command line, as a library (`run(argv, io)`) and a bin. */
import { captureSignals, processIo } from './process-io.js';
import { run } from './run.js';

export { run } from './run.js';
export type { CliIo, Out } from './io.js';
export { runPrint, resultObject, printExitCode } from './print.js';
export { describeOutcome, envFromArgs } from './verbs.js';
export { statusTable } from './output.js';
export { VERSION } from './version.js';

/** Run with the real process; returns the exit code. */
export function main(argv: readonly string[]): Promise<number> {
  captureSignals();
  return run(argv, processIo());
}
