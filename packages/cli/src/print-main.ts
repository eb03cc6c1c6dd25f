/**
 * A plain `umbel -p` (./print-argv.ts) run without loading the parser: the same runner, interrupts
 * and error report as `run()` gives it (./run.ts dispatches the other command lines).
 */
import type { Args } from './args.js';
import type { CliIo, Interrupt } from './io.js';
import { reportError } from './output.js';
import { runPrint } from './print.js';
import { warnRetiredEnv } from './retired.js';

/** Run `umbel -p` with already parsed args. Returns the exit code. */
export async function runPlainPrint(args: Args, io: CliIo): Promise<number> {
  warnRetiredEnv(io);
  // The first interrupt aborts the call; a later signal hurries its cleanup (as in run()).
  const controller = new AbortController();
  const hurry = new AbortController();
  const off = io.onSignal((signal: Interrupt) => {
    if (!controller.signal.aborted) controller.abort(signal);
    else if (signal !== 'SIGPIPE' && !hurry.signal.aborted) hurry.abort(signal);
  });
  try {
    return await runPrint(args, io, () => io.createEngine(io.env), controller.signal, hurry.signal);
  } catch (error) {
    return reportError(error, io, false);
  } finally {
    off();
  }
}
