/**
 * The detached `umbel pool finish --detached` (./print-teardown.ts) run without loading the parser
 * (it starts once the `-p` that started it has exited: ./detached.ts): its job is read from stdin,
 * then the engine is made and the job run. What fails is recorded where `pool status` shows it; stderr goes
 * nowhere (the process was started with its output ignored).
 */
import type { CliIo, Interrupt } from './io.js';
import { reportError } from './output.js';
import { parseJob, runFinish } from './print-teardown.js';

/** Run the detached teardown with its job on stdin. Returns the exit code. */
export async function runDetachedFinish(io: CliIo): Promise<number> {
  const controller = new AbortController();
  const off = io.onSignal((signal: Interrupt) => controller.abort(signal));
  try {
    const job = parseJob(await io.readStdin());
    return await runFinish(await io.createEngine(io.env), job, controller.signal);
  } catch (error) {
    return reportError(error, io, false);
  } finally {
    off();
  }
}
