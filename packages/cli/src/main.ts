/**
 * The bin's entry: a light module. `--version` answers without loading yargs or the engine, a plain
 * `-p` runs without yargs, and interrupts (signals, a closed stdout/stderr) are taken over before
 * anything slow is loaded.
 */
import { FINISH_ARGV } from './finish-argv.js';
import { INTERRUPT_EXIT_CODES } from './io.js';
import { plainPrintArgs } from './print-argv.js';
import { captureSignals, flushOutput, outputBroken, processIo } from './process-io.js';
import { VERSION } from './version.js';

const INTERRUPTED = new Set<number>(Object.values(INTERRUPT_EXIT_CODES));

/** Run with the real process; returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  captureSignals();
  let code: number;
  if (argv.length === 1 && argv[0] === '--version') {
    process.stdout.write(`umbel ${VERSION}\n`);
    code = 0;
  } else if (argv.length === 1 && argv[0] === 'rpc') {
    // The hidden verb a fleet on another machine runs over SSH (./rpc.ts).
    const { runRpc } = await import('./rpc.js');
    const io = processIo();
    code = await runRpc({ stdin: process.stdin, stdout: io.stdout, createEngine: () => io.createEngine(io.env), onSignal: (handler) => io.onSignal(handler) });
  } else if (argv.join(' ') === FINISH_ARGV.join(' ')) {
    // What `-p` hands its teardown to: it reads its job before it loads the parser or the engine.
    code = await (await import('./finish-main.js')).runDetachedFinish(processIo());
  } else {
    // A plain `umbel -p …` skips loading the parser (yargs): a large share of a warm call's start.
    const plain = plainPrintArgs(argv);
    if (plain) code = await (await import('./print-main.js')).runPlainPrint(plain, processIo());
    else code = await (await import('./run.js')).run(argv, processIo());
  }
  await flushOutput();
  // Output that did not reach its reader is a failure (like a pipe's SIGPIPE), unless a signal
  // ended the command first.
  return outputBroken() && !INTERRUPTED.has(code) ? INTERRUPT_EXIT_CODES.SIGPIPE : code;
}
